/**
 * Conformance checker: which spec rules a response body breaks. Each rule is data — a stable id,
 * its level, where it comes from, the sentence it enforces — plus a small check over one call
 * (`conformance-rules-*.ts`, one module per protocol family; schema checks in
 * `conformance-schema.ts`). docs/protocol.md numbers every normative sentence of both spec pages
 * and names the rule that detects it.
 */
import { errorText } from './extract.js';
import { type BodyLimits, readJsonBody } from './json-body.js';
import { isResponseObject, readId } from './parse-response.js';
import { type CallContext, type CallView, type ConformanceLevel, type ConformanceRule, viewOf } from './conformance-view.js';
import { JSONRPC_RULES } from './conformance-rules-jsonrpc.js';
import { AAP_RULES } from './conformance-rules-aap.js';
import { A2A_RULES } from './conformance-rules-a2a.js';
import { DMC12_RULES } from './conformance-rules-dmc12.js';

export type { CallView, ConformanceLevel, ConformanceRule } from './conformance-view.js';

/** One broken rule. */
export interface ConformanceViolation {
  /** Stable rule id (`aap.errorinfo-leads`); the audit `conformance` column stores these. */
  rule: string;
  /** What is wrong here, then the spec sentence. */
  message: string;
  /** The rule's level (MUST, MUST NOT, SHOULD). */
  level: ConformanceLevel;
}

/** The rules, in report order. Ids are stable; new rules get new ids. */
export const CONFORMANCE_RULES: readonly ConformanceRule[] = Object.freeze([...JSONRPC_RULES, ...A2A_RULES, ...AAP_RULES, ...DMC12_RULES]);

const ENVELOPE_RULE = CONFORMANCE_RULES.find((r) => r.id === 'jsonrpc.envelope')!;
const BODY_RULES = CONFORMANCE_RULES.filter((r) => r.checkBody !== undefined);
const CALL_RULES = CONFORMANCE_RULES.filter((r) => r.checkBody === undefined);

/** Options of `checkConformance`: body limits and what is known of the exchange (see `CallContext`). */
export interface CheckConformanceOptions extends BodyLimits, CallContext {}

function violation(rule: ConformanceRule, problem: string, prefix = ''): ConformanceViolation {
  return { rule: rule.id, message: `${prefix}${problem}. Spec: "${rule.quote}"`, level: rule.level };
}

/**
 * Lists the conformance rules a JSON-RPC response breaks (`CONFORMANCE_RULES`), in rule order; an
 * empty list means conformant. `response` is one response object or a batch (text, bytes or
 * parsed); for a batch, each message starts with the call's id. A body that cannot be read gives
 * one `jsonrpc.envelope` violation. `options.family`, `httpStatus` and `form` enable the rules
 * that need them. Never throws.
 */
export function checkConformance(response: unknown, options: CheckConformanceOptions = {}): ConformanceViolation[] {
  const read = readJsonBody(response, options);
  if ('parseError' in read) return [violation(ENVELOPE_RULE, `unreadable body: ${read.parseError.message}`)];
  const out: ConformanceViolation[] = [];
  for (const rule of BODY_RULES) {
    let problem: string | null;
    try {
      problem = rule.checkBody!(read.value);
    } catch (err) {
      problem = `check failed: ${errorText(err)}`;
    }
    if (problem !== null) out.push(violation(rule, problem));
  }
  const batch = Array.isArray(read.value);
  const calls = batch ? (read.value as unknown[]) : [read.value];
  for (const call of calls) {
    let view: CallView;
    let prefix: string;
    try {
      if (!isResponseObject(call)) {
        out.push(violation(ENVELOPE_RULE, 'not a JSON-RPC response object (no result or error member)'));
        continue;
      }
      prefix = batch ? `id ${JSON.stringify(readId(call))}: ` : '';
      view = viewOf(call, options);
    } catch (err) {
      out.push(violation(ENVELOPE_RULE, `unreadable response object: ${errorText(err)}`));
      continue;
    }
    for (const rule of CALL_RULES) {
      let problem: string | null;
      try {
        problem = rule.check(view);
      } catch (err) {
        problem = `check failed: ${errorText(err)}`;
      }
      if (problem !== null) out.push(violation(rule, problem, prefix));
    }
  }
  return out;
}

/** The ids of the broken rules only (what the audit `conformance` column stores). */
export function conformanceRuleIds(response: unknown, options: CheckConformanceOptions = {}): string[] {
  return [...new Set(checkConformance(response, options).map((v) => v.rule))];
}
