/**
 * The record of one attempt of a call and why the retry loop stopped: kept on the final
 * `DealerAgentError` and read by the incident report. A leaf (imports nothing of ours), so the
 * error, the options and the report can all name it without an import circle.
 */

/** Why the retry loop stopped instead of retrying. */
export type StopReason =
  | 'not-retryable' // the dealer said retryable=false
  | 'retryable-unknown' // the envelope lost retryable: never guessed (spec: do not infer from the exception class)
  | 'max-attempts'
  | 'budget-exhausted'
  | 'retry-after-too-long'
  | 'deadline'
  | 'transport-error' // no dealer answer and retryTransportErrors is off
  | 'aborted';

/** One attempt of a call, as kept on the final error for the operator. */
export interface AttemptRecord {
  /** 1-based attempt number (the value sent in the `aap-attempt` header). */
  attempt: number;
  /** When the attempt started, epoch ms. */
  startedAt: number;
  /** Domain code (AAP / DMC-12 code, A2A reason, JSON-RPC code) or `TRANSPORT_ERROR`. */
  code: string;
  /** `error_id` the dealer sent; null when none. */
  errorId: string | null;
  /** W3C trace id from `traceresponse`, else the DMC-12 `trc_…` id; null when neither came. */
  traceId: string | null;
  /** `retry_after_ms` the dealer asked for, ms; null when none. */
  retryAfterMs: number | null;
  /** Wait before the next attempt, ms; null on the last attempt. */
  delayMs: number | null;
}

/** What an error contributes to its own attempt record (a `DealerAgentError` has all of it). */
export type AttemptFields = Pick<AttemptRecord, 'code' | 'errorId' | 'traceId' | 'retryAfterMs'>;

/** The one attempt an error answered, as a record: its code, ids and retry hint; no wait after it (`delayMs` null). */
export function attemptRecordOf(error: AttemptFields, attempt: number, startedAt: number): AttemptRecord {
  return { attempt, startedAt, code: error.code, errorId: error.errorId, traceId: error.traceId, retryAfterMs: error.retryAfterMs, delayMs: null };
}
