/**
 * One pino line per error (issue 3): level `warn`, or `error` for retryable server faults;
 * fields copied from an explicit allow-list (LOG_FIELDS), never a request value or message text.
 */
import type { Logger } from 'pino';
import type { ErrorEvent } from '../protocol/error-event.js';

/** Codes that are the server's own retryable faults, logged at `error`. */
const SERVER_FAULT_CODES: ReadonlySet<string> = new Set(['INTERNAL_ERROR', 'UPSTREAM_UNAVAILABLE', '-32603']);

/** Fixed message of the error line (the fields carry everything). */
export const ERROR_LOG_MESSAGE = 'json-rpc error sent';

/** True when the error is a retryable server fault (INTERNAL_ERROR, UPSTREAM_UNAVAILABLE, -32603). */
export function isServerFault(e: ErrorEvent): boolean {
  return SERVER_FAULT_CODES.has(e.code) || e.jsonrpc_code === -32603;
}

/** Writes the line for `e`. `skill`/`method` are the bounded names the span uses. */
export function logError(logger: Logger, e: ErrorEvent, skill: string | null, method: string): void {
  const fields = {
    error_id: e.error_id,
    trace_id: e.trace_id,
    span_id: e.span_id,
    code: e.code,
    retryable: e.retryable,
    skill,
    method,
    attempt: e.attempt,
    retry_flags: e.retry_flags,
  };
  if (isServerFault(e) && e.retryable !== false) logger.error(fields, ERROR_LOG_MESSAGE);
  else logger.warn(fields, ERROR_LOG_MESSAGE);
}
