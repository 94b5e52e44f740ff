/**
 * The guidance rules of an incident draft (DESIGN §7), pure: per code, what the client did and
 * what the spec says it should do, and the requested actions. Every number in the advice comes
 * from the code tables (src/protocol/codes) and the retry contract (src/protocol/retry.ts), or
 * from the storm thresholds the draft was made with.
 */
import {
  A2A_ERRORS,
  A2A_EXTENSIONS_HEADER,
  A2A_SERVED_VERSION,
  A2A_VERSION_HEADER,
  A2A_VERSION_WHEN_ABSENT,
  backoffCeilingMs,
  type RetryFlag,
} from '../protocol/index.js';
import { codeInfoFor } from './codes.js';
import type { StormThresholds } from './storm-detect.js';
import type { CodeBreakdown, ErrorSummary } from './summary.js';

/** One requested action and the codes that caused it (each action names them). */
export interface RequestedAction {
  text: string;
  codes: string[];
}

/** Per code: what the client did and what the spec says it should do (DESIGN §7). */
export interface CodeGuidance {
  code: string;
  protocol: string;
  retryable: boolean | null;
  count: number;
  /** The code's one-line meaning from the spec tables; null for an unknown code. */
  meaning: string | null;
  /** What the client did, from attempts and retry flags. */
  did: string;
  /** The spec's recommended client action plus the retry rule for the code. */
  should: string;
  /** Where the spec says so; null for an unknown code. */
  specSection: string | null;
}

/** A share as a percentage with one decimal (`40.0 %`), or `n/a`. */
export const percent = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

const distinct = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/**
 * The backoff schedule in words, `${BACKOFF_SCHEDULE}`: the nominal waits before the first three
 * retries, from the protocol's backoff shape (src/protocol/retry.ts, DMC-12 "Retry strategy").
 */
export const BACKOFF_SCHEDULE = `~${[1, 2, 3].map((n) => `${backoffCeilingMs(n) / 1000} s`).join(' → ')}`;

const ACTIVATION = A2A_ERRORS.EXTENSION_SUPPORT_REQUIRED;
const VERSION = A2A_ERRORS.VERSION_NOT_SUPPORTED;

function did(b: CodeBreakdown): string {
  if (b.retries === 0) return `${b.count} call${b.count === 1 ? '' : 's'} failed with this code; the client did not retry them.`;
  const parts = [`${b.retries} of ${b.count} were retries, up to attempt ${b.maxAttempt}`];
  if (b.flags.retried_non_retryable) parts.push(`${b.flags.retried_non_retryable} retried an answer marked retryable=false`);
  if (b.flags.ignored_retry_after) {
    const ra = b.retryAfterMs ? ` (the server asked for ${b.retryAfterMs.min === b.retryAfterMs.max ? `${b.retryAfterMs.min} ms` : `${b.retryAfterMs.min}–${b.retryAfterMs.max} ms`})` : '';
    parts.push(`${b.flags.ignored_retry_after} came before retry_after_ms had elapsed${ra}`);
  }
  if (b.flags.no_backoff) parts.push(`${b.flags.no_backoff} came without exponential backoff`);
  return `${parts.join('; ')}.`;
}

/** Which parts of the retry rule a requested action of the draft already asks for, for one code. */
export interface AskedRule {
  /** "Wait at least retry_after_ms" */
  hint: boolean;
  /** "Back off exponentially with jitter … stop after N attempts" */
  backoff: boolean;
}

/**
 * The spec's client action for a code plus the retry rule, each piece of advice once (issue 28):
 * what the action already says (backing off, `retry_after_ms`, reporting the ids) is not
 * repeated, nor what a requested action of the draft asks for this code (`asked`).
 */
