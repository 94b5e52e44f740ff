import type { ErrorEvent } from '../protocol/error-event.js';
import { RETRY_WINDOW_MS } from '../protocol/index.js';
import type { CodeInfo } from '../protocol/types.js';
import { codeInfoFor } from './codes.js';
import { ERROR_EVENT_SELECT, prepared, toErrorEvent, type Db, type ErrorEventRecord } from './rows.js';

/** One error with what an operator needs next to it (the Detail view, `aap-triage show`). */
export interface ErrorDetail {
  error: ErrorEvent;
  /** The code's table entry (meaning, recommended client action, spec section); null when unknown. */
  codeInfo: CodeInfo | null;
  /** Other errors with the same trace_id or upstream_trace_id, oldest first. */
  sameTrace: ErrorEvent[];
  /**
   * Other errors of the same client with the same call fingerprint nearest this one in time —
   * up to half the limit before it and the rest after it, oldest first (the retry chain around
   * the selected attempt).
   */
  sameFingerprint: ErrorEvent[];
  /** How many other errors of the same client and fingerprint lie within ±`fingerprintWindowMs`: the true count, not the rows shown. */
  sameFingerprintCount: number;
  /** The span `sameFingerprintCount` covers on either side, ms. */
  fingerprintWindowMs: number;
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
export function getError(db: Db, errorId: string, options: DetailOptions = {}): ErrorDetail | undefined {
  const rec = prepared(db, `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE error_id = ?`).get(errorId) as ErrorEventRecord | undefined;
  if (!rec) return undefined;
  const error = toErrorEvent(rec);
  const limit = options.relatedLimit ?? 20;
  const span = options.fingerprintWindowMs ?? RETRY_WINDOW_MS;
  const traceIds = [error.trace_id, error.upstream_trace_id].filter((t): t is string => t !== null);
  const sameTrace = traceIds.length ? getTrace(db, traceIds, limit + 1).filter((r) => r.error_id !== errorId).slice(0, limit) : [];
  let sameFingerprint: ErrorEvent[] = [];
  let sameFingerprintCount = 0;
  if (error.fingerprint !== null) {
    // Same client (an index range on client, occurred_at), same fingerprint, within ±span.
    const match = `client IS ? AND occurred_at >= ? AND occurred_at <= ? AND fingerprint = ? AND error_id <> ?`;
    const args = [error.client, error.occurred_at - span, error.occurred_at + span, error.fingerprint, errorId] as const;
    const here = [error.occurred_at, error.occurred_at, errorId] as const;
    const before = (
      prepared(
        db,
        `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${match} AND (occurred_at < ? OR (occurred_at = ? AND error_id < ?)) ORDER BY occurred_at DESC, error_id DESC LIMIT ?`,
      ).all(...args, ...here, limit) as ErrorEventRecord[]
    ).map(toErrorEvent);
    const after = (
      prepared(
        db,
        `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${match} AND (occurred_at > ? OR (occurred_at = ? AND error_id > ?)) ORDER BY occurred_at, error_id LIMIT ?`,
      ).all(...args, ...here, limit) as ErrorEventRecord[]
    ).map(toErrorEvent);
    // Half the rows on each side; a side with fewer leaves its share to the other.
    const nBefore = Math.min(before.length, Math.max(Math.ceil(limit / 2), limit - after.length));
    const nAfter = Math.min(after.length, limit - nBefore);
    sameFingerprint = [...before.slice(0, nBefore).reverse(), ...after.slice(0, nAfter)];
    sameFingerprintCount =
      before.length < limit && after.length < limit
        ? before.length + after.length
        : (prepared(db, `SELECT COUNT(*) FROM error_events WHERE ${match}`).pluck().get(...args) as number);
  }
  return {
    error,
    codeInfo: codeInfoFor(error.protocol, error.code) ?? null,
    sameTrace,
    sameFingerprint,
    sameFingerprintCount,
    fingerprintWindowMs: span,
  };
}

/**
 * Every error whose `trace_id` or `upstream_trace_id` is one of `traceIds`, oldest first
 * (`aap-triage trace`). At most `limit` rows (default 1000).
 */
export function getTrace(db: Db, traceIds: string | readonly string[], limit = 1000): ErrorEvent[] {
  const ids = typeof traceIds === 'string' ? [traceIds] : [...new Set(traceIds)];
  if (ids.length === 0) return [];
  const p = ids.map(() => '?').join(',');
  // UNION (not OR) so each side uses its own partial index.
  const sql = `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE trace_id IN (${p})
               UNION SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE upstream_trace_id IN (${p})
               ORDER BY occurred_at, error_id LIMIT ?`;
  return (prepared(db, sql).all(...ids, ...ids, limit) as ErrorEventRecord[]).map(toErrorEvent);
}
