/**
 * Judging helpers the cases share: "a JSON-RPC error with this code came back", the protocol
 * checker's findings on an answer, and the request builders. Pure.
 */
import { randomUUID } from 'node:crypto';
import { own, ownObject } from '../../protocol/extract.js';
import { describeReply, jsonrpcCodeOf, replies } from '../inspect.js';
import type { Findings, ProbeAnswer } from '../types.js';

/**
 * The checker rules each cross-cutting case judges over the whole run (cases/common.ts), so one
 * broken habit fails one case, not every case whose answer shows it. The probe has no checks of
 * its own for these: the verdict is the protocol checker's.
 */
export const CROSS_CUTTING_RULES = Object.freeze({
  'all.no-stack-trace': Object.freeze(['aap.no-stack-trace']),
  'all.retryable-boolean': Object.freeze(['aap.retryable-boolean', 'dmc12.retryable-boolean']),
  'dmc12.retryable.code-table': Object.freeze(['dmc12.retryable-fixed']),
} as const);

const crossCuttingRuleIds: ReadonlySet<string> = new Set(Object.values(CROSS_CUTTING_RULES).flat());

/** The checker's findings on one answer, except the rules a cross-cutting case judges. */
export function conformanceFindings(a: ProbeAnswer): Findings {
  return a.violations.filter((v) => !crossCuttingRuleIds.has(v.rule)).map((v) => `${a.request.label}: [${v.rule}] ${v.message}`);
}

/** The checker's findings of `rules` over every answer, each naming the case and request it came from. */
export function ruleFindings(answers: readonly ProbeAnswer[], rules: readonly string[]): Findings {
  return answers.flatMap((a) => a.violations.filter((v) => rules.includes(v.rule)).map((v) => `${a.caseId}/${a.request.label}: [${v.rule}] ${v.message}`));
}

/** Findings when an answer is not one JSON-RPC response object (no answer, not JSON, a batch), else the object. */
export function singleReply(a: ProbeAnswer): { reply: Record<string, unknown> } | { findings: Findings } {
  const label = a.request.label;
  if (a.transportError !== null) return { findings: [`${label}: no answer (${a.transportError})`] };
  if (a.json === undefined) {
    return { findings: [`${label}: HTTP ${a.status}${a.contentType ? ` ${a.contentType.split(';')[0]}` : ''} with ${a.text.length === 0 ? 'an empty body' : 'a body that is not JSON'}, not a JSON-RPC response`] };
  }
  if (Array.isArray(a.json)) return { findings: [`${label}: a JSON array came back for a single request`] };
  const [reply] = replies(a.json);
  if (!reply) return { findings: [`${label}: the body is not a JSON-RPC response object`] };
  return { reply };
}

/** Options of {@link expectError}. */
export interface ExpectError {
  /** The JSON-RPC code that must come back. */
  jsonrpcCode: number;
  /**
   * What the reply's id must be: the request's (default), `null` (the request's id could not be
   * read: parse errors), or `any` (a transport-level rejection may answer before reading the body).
   */
  id?: 'request' | 'null' | 'any';
  /** The HTTP status that must come with it. */
  httpStatus?: number;
}

/**
 * Findings unless `a` is a JSON-RPC error with `want.jsonrpcCode` (and the id and HTTP status
 * asked for), plus the protocol checker's findings on it.
 */
export function expectError(a: ProbeAnswer, want: ExpectError): Findings {
  const one = singleReply(a);
  if ('findings' in one) return one.findings;
  const { reply } = one;
  const label = a.request.label;
  const out: Findings = [];
  const code = jsonrpcCodeOf(reply);
  if (code === null) {
    out.push(Object.hasOwn(reply, 'result') ? `${label}: accepted — a success result came back, want JSON-RPC error ${want.jsonrpcCode}` : `${label}: no error code`);
  } else if (code !== want.jsonrpcCode) {
    out.push(`${label}: got ${describeReply(reply).got}, want JSON-RPC error ${want.jsonrpcCode}`);
  }
  if (want.httpStatus !== undefined && a.status !== want.httpStatus) out.push(`${label}: HTTP ${a.status}, want HTTP ${want.httpStatus}`);
  const id = own(reply, 'id');
  if (want.id === 'null') {
    if (id !== null) out.push(`${label}: id is ${JSON.stringify(id) ?? 'absent'}, want null (the request's id could not be read)`);
  } else if (want.id !== 'any') {
    const sent = requestId(a.request.body);
    if (sent !== undefined && id !== sent) out.push(`${label}: id is ${JSON.stringify(id) ?? 'absent'}, want ${JSON.stringify(sent)} (the request's id)`);
  }
  return [...out, ...conformanceFindings(a)];
}

/** The JSON-RPC id of a request body, or undefined when it has none or is not JSON. */
export function requestId(body: string): unknown {
  try {
    const v = JSON.parse(body) as unknown;
    return Array.isArray(v) ? undefined : own(v, 'id');
  } catch {
    return undefined;
  }
}

/** The `error` member of an answer's single reply, or null. */
export function errorMember(a: ProbeAnswer): Record<string, unknown> | null {
  const one = singleReply(a);
  return 'reply' in one ? ownObject(one.reply, 'error') : null;
}

/** A JSON-RPC id for a probe request (`probe-<tag>`), short and free of caller data. */
export const probeId = (tag: string): string => `probe-${tag}`;

/** A fresh A2A messageId naming the probe. */
export const probeMessageId = (): string => `aap-triage-probe-${randomUUID()}`;