function should(b: CodeBreakdown, action: string | null, cap: number, asked: AskedRule): string {
  let retryRule: string;
  let specAction = action;
  if (b.retryable === false) retryRule = action && /retry/i.test(action) ? '' : 'Do not retry the same request as it is: it will fail identically.';
  else if (b.retryable === true) {
    // A clause of the spec's action that says how to retry (back off, retry_after_ms) is left to
    // the requested action when one asks for part of it; the rest of the action stays (AAP's
    // "…; if it persists, surface to the operator with error_id.").
    const anyAsked = asked.backoff || asked.hint;
    const clauses = (action ?? '').replace(/\.$/, '').split(/;\s*/).filter(Boolean);
    const kept = anyAsked ? clauses.filter((c) => !/back ?off|retry_after/i.test(c)) : clauses;
    const keptText = kept.join('; ');
    specAction = keptText ? `${keptText[0]?.toUpperCase()}${keptText.slice(1)}.` : null;
    const said = specAction ?? '';
    const backoffSaid = /back ?off/i.test(said);
    // The code table's action may carry the schedule itself (DMC-12's RATE_LIMITED row): then only the cap is added.
    const scheduleSaid = said.includes(BACKOFF_SCHEDULE);
    // What a requested action below asks for is pointed to, not said twice.
    const parts: string[] =
      asked.hint && asked.backoff
        ? ['wait and retry as the requested actions below say']
        : asked.backoff
          ? ['retry as the requested action below says']
          : asked.hint
            ? ['wait as the requested action below says']
            : [];
    if (!asked.backoff) {
      parts.push(
        scheduleSaid
          ? `at most ${cap} attempts in all`
          : backoffSaid
            ? `schedule ${BACKOFF_SCHEDULE} with jitter (capped), at most ${cap} attempts`
            : `retry only with exponential backoff and jitter (${BACKOFF_SCHEDULE}, capped), at most ${cap} attempts`,
      );
    }
    if (!asked.hint && !/retry_after/i.test(said)) parts.push('honour retry_after_ms');
    if (!/error_id/i.test(said)) parts.push('then report the error_id and trace_id');
    const text = parts.join('; ');
    retryRule = text ? `${text[0]?.toUpperCase()}${text.slice(1)}.` : '';
  } else retryRule = 'The envelope did not say whether it is retryable; treat it as not retryable.';
  return [specAction, retryRule].filter(Boolean).join(' ');
}

/** Per code, the parts of the retry rule the requested actions already ask for. */
export function retryRuleAsked(actions: readonly RequestedAction[]): Map<string, AskedRule> {
  const out = new Map<string, AskedRule>();
  for (const a of actions) {
    const hint = a.text.startsWith('Wait at least retry_after_ms');
    const backoff = a.text.startsWith('Back off exponentially');
    if (!hint && !backoff) continue;
    for (const c of a.codes) {
      const cur = out.get(c) ?? { hint: false, backoff: false };
      out.set(c, { hint: cur.hint || hint, backoff: cur.backoff || backoff });
    }
  }
  return out;
}

/** Per code of the summary: its meaning, what the client did, what it should do, and where the spec says so. */
export function guidanceFor(summary: ErrorSummary, cap: number, asked: ReadonlyMap<string, AskedRule> = new Map()): CodeGuidance[] {
  return summary.codes.map((b) => {
    const info = codeInfoFor(b.protocol, b.code);
    return {
      code: b.code,
      protocol: b.protocol,
      retryable: b.retryable,
      count: b.count,
      meaning: info?.meaning ?? null,
      did: did(b),
      should: should(b, info?.clientAction ?? null, cap, asked.get(b.code) ?? { hint: false, backoff: false }),
      specSection: info?.specSection ?? null,
    };
  });
}

/** `A, B` of distinct codes, or `—` when none could be traced. */
const codeList = (codes: readonly string[]): string => (codes.length ? distinct(codes).join(', ') : 'codes not found in the store');

