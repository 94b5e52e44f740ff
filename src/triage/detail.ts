import type { ErrorEvent } from '../protocol/error-event.js';
import { RETRY_WINDOW_MS } from '../protocol/index.js';
import type { CodeInfo } from '../protocol/types.js';
import { codeInfoFor } from './codes.js';
import { ERROR_EVENT_SELECT, toErrorEvent, type Db, type ErrorEventRecord } from './rows.js';

/** One error with what an operator needs next to it (the Detail view, `aap-triage show`). */
export interface ErrorDetail {
  error: ErrorEvent;
  /** The code's table entry (meaning, recommended client action, spec section); null when unknown. */
  codeInfo: CodeInfo | null;
  /** Other errors with the same trace_id or upstream_trace_id, oldest first. */
  sameTrace: ErrorEvent[];
  /** Other errors of the same client with the same call fingerprint near this one, oldest first (the retry chain). */
  sameFingerprint: ErrorEvent[];
}

/** Options of `getError`. */
export interface DetailOptions {
  /** Most related rows returned per kind. Default 20. */
  relatedLimit?: number;
  /**
   * How far either side of the error to look for the same fingerprint, ms. Default `RETRY_WINDOW_MS`
   * (600 000, 10 min): the retry window of DESIGN §6, within which a repeat of a call counts as a retry.
   */
  fingerprintWindowMs?: number;
}

/**
 * One error by `error_id` with its code info and related rows; undefined when no such id.
 * The fingerprint lookup is bounded to the same client and ±`fingerprintWindowMs` so it stays an
 * index range scan on large stores (retries of one call come from one client, DESIGN §6).
 */
export async function getError(db: Db, errorId: string, options: DetailOptions = {}): Promise<ErrorDetail | undefined> {
  const rec = await db.get<ErrorEventRecord>(`SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE error_id = ?`, [errorId]);
  if (!rec) return undefined;
  const error = toErrorEvent(rec);
  const limit = options.relatedLimit ?? 20;
  const span = options.fingerprintWindowMs ?? RETRY_WINDOW_MS;
  const traceIds = [error.trace_id, error.upstream_trace_id].filter((t): t is string => t !== null);
  const sameTrace = traceIds.length ? (await getTrace(db, traceIds, limit + 1)).filter((r) => r.error_id !== errorId).slice(0, limit) : [];
  let sameFingerprint: ErrorEvent[] = [];
  if (error.fingerprint !== null) {
    const client = error.client === null ? 'client IS NULL' : 'client = ?';
    const sql = `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${client} AND occurred_at >= ? AND occurred_at <= ? AND fingerprint = ? AND error_id <> ? ORDER BY occurred_at, error_id LIMIT ?`;
    const params = [error.occurred_at - span, error.occurred_at + span, error.fingerprint, errorId, limit];
    sameFingerprint = (await db.all<ErrorEventRecord>(sql, error.client === null ? params : [error.client, ...params])).map(toErrorEvent);
  }
  return { error, codeInfo: codeInfoFor(error.protocol, error.code) ?? null, sameTrace, sameFingerprint };
}

/**
 * Every error whose `trace_id` or `upstream_trace_id` is one of `traceIds`, oldest first
 * (`aap-triage trace`). At most `limit` rows (default 1000).
 */
export async function getTrace(db: Db, traceIds: string | readonly string[], limit = 1000): Promise<ErrorEvent[]> {
  const ids = typeof traceIds === 'string' ? [traceIds] : [...new Set(traceIds)];
  if (ids.length === 0) return [];
  const p = ids.map(() => '?').join(',');
  // UNION (not OR) so each side uses its own partial index.
  const sql = `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE trace_id IN (${p})
               UNION SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE upstream_trace_id IN (${p})
               ORDER BY occurred_at, error_id LIMIT ?`;
  return (await db.all<ErrorEventRecord>(sql, [...ids, ...ids, limit])).map(toErrorEvent);
}
