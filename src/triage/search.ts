import type { ErrorEvent } from '../protocol/error-event.js';
import { compileQuery, type CompiledQuery, type QueryPseudonymizer } from './compile.js';
import { parseQuery, type Query } from './query.js';
import { ERROR_EVENT_SELECT, toErrorEvent, type Db, type ErrorEventRecord } from './rows.js';
import type { TimeWindow } from './time.js';

/** Options shared by the query-driven triage functions. */
export interface QueryOptions {
  /** Reference time for durations in the query (`since:1h`), epoch ms. Default `Date.now()`. */
  now?: number;
  /** Current key's pseudonymiser for raw `client:`/`subject:` values; null/absent when no key. */
  pseudonymizer?: QueryPseudonymizer | null;
  /** Include `aap-triage probe` calls (`--include-probe`); default: buyer calls only unless the query has `origin:` (docs/probe.md). */
  includeProbe?: boolean;
}

/** Options of `searchErrors`. */
export interface SearchOptions extends QueryOptions {
  /** Page size, rows. Default 50; at most 10 000. */
  limit?: number;
  /** Rows to skip (newest first). Default 0. */
  offset?: number;
  /** Skip the `COUNT(*)` (total is then -1); for callers that only page. Default false. */
  skipTotal?: boolean;
  /** Order of the rows. Default newest first (`{ by: 'time', descending: true }`). */
  sort?: ErrorSort;
}

/** Columns `searchErrors` can order by (the TUI's sortable columns). */
export type ErrorSortKey = 'time' | 'code' | 'retryable' | 'skill' | 'protocol' | 'client' | 'attempt';

/** An order of search results: by one column, then newest first among equals. */
export interface ErrorSort {
  readonly by: ErrorSortKey;
  /** Largest / latest / last in the alphabet first. */
  readonly descending: boolean;
}

/** The SQL column of each sort key: a fixed allow-list, so no caller text reaches ORDER BY. */
const SORT_COLUMN: Readonly<Record<ErrorSortKey, string>> = {
  time: 'occurred_at',
  code: 'code',
  retryable: 'retryable',
  skill: 'skill',
  protocol: 'protocol',
  client: 'client',
  attempt: 'attempt',
};

/** The ORDER BY of `sort`: its column, then time and id (newest first) so pages are stable. */
function orderBy(sort: ErrorSort | undefined): string {
  if (!sort || sort.by === 'time') return sort && !sort.descending ? 'occurred_at ASC, error_id ASC' : 'occurred_at DESC, error_id DESC';
  const column = SORT_COLUMN[sort.by];
  if (!column) throw new RangeError(`sort.by must be one of ${Object.keys(SORT_COLUMN).join(', ')}; got ${String(sort.by)}`);
  // NULLs first going up and last going down on both stores (SQLite's own order; PostgreSQL's is the reverse).
  return `${column} ${sort.descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}, occurred_at DESC, error_id DESC`;
}

/** A page of search results, newest first. */
export interface SearchResult {
  rows: ErrorEvent[];
  /** Rows matching in the whole window (all pages); -1 when `skipTotal` was set. */
  total: number;
  /** The effective window (the query's since:/until: override the one passed in). */
  window: TimeWindow;
  limit: number;
  offset: number;
}

/** Accepts a query as text or already parsed. Throws `QuerySyntaxError` for bad text. */
export function asQuery(query: Query | string | null | undefined): Query {
  if (query === null || query === undefined) return parseQuery('');
  return typeof query === 'string' ? parseQuery(query) : query;
}

const clampInt = (v: number | undefined, dflt: number, min: number, max: number): number =>
  v === undefined || !Number.isFinite(v) ? dflt : Math.min(max, Math.max(min, Math.trunc(v)));

/**
 * Errors matching `query` in `window`, newest first (`occurred_at DESC, error_id DESC`) unless
 * `options.sort` says otherwise, one page at a time, with the total count. Backs
 * `aap-triage search` and the TUI's Errors view. Throws `QuerySyntaxError` for a bad query,
 * `RangeError` for an unknown sort key.
 */
