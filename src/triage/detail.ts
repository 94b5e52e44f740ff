import type { ErrorEvent } from '../protocol/error-event.js';
import { RETRY_WINDOW_MS } from '../protocol/index.js';
import { errorIdTime } from '../protocol/error-id.js';
import type { CodeInfo } from '../protocol/types.js';
import { codeInfoFor } from './codes.js';
import { ERROR_EVENT_SELECT, toErrorEvent, type Db, type ErrorEventRecord } from './rows.js';
import type { TimeWindow } from './time.js';

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

/**
 * How far from the time in its id an error's row is looked for first, ms (1 h): the id is minted
 * while the answer is built, `occurred_at` is taken on the same clock around then.
 */
export const ID_TIME_SLACK_MS = 3_600_000;

/**
 * How far either side of an error `show` looks for errors of the same trace, ms (1 h). A trace is
 * one request and its retries, minutes long; the bound lets PostgreSQL read the one or two day
 * partitions around the error instead of probing both trace indexes of every partition (issue 31:
 * 5–18 ms of a 9 ms `show` at 1 M rows). `aap-triage trace` itself has no bound.
 */
export const SAME_TRACE_WINDOW_MS = 3_600_000;

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
  // A time-ordered id carries its creation time: looking only near it lets PostgreSQL read one or
  // two day partitions instead of probing every partition's key (issue 31). An id minted
  // elsewhere, or a row whose time is far from its id's, is found by the plain lookup.
  const at = errorIdTime(errorId);
  const near =
    at === null
      ? undefined
      : await db.get<ErrorEventRecord>(
          `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE error_id = ? AND occurred_at >= ? AND occurred_at < ?`,
          [errorId, at - ID_TIME_SLACK_MS, at + ID_TIME_SLACK_MS],
        );
  const rec = near ?? (await db.get<ErrorEventRecord>(`SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE error_id = ?`, [errorId]));
  if (!rec) return undefined;
  const error = toErrorEvent(rec);
  const limit = options.relatedLimit ?? 20;
  const span = options.fingerprintWindowMs ?? RETRY_WINDOW_MS;
  // The same trace and the whole retry window in one statement, each a tagged part with its own
  // index range: one round trip and one planning (issue 31: planning, not reading, was most of
  // PostgreSQL's `show`). Each part reads its range up to a cap, unordered: below the cap that is
  // every row of the range, ordered here; at the cap an ordered read follows (a trace or a retry
  // chain is a handful of rows). Without ORDER BY … LIMIT the planner weighs no walk of a time
  // index in order, which it took for some values and which cost it time to weigh.
  const parts: string[] = [];
  const params: (string | number)[] = [];
  const traceIds = [error.trace_id, error.upstream_trace_id].filter((t): t is string => t !== null);
  const traceWindow = { since: error.occurred_at - SAME_TRACE_WINDOW_MS, until: error.occurred_at + SAME_TRACE_WINDOW_MS + 1 };
  // The error itself, `limit` others and one more.
  const traceCap = limit + 2;
  if (traceIds.length) {
    const trace = traceQuery(traceIds, traceCap, traceWindow, false);
    parts.push(`SELECT 0 AS part, t.* FROM (${trace.sql}) t`);
    params.push(...trace.params);
  }
  // Same client (an index range on client, occurred_at), same fingerprint, within ±span.
  const match = `${error.client === null ? 'client IS NULL' : 'client = ?'} AND occurred_at >= ? AND occurred_at <= ? AND fingerprint = ? AND error_id <> ?`;
  const args = [...(error.client === null ? [] : [error.client]), error.occurred_at - span, error.occurred_at + span, error.fingerprint ?? '', errorId];
  // One more than both sides can show.
  const windowCap = 2 * limit + 1;
  if (error.fingerprint !== null) {
    parts.push(`SELECT 1 AS part, w.* FROM (SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${match} LIMIT ?) w`);
    params.push(...args, windowCap);
  }
  const related = parts.length ? await db.all<ErrorEventRecord & { part: number }>(parts.join(' UNION ALL '), params) : [];
  const of = (part: number) =>
    related
      .filter((r) => r.part === part)
      .map(({ part: _, ...row }) => toErrorEvent(row))
      .sort(byTime);
  let trace = of(0);
  if (trace.length === traceCap) trace = await getTrace(db, traceIds, limit + 1, traceWindow);
  const sameTrace = trace.filter((r) => r.error_id !== errorId).slice(0, limit);
  let sameFingerprint: ErrorEvent[] = [];
  let sameFingerprintCount = 0;
  if (error.fingerprint !== null) {
    let chain = of(1);
    sameFingerprintCount = chain.length;
    if (chain.length === windowCap) {
      // A storm: more rows in the window than both sides show. The nearest on each side, and the count.
      const here = [error.occurred_at, error.occurred_at, errorId];
      const rows = await db.all<ErrorEventRecord>(
        `SELECT b.* FROM (SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${match} AND (occurred_at < ? OR (occurred_at = ? AND error_id < ?))
           ORDER BY occurred_at DESC, error_id DESC LIMIT ?) b
         UNION ALL SELECT a.* FROM (SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${match} AND (occurred_at > ? OR (occurred_at = ? AND error_id > ?))
           ORDER BY occurred_at, error_id LIMIT ?) a`,
        [...args, ...here, limit, ...args, ...here, limit],
      );
      chain = rows.map(toErrorEvent).sort(byTime);
      sameFingerprintCount = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM error_events WHERE ${match}`, args))?.n ?? 0;
    }
    sameFingerprint = nearest(chain, error, limit);
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
 * Oldest first, ties by `error_id`: the stores' own order, since stored ids are ASCII
 * (SAFE_ERROR_ID) and JavaScript's `<` then orders them as SQLite's BINARY and PostgreSQL's
 * `COLLATE "C"` do.
 */
const byTime = (x: ErrorEvent, y: ErrorEvent): number => x.occurred_at - y.occurred_at || (x.error_id < y.error_id ? -1 : x.error_id > y.error_id ? 1 : 0);

/**
 * Up to `limit` of `rows` (oldest first, `error` not among them) nearest `error`, oldest first:
 * half before it and half after, a side with fewer leaving its share to the other.
 */
function nearest(rows: readonly ErrorEvent[], error: ErrorEvent, limit: number): ErrorEvent[] {
  const before = rows.filter((r) => byTime(r, error) < 0);
  const after = rows.filter((r) => byTime(r, error) > 0);
  const nBefore = Math.min(before.length, Math.max(Math.ceil(limit / 2), limit - after.length));
  const nAfter = Math.min(after.length, limit - nBefore);
  return [...before.slice(before.length - nBefore), ...after.slice(0, nAfter)];
}

/**
 * Every error whose `trace_id` or `upstream_trace_id` is one of `traceIds`, oldest first
 * (`aap-triage trace`). At most `limit` rows (default 1000); only those in `within` when given
 * (epoch ms, [since, until)).
 */
export async function getTrace(db: Db, traceIds: string | readonly string[], limit = 1000, within?: TimeWindow): Promise<ErrorEvent[]> {
  const ids = typeof traceIds === 'string' ? [traceIds] : [...new Set(traceIds)];
  if (ids.length === 0) return [];
  const q = traceQuery(ids, limit, within);
  return (await db.all<ErrorEventRecord>(q.sql, q.params)).map(toErrorEvent);
}

/**
 * {@link getTrace}'s statement for `ids` (at least one), portable (`?` placeholders): the oldest
 * `limit` rows, or when not `ordered` any `limit` of them.
 */
function traceQuery(ids: readonly string[], limit: number, within?: TimeWindow, ordered = true): { sql: string; params: (string | number)[] } {
  const unique = [...new Set(ids)];
  const p = unique.map(() => '?').join(',');
  const time = within ? ' AND occurred_at >= ? AND occurred_at < ?' : '';
  const times = within ? [within.since, within.until] : [];
  // One scan with OR: both stores read each side from its own partial index (PostgreSQL a
  // BitmapOr, SQLite a multi-index OR) and a row on both sides comes once, without UNION's
  // sort of whole rows to drop duplicates (issue 31: most of PostgreSQL's `trace`).
  const sql = `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE (trace_id IN (${p}) OR upstream_trace_id IN (${p}))${time}
               ${ordered ? 'ORDER BY occurred_at, error_id ' : ''}LIMIT ?`;
  return { sql, params: [...unique, ...unique, ...times, limit] };
}
