import type { ErrorProtocol } from '../protocol/error-event.js';
import { A2A_ERRORS, AAP_CODES, DMC12_CODES, DMC12_JSONRPC_ERRORS, JSONRPC_ERRORS, lookupCode, TASK_FAILED_INFO, TASK_REJECTED_INFO } from '../protocol/index.js';
import type { CodeInfo } from '../protocol/types.js';

/**
 * The code-table entry for a stored (protocol, code) pair. A numeric code falls back to the
 * JSON-RPC table, and for AAP (a profile of A2A) to the A2A table. Not for DMC-12: its -32001 is
 * an auth failure (spec/dmc12-errors.txt "Auth failures are different"), not A2A's TaskNotFound,
 * so an unknown DMC-12 numeric code stays unknown rather than borrowing a wrong meaning.
 */
export function codeInfoFor(protocol: string, code: string): CodeInfo | undefined {
  const families: ErrorProtocol[] = ['aap', 'a2a', 'dmc12', 'jsonrpc'];
  const own = families.includes(protocol as ErrorProtocol) ? lookupCode(protocol as ErrorProtocol, code) : undefined;
  if (own) return own;
  // AAP is a profile of A2A: an A2A reason (EXTENSION_SUPPORT_REQUIRED) stored under aap is A2A's.
  if (protocol === 'aap' && !/^-\d+$/.test(code)) return lookupCode('a2a', code);
  if (/^-\d+$/.test(code)) return lookupCode('jsonrpc', code) ?? (protocol === 'aap' ? lookupCode('a2a', code) : undefined);
  return undefined;
}

/**
 * Length of the longest code in the code tables (AAP, A2A reasons, JSON-RPC, DMC-12), in
 * characters (codes are ASCII, so also display cells): a column this wide never cuts a code.
 */
export const LONGEST_CODE_LENGTH: number = Math.max(
  ...[AAP_CODES, DMC12_CODES, JSONRPC_ERRORS, DMC12_JSONRPC_ERRORS].flatMap((t) => Object.keys(t)).map((c) => c.length),
  ...Object.values(A2A_ERRORS).map((e) => e.code.length),
  TASK_FAILED_INFO.code.length,
  TASK_REJECTED_INFO.code.length,
);

/**
 * Whether a stored error is a retryable dealer fault, one a client may retry under the backoff
 * policy (DESIGN §6: INTERNAL_ERROR, UPSTREAM_UNAVAILABLE, -32603, RATE_LIMITED): `retryable` as
 * the wire said it; when the envelope lost it (null), the code table's default; an HTTP 5xx
 * answer without a JSON-RPC reply (`HTTP_5xx`) counts as a fault.
 */
export function retryableFault(protocol: string, code: string, retryable: boolean | number | null): boolean {
  if (retryable === true || retryable === 1) return true;
  if (retryable === false || retryable === 0) return false;
  if (/^HTTP_5\d\d$/.test(code)) return true;
  return codeInfoFor(protocol, code)?.retryable === true;
}

/**
 * The retryable dealer faults among `codes` (`retryableFault`): what a dealer-side episode is named
 * by (docs/storms.md). All of `codes` when none is one, so nothing is hidden.
 */
export function causingFaults<T extends { protocol: string; code: string; retryable: boolean | null }>(codes: readonly T[]): T[] {
  const faults = codes.filter((c) => retryableFault(c.protocol, c.code, c.retryable));
  return faults.length ? faults : [...codes];
}
