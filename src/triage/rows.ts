import type { ErrorEvent, RetryFlag, Violation } from '../protocol/error-event.js';
import { RETRY_FLAGS } from '../protocol/error-event.js';
import { ERROR_EVENT_COLUMNS } from '../audit/schema.js';
import type { AuditReader } from '../audit/store.js';
import { parseJsonArray } from '../audit/json-column.js';

/** The `error_events` row as the store returns it (retryable 1/0/NULL, JSON arrays as TEXT). */
export type ErrorEventRecord = Omit<ErrorEvent, 'retryable' | 'retry_flags' | 'violations' | 'conformance'> & {
  retryable: number | null;
  retry_flags: string;
  violations: string;
  conformance: string;
};

/** `SELECT` list of every `error_events` column, in table order. */
export const ERROR_EVENT_SELECT = ERROR_EVENT_COLUMNS.join(', ');

/** Converts a stored row to an `ErrorEvent`: retryable to boolean/null, JSON columns to arrays. */
export function toErrorEvent(r: ErrorEventRecord): ErrorEvent {
  return {
    ...r,
    retryable: r.retryable === null || r.retryable === undefined ? null : r.retryable !== 0,
    retry_flags: parseJsonArray<RetryFlag>(r.retry_flags),
    violations: parseJsonArray<Violation>(r.violations),
    conformance: parseJsonArray<string>(r.conformance),
  };
}

/**
 * The audit store a triage function reads: SQLite or PostgreSQL behind one Promise-returning
 * interface (`openStoreReader`); triage never knows which. Only portable SQL is sent to it.
 */
export type Db = AuditReader;

/** Escapes `\\`, `%` and `_` for `LIKE ? ESCAPE '\\'` and wraps the value in `%…%`. */
export const likeContains = (v: string): string => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * SELECT-list terms `flag_0 … flag_n` counting rows per retry flag (in `RETRY_FLAGS` order),
 * with {@link FLAG_COUNT_PARAMS} bound first. Flags are a closed set of identifiers stored as a
 * JSON array of strings, so `LIKE '%"no_backoff"%'` is an exact element match on both engines.
 */
export const FLAG_COUNT_SELECT = RETRY_FLAGS.map((_, i) => `SUM(CASE WHEN retry_flags LIKE ? ESCAPE '\\' THEN 1 ELSE 0 END) AS flag_${i}`).join(', ');
/** The parameters of {@link FLAG_COUNT_SELECT}. */
export const FLAG_COUNT_PARAMS: readonly string[] = RETRY_FLAGS.map((f) => likeContains(JSON.stringify(f)));

/** The per-flag counts of a row selected with {@link FLAG_COUNT_SELECT} (NULL sums as 0). */
export function flagCounts(row: Record<string, unknown>): [RetryFlag, number][] {
  return RETRY_FLAGS.map((f, i) => [f, Number(row[`flag_${i}`] ?? 0)]);
}
