/**
 * Cross-cutting cases: judged once over every answer of the run, so a habit that breaks a rule
 * everywhere (stack traces in messages, `"retryable": "true"`, reused error ids) fails the one
 * case for that rule, naming each answer that broke it.
 */
import { containsStackTrace } from '../../protocol/index.js';
import { ownObject } from '../../protocol/extract.js';
import { describeReply, dmc12DataOf, errorIdOfReply, replies } from '../inspect.js';
import type { Findings, ProbeAnswer, ProbeCase } from '../types.js';
import { CROSS_CUTTING_RULES, ruleFindings } from './judge.js';

const AAP = 'AAP "Errors" page';
const DMC = 'DMC-12 "Error taxonomy" page';

const where = (a: ProbeAnswer): string => `${a.caseId}/${a.request.label}`;

/** True when a reply is an error: a JSON-RPC error member, or a DMC-12 error inside the result. */
const isErrorReply = (r: unknown): boolean => ownObject(r, 'error') !== null || dmc12DataOf(r) !== null;

/** Cases judged over every answer, for both families. */
export const CROSS_CUTTING_CASES: readonly ProbeCase[] = Object.freeze([
  {
    id: 'all.no-stack-trace',
    family: 'all',
    level: 'MUST',
    title: 'no answer carries a stack trace (error.message, the aap.error or DMC-12 message, or a non-JSON error page)',
    spec: { source: `${AAP}, "What dealer agents MUST and MUST NOT do"`, quote: 'Dealer agents MUST NOT leak internal stack traces in message.' },
    safety: 'judges every answer of the run; sends nothing',
    crossCutting: true,
    requests: () => [],
    // JSON answers are the checker's (aap.no-stack-trace); a body that is not JSON (an HTML error
    // page) is beyond the checker, so only that is read here, with the same stack-trace test.
    judge: (answers) => [
      ...ruleFindings(answers, CROSS_CUTTING_RULES['all.no-stack-trace']),
      ...answers.filter((a) => a.json === undefined && containsStackTrace(a.text)).map((a) => `${where(a)}: the non-JSON body holds a stack trace`),
    ],
  },
  {
    id: 'all.retryable-boolean',
    family: 'all',
    level: 'MUST',
    title: 'every aap.error and DMC-12 error carries retryable as a JSON boolean (not "true" or "false" strings)',
    spec: { source: `${AAP}, "What dealer agents MUST and MUST NOT do"`, quote: 'Dealer agents MUST set retryable truthfully. Buyer agents follow this signal to decide whether to retry.' },
    safety: 'judges every answer of the run; sends nothing',
    crossCutting: true,
    requests: () => [],
    judge: (answers) => ruleFindings(answers, CROSS_CUTTING_RULES['all.retryable-boolean']),
  },
  {
    id: 'all.error-id.present',
    family: 'all',
    level: 'SHOULD',
    title: 'every error answer, protocol-level ones included, carries an error_id a buyer can quote',
    spec: { source: `${AAP}, "Per-code semantics: INTERNAL_ERROR"`, quote: 'Dealer agents SHOULD set error_id so support tickets can correlate to logs.' },
    safety: 'judges every answer of the run; sends nothing',
    crossCutting: true,
    requests: () => [],
    judge: (answers, target) =>
      answers.flatMap((a) =>
        replies(a.json)
          .filter((r) => isErrorReply(r) && errorIdOfReply(r, target.family) === null)
          .map((r) => `${where(a)}: ${describeReply(r).got} carries no error_id`),
      ),
  },
  {
    id: 'all.error-id.distinct',
    family: 'all',
    level: 'MUST',
    title: 'no two answers share an error_id',
    spec: { source: `${AAP}, "Error payload shape"`, quote: 'error_id string yes Unique identifier for this error instance (UUID recommended), suitable for support correlation.' },
    safety: 'judges every answer of the run; sends nothing',
    crossCutting: true,
    requests: () => [],
    judge: (answers) => {
      const seen = new Map<string, string>();
      const out: Findings = [];
      for (const a of answers) {
        for (const id of a.errorIds) {
          const first = seen.get(id);
          if (first !== undefined && first !== where(a)) out.push(`${where(a)}: error_id ${id} already came back for ${first}`);
          else seen.set(id, where(a));
        }
      }
      return out;
    },
  },
  {
    id: 'dmc12.retryable.code-table',
    family: 'dmc12',
    level: 'MUST',
    title: 'every DMC-12 error has the retryable its error_code fixes (true only for RATE_LIMITED, UPSTREAM_UNAVAILABLE, INTERNAL_ERROR)',
    spec: { source: `${DMC}, "The full code set (21)"`, quote: 'retryable is true only for the three transient classes.' },
    safety: 'judges every answer of the run; sends nothing',
    crossCutting: true,
    requests: () => [],
    judge: (answers) => ruleFindings(answers, CROSS_CUTTING_RULES['dmc12.retryable.code-table']),
  },
] satisfies ProbeCase[]);