export async function searchErrors(db: Db, query: Query | string | null, window: TimeWindow, options: SearchOptions = {}): Promise<SearchResult> {
  const q = asQuery(query);
  const c = compileQuery(q, { now: options.now ?? Date.now(), window, pseudonymizer: options.pseudonymizer ?? null, includeProbe: options.includeProbe ?? false });
  const limit = clampInt(options.limit, 50, 1, 10_000);
  const offset = clampInt(options.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const rows = (
    await db.all<ErrorEventRecord>(`SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${c.where} ORDER BY ${orderBy(options.sort)} LIMIT ? OFFSET ?`, [
      ...c.params,
      limit,
      offset,
    ])
  ).map(toErrorEvent);
  const total = options.skipTotal
    ? -1
    : offset === 0 && rows.length < limit
      ? rows.length
      : await countMatching(db, c);
  return { rows, total, window: c.window, limit, offset };
}

/**
 * The rows `c` matches. Without probe rows it counts every origin and takes away the probe's
 * (the partial origin index holds only those): both counts can stay in an index, where checking
 * `origin IS NULL` would fetch every matching row (issue 31: `search` on PostgreSQL at 10 M rows).
 */
async function countMatching(db: Db, c: CompiledQuery): Promise<number> {
  const row =
    c.anyOrigin === null
      ? await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM error_events WHERE ${c.where}`, c.params)
      : await db.get<{ n: number }>(
          `SELECT (SELECT COUNT(*) FROM error_events WHERE ${c.anyOrigin}) - (SELECT COUNT(*) FROM error_events WHERE ${c.anyOrigin} AND origin IS NOT NULL) AS n`,
          [...c.params, ...c.params],
        );
  return row?.n ?? 0;
}

/** One bucket of `errorHistogram`. */
export interface HistogramBucket {
  /** Bucket start, epoch ms. */
  start: number;
  /** Errors with retryable = true. */
  retryable: number;
  /** Errors with retryable = false (terminal). */
  terminal: number;
  /** Errors whose envelope lost `retryable`. */
  unknown: number;
}

/** Errors per bucket over a window. */
export interface Histogram {
  /** Bucket width, ms (60 000 = per minute). */
  bucketMs: number;
  window: TimeWindow;
  /** Every bucket of the window in time order, empty ones included. */
  buckets: HistogramBucket[];
}

/**
 * Errors matching `query` per bucket (default one minute) over the window, split retryable /
 * terminal / unknown. Backs the TUI histogram and `search --histogram`. Bucket count is capped
 * at 10 000 by widening the bucket.
 */
export async function errorHistogram(
  db: Db,
  query: Query | string | null,
  window: TimeWindow,
  options: QueryOptions & { bucketMs?: number } = {},
): Promise<Histogram> {
  const q = asQuery(query);
  const c = compileQuery(q, { now: options.now ?? Date.now(), window, pseudonymizer: options.pseudonymizer ?? null, includeProbe: options.includeProbe ?? false });
  let bucketMs = Math.max(1000, Math.trunc(options.bucketMs ?? 60_000));
  const span = Math.max(0, c.window.until - c.window.since);
  while (span / bucketMs > 10_000) bucketMs *= 2;
  const first = Math.floor(c.window.since / bucketMs) * bucketMs;
  const rows = await db.all<{ b: number; r: number; t: number; u: number }>(
    // better-sqlite3 binds JS numbers as REAL, and `/` would then not floor; `%` works on integers.
    `SELECT occurred_at - (occurred_at % ?) AS b, SUM(CASE WHEN retryable = 1 THEN 1 ELSE 0 END) AS r,
            SUM(CASE WHEN retryable = 0 THEN 1 ELSE 0 END) AS t, SUM(CASE WHEN retryable IS NULL THEN 1 ELSE 0 END) AS u
       FROM error_events WHERE ${c.where} GROUP BY 1`,
    [bucketMs, ...c.params],
  );
  const byStart = new Map(rows.map((r) => [r.b, r]));
  const buckets: HistogramBucket[] = [];
  for (let s = first; s < c.window.until; s += bucketMs) {
    const r = byStart.get(s);
    buckets.push({ start: s, retryable: r?.r ?? 0, terminal: r?.t ?? 0, unknown: r?.u ?? 0 });
  }
  return { bucketMs, window: c.window, buckets };
}

/** Where `nextErrors` left off. */
export interface TailCursor {
  /** Time of the previous poll, epoch ms. */
  at: number;
  /** Ids already returned (or skipped as old) → their occurred_at, kept for `lookbackMs` before the last poll. */
  seen: Map<string, number>;
  /**
   * Set after a full page: the next call continues right after this row (keyset paging, in
   * `(occurred_at, error_id)` order), so a burst larger than a page is read page by page, never
   * skipped. Null once caught up.
   */
  after: { at: number; id: string } | null;
}

/** What one `nextErrors` call returns. */
export interface NextErrors {
  /** New rows, oldest first (at most `limit`). */
  rows: ErrorEvent[];
  cursor: TailCursor;
  /** More rows are waiting: call again at once with `cursor` (they are not skipped). */
  more: boolean;
}

/**
 * Rows matching `query` that landed since the previous poll, oldest first, and the next cursor.
 * Writers commit in batches, so a row may land with an `occurred_at` a little before the
 * previous poll; every poll re-reads from `lookbackMs` (default 10 000 ms) before the previous
 * poll and skips ids already returned. Rows stamped in the future (a writer's clock ahead of
 * ours) are returned once. At most `limit` rows (default 1000) per call; when more are waiting,
 * `more` is true and the next call with the returned cursor goes on from the last row returned
 * (issue 16: `tail` never skips). Backs `aap-triage tail` and the TUI's live refresh.
 */
export async function nextErrors(
  db: Db,
  query: Query | string | null,
  cursor: TailCursor,
  options: QueryOptions & { lookbackMs?: number; limit?: number } = {},
): Promise<NextErrors> {
  const q = asQuery(query);
  const now = options.now ?? Date.now();
  const lookback = options.lookbackMs ?? 10_000;
  const limit = clampInt(options.limit, 1000, 1, 100_000);
  const after = cursor.after;
  const from = after ? after.at : Math.min(cursor.at, now) - lookback;
  const c = compileQuery(q, { now, window: { since: from, until: Number.MAX_SAFE_INTEGER }, pseudonymizer: options.pseudonymizer ?? null, includeProbe: options.includeProbe ?? false });
  const found = (
    after
      ? await db.all<ErrorEventRecord>(
          `SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${c.where} AND (occurred_at > ? OR (occurred_at = ? AND error_id > ?)) ORDER BY occurred_at ASC, error_id ASC LIMIT ?`,
          [...c.params, after.at, after.at, after.id, limit + 1],
        )
      : await db.all<ErrorEventRecord>(`SELECT ${ERROR_EVENT_SELECT} FROM error_events WHERE ${c.where} ORDER BY occurred_at ASC, error_id ASC LIMIT ?`, [
          ...c.params,
          limit + cursor.seen.size + 1,
        ])
  );
  const unseen = found.map(toErrorEvent).filter((r) => !cursor.seen.has(r.error_id));
  const more = unseen.length > limit;
  const rows = more ? unseen.slice(0, limit) : unseen;
  const keepFrom = now - lookback;
  const seen = new Map<string, number>();
  for (const [id, at] of cursor.seen) if (at >= keepFrom) seen.set(id, at);
  for (const r of rows) if (r.occurred_at >= keepFrom) seen.set(r.error_id, r.occurred_at);
  const last = rows[rows.length - 1];
  return { rows, cursor: { at: more ? cursor.at : now, seen, after: more && last ? { at: last.occurred_at, id: last.error_id } : null }, more };
}

/** A cursor for polls from `at` (epoch ms) on; rows of the `lookbackMs` before it count as new. */
export function tailCursor(at: number): TailCursor {
  return { at, seen: new Map(), after: null };
}