/** The requested actions of a draft to the partner, most blocking first; each names its codes. */
export function requestedActions(traced: Readonly<Record<RetryFlag, readonly string[]>>, summary: ErrorSummary, retryRatio: number | null, th: StormThresholds, extensionUri: string | undefined): RequestedAction[] {
  const out: RequestedAction[] = [];
  const add = (codes: string[], text: (list: string) => string): void => {
    out.push({ codes: distinct(codes), text: text(codeList(codes)) });
  };
  const has = (code: string, jsonrpc: string): CodeBreakdown | undefined => summary.codes.find((b) => b.code === code || b.code === jsonrpc);
  // Activation and version first: until they are right, no skill call can succeed.
  const activation = has(ACTIVATION.code, String(ACTIVATION.jsonrpcCode));
  if (activation) {
    const uri = extensionUri ? `the AAP extension URI ${extensionUri}` : 'the AAP extension URI our agent card declares required (capabilities.extensions, required: true)';
    add([activation.code], (c) => `Activate the AAP extension (${c}, ${ACTIVATION.jsonrpcCode}): send the ${A2A_EXTENSIONS_HEADER} header naming ${uri} on every call; retrying without it fails the same way.`);
  }
  const version = has(VERSION.code, String(VERSION.jsonrpcCode));
  if (version) add([version.code], (c) => `Send the ${A2A_VERSION_HEADER} header with a version we serve (${A2A_SERVED_VERSION}) on every call (${c}, ${VERSION.jsonrpcCode}); an absent header reads as ${A2A_VERSION_WHEN_ABSENT}.`);
  // A retry's own code may differ from the answer it retried: name the answers' codes.
  const answered = (flag: RetryFlag): string[] => {
    const codes = traced[flag];
    return codes.length ? [...codes] : summary.codes.filter((b) => b.flags[flag] > 0 && (flag !== 'retried_non_retryable' || b.retryable === false)).map((b) => b.code);
  };
  if (summary.flags.retried_non_retryable) {
    add(answered('retried_non_retryable'), (c) => `Stop retrying answers marked retryable=false (${c}); fix the request instead (see each code above).`);
  }
  if (summary.flags.ignored_retry_after) {
    add(answered('ignored_retry_after'), (c) => `Wait at least retry_after_ms before retrying (${c}).`);
  }
  if (summary.flags.no_backoff || summary.overAttemptCap) {
    const codes = summary.flags.no_backoff ? answered('no_backoff') : summary.codes.filter((b) => b.maxAttempt > th.attemptCap).map((b) => b.code);
    add(codes, (c) => `Back off exponentially with jitter (${BACKOFF_SCHEDULE}, capped) and stop after ${th.attemptCap} attempts (${c}).`);
  }
  if (retryRatio !== null && retryRatio > th.clientBudget) {
    const retried = summary.codes.filter((b) => b.retries > 0).map((b) => b.code);
    add(retried, (c) => `Keep retries under ${Math.round(th.clientBudget * 100)} % of requests (per-client retry budget); they were ${percent(retryRatio)} (retries of ${c}).`);
  }
  const handled = new Set(out.flatMap((a) => a.codes));
  const terminal = summary.codes.filter((b) => b.retryable === false && b.flags.retried_non_retryable === 0 && !handled.has(b.code)).map((b) => b.code);
  if (terminal.length) add(terminal, (c) => `Fix the cause of the terminal errors (${c}) as the spec's client action below says.`);
  out.push({ codes: [], text: 'Reply quoting the error_id and trace_id pairs above if anything here does not match your logs.' });
  return out;
}

/**
 * The requested actions of a dealer-side episode (DESIGN §6): for the dealer's own on-call, about
 * the faults the client retried; nothing is asked of the partner.
 */
export function dealerActions(summary: ErrorSummary): RequestedAction[] {
  const out: RequestedAction[] = [];
  const faults = summary.codes.filter((b) => b.retryable !== false && b.code !== 'RATE_LIMITED').map((b) => b.code);
  const services = summary.services.join(', ') || 'this dealer agent';
  if (faults.length) {
    out.push({ codes: distinct(faults), text: `Find and fix the cause of the retryable faults (${codeList(faults)}) on ${services}: the client's retries followed the backoff policy and last as long as the faults do.` });
  }
  const limited = summary.codes.filter((b) => b.code === 'RATE_LIMITED').map((b) => b.code);
  if (limited.length) {
    out.push({ codes: limited, text: `Check the rate limit behind RATE_LIMITED on ${services}: the client waited as retry_after_ms asked, so the limit, not the client, set the pace.` });
  }
  out.push({ codes: [], text: "No change is asked of the partner: its client retried as the spec allows. Trace the faults with the error_id and trace_id pairs above in the dealer's own logs." });
  return out;
}
