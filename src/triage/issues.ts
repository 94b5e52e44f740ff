/**
 * Issues (issue #17 "Issues"): errors grouped by their issue key (src/triage/issue-key.ts), each
 * with its count, clients affected, first and last seen, a trend over the window, retryable and
 * a state (new / regressed / ongoing). Backs `aap-triage issues` and the TUI's Issues view.
 *
 * Where the numbers come from: for a window longer than `rawWindowMs` and no query, the whole
 * hours inside the window are read from `issue_hours` (kept by the writer per batch: one row per
 * hour and issue, its clients as ids) and only the partial hours at either edge from
 * `error_events`, so counts are exact and 24 h of a 10 M-row store reads ~5 000 summary rows
 * (bench/issues.bench.mjs). A query
 * (anything a search accepts) or a short window reads `error_events` directly.
 */
import type { Violation } from '../protocol/error-event.js';
import { ISSUE_HOUR_MS } from '../audit/schema.js';
import { parseJsonArray } from '../audit/json-column.js';
import { BUYER_CALLS_SQL, compileQuery } from './compile.js';
import { issueTitle } from './issue-key.js';
import type { IssueStateRow } from '../audit/issue-states.js';
import { issueReleaseFacts, loadIssueStates, sortVersions, type IssueStatus } from './releases.js';
import type { Db } from './rows.js';
import { asQuery, type QueryOptions } from './search.js';
import type { Query } from './query.js';
import { ISSUE_SORTS, type IssueSort } from './issue-sorts.js';
import type { TimeWindow } from './time.js';

const HOUR = ISSUE_HOUR_MS;

/** Defaults of {@link listIssues}. */
export const ISSUE_DEFAULTS = Object.freeze({
  /**
   * Quiet period after which an issue that shows up again is `regressed`, ms (6 h): longer than
   * a retry storm or a deploy blip (minutes), shorter than a day, so "it stopped overnight and is
   * back" shows.
   */
  quietMs: 6 * HOUR,
  /** Trend buckets aimed at over the window (the bucket width is rounded up to a minute, or an hour on the summary path). */
  buckets: 24,
  /** Windows up to this long (ms, 6 h) are read from `error_events` directly, in finer buckets. */
  rawWindowMs: 6 * HOUR,
  /** Issues returned at most. */
  limit: 1000,
});


/**
 * - `new`: first seen (in the whole store) inside the window;
 * - `regressed`: seen before, then quiet for at least `quietMs`, then seen again inside the window;
 *   or resolved by the operator and regressed by release (`status` `regressed`, releases.ts);
 * - `ongoing`: anything else.
 */
export type IssueState = 'new' | 'regressed' | 'ongoing';

/** One issue over the window. Field names are the `--json` keys (snake_case). Times are epoch ms. */
export interface Issue {
  /** The issue key (16 hex digits); `issue:<key>` in a query lists its errors. */
  key: string;
  /** One line for lists: `CODE · skill-or-method · service (protocol)`. */
  title: string;
  service: string;
  protocol: string;
  rpc_method: string;
  skill: string | null;
  code: string;
  /** The violations shape of the key (pointers and keywords of a sample row). */
  violations: Violation[];
  /** The conformance rule ids of the key. */
  conformance: string[];
  /** Errors in the window. */
  count: number;
  /** Distinct client pseudonyms among them (calls without a credential not counted). */
  clients: number;
  /** True when every error of the window said retryable=true, false when every one said false, else null. */
  retryable: boolean | null;
  /** Errors of the window per `retryable` value. */
  retryable_split: { true: number; false: number; unknown: number };
  /** First and last error inside the window. */
  first_seen: number;
  last_seen: number;
  /** First error of this issue in the whole store. */
  first_seen_ever: number;
  state: IssueState;
  /** For `regressed`: when it came back (the first error after the quiet period, or the first that regressed its resolution); else null. */
  regressed_at: number | null;
  /**
   * The operator's state as it stands (issue 29, src/triage/releases.ts): `open`, `resolved`,
   * `muted` (still counted, never alerted) or `regressed` (resolved, then a row of a version at or
   * past the resolution arrived; `state` is then `regressed` too).
   */
  status: IssueStatus;
  /** The stored operator state (who set what, when), or null when none was ever set. */
  operator_state: IssueStateRow | null;
  /** For status `regressed`: the version of the first row that regressed it (null: a row without a version after a "resolve now"). */
  regressed_in: string | null;
  /** For status `muted` with a count: errors since the mute, counted up to its `mute_count`; else null. */
  muted_count: number | null;
  /** `service_version` of the issue's first error in the whole store, and of its newest error in the window (null: none named). */
  first_seen_version: string | null;
  last_seen_version: string | null;
  /** The versions the issue's errors of the window came from, oldest release first (null, no version, last), with their counts. */
  versions: { version: string | null; count: number }[];
  /** Errors per bucket; bucket i starts at `trend_start + i × bucket_ms` of the list. */
  trend: number[];
  /** The newest error of the issue in the window. */
  last_error_id: string;
  last_trace_id: string | null;
}

/** The answer of {@link listIssues}. */
export interface IssueList {
  /** The effective window (a query's since:/until: override the one passed in). */
  window: TimeWindow;
  sort: IssueSort;
  /** Start of the first trend bucket (at or before `window.since`), and the bucket width, ms. */
  trend_start: number;
  bucket_ms: number;
  /** The quiet period behind `regressed`, ms. */
  quiet_ms: number;
  /** Issues in the window (all, before `limit`). */
  total: number;
  /** Where the counts came from: `summary` (issue_hours + edges) or `rows` (error_events). */
  source: 'summary' | 'rows';
  issues: Issue[];
}

/** Options of {@link listIssues}. */
export interface IssueOptions extends QueryOptions {
  /** The window; a query's since:/until: override it. */
  window: TimeWindow;
  /** Default `count`. */
  sort?: IssueSort;
  /** Restrict to errors matching a query (any search query; reads error_events). */
  query?: Query | string | null;
  /** Default {@link ISSUE_DEFAULTS}.limit. */
  limit?: number;
  /** Default {@link ISSUE_DEFAULTS}.quietMs. */
  quietMs?: number;
  /** Default {@link ISSUE_DEFAULTS}.buckets. */
  buckets?: number;
}

interface Cell {
  k: string;
  b: number;
  n: number;
  r: number;
  f: number;
  lo: number;
  hi: number;
}

interface Acc {
  key: string;
  count: number;
  r: number;
  f: number;
  lo: number;
  hi: number;
  /** Non-empty buckets in time order: [bucket start, first, last, errors]. */
  spans: [number, number, number, number][];
}

const ceilTo = (v: number, step: number): number => Math.ceil(v / step) * step;

/** Bucket plan: width and first bucket start for a window. */
function plan(window: TimeWindow, summary: boolean, buckets: number): { bucketMs: number; start: number; count: number } {
  const span = Math.max(1, window.until - window.since);
  const unit = summary ? HOUR : 60_000;
  // Whole ms per bucket first: `--since 24h` ends at now + 1 ms, and 24 h + 1 ms over 24 buckets
  // must stay 1 h, not round up to 2 h.
  const bucketMs = Math.max(unit, ceilTo(Math.floor(span / Math.max(1, buckets)), unit));
  // Summary buckets line up with the store's hours; finer ones start at the window.
  const start = summary ? Math.floor(window.since / bucketMs) * bucketMs : window.since;
  // The last ms is `until` itself on `--since` windows (now + 1): it opens no bucket of its own.
  return { bucketMs, start, count: Math.max(1, Math.ceil((window.until - 1 - start) / bucketMs)) };
}

/** A number as text in both stores' SQL (their `||` joins text). */
const txt = (sql: string): string => `CAST(${sql} AS TEXT)`;

/**
 * One cell of the summary as text, "t n r f lo hi" (hour or edge start, errors, retryable,
 * terminal, first and last time; epoch ms), from the SQL of each field.
 */
const cellText = (...fields: string[]): string => fields.map(txt).join(" || ' ' || ");

/**
 * One partial hour at a window's edge, grouped per issue from the rows (portable SQL: both
 * stores run it; `ids` is the dialect's list aggregate), its clients as the ids the summary lists.
 */
const edgeCells = (ids: string): string => `SELECT e.issue_key AS k,
      ${cellText('min(e.occurred_at)', 'count(*)', 'SUM(CASE WHEN e.retryable = 1 THEN 1 ELSE 0 END)', 'SUM(CASE WHEN e.retryable = 0 THEN 1 ELSE 0 END)', 'min(e.occurred_at)', 'max(e.occurred_at)')} AS cell,
      ${ids} AS cs
   FROM error_events e LEFT JOIN issue_client_ids c ON c.client = e.client
  WHERE e.occurred_at >= ? AND e.occurred_at < ? AND e.issue_key IS NOT NULL GROUP BY e.issue_key`;

/** The whole hours of a summary read, [h0, h1) (epoch ms), between its partial edges. */
const wholeHours = (w: TimeWindow): [number, number] => [ceilTo(w.since, HOUR), Math.floor(w.until / HOUR) * HOUR];

/**
 * The window's cells and distinct clients per issue from the hourly summary; null when a stored
 * number is not an integer (the caller reads the rows instead).
 */
async function summaryCells(db: Db, w: TimeWindow, start: number, bucketMs: number): Promise<{ cells: Cell[]; clients: Map<string, number> } | null> {
  const [h0, h1] = wholeHours(w);
  const agg = (sql: string, sep: string) => (db.dialect === 'postgres' ? `string_agg(${sql}, '${sep}')` : `group_concat(${sql}, '${sep}')`);
  // Whole hours as stored, each partial hour at the edges from the rows (one range scan per edge:
  // an OR of the two ranges is a multi-index OR, measured ~40 % slower). One row per issue, its
  // cells and client ids as text: a day is ~20 000 hour × issue cells, and as rows their
  // objects and the garbage they leave cost more than the reading (issue 31, 10 M-row store).
  const rows = await db.all<{ k: string; cells: string; cs: string | null }>(
    `SELECT k, ${agg('cell', ' ')} AS cells, ${agg('cs', ',')} AS cs FROM (
       SELECT issue_key AS k, ${cellText('hour', 'errors', 'retryable', 'terminal', 'first_at', 'last_at')} AS cell, clients AS cs
         FROM issue_hours WHERE hour >= ? AND hour < ?
       UNION ALL ${edgeCells(agg(txt('c.id'), ','))}
       UNION ALL ${edgeCells(agg(txt('c.id'), ','))}) t
     GROUP BY k`,
    [h0, h1, w.since, h0, h1, w.until],
  );
  const cells: Cell[] = [];
  const lists = new Map<string, string>();
  const inBucket = new Map<number, Cell>();
  const v = [0, 0, 0, 0, 0, 0];
  for (const x of rows) {
    inBucket.clear();
    const text = x.cells;
    for (let i = 0, field = 0, num = 0, neg = false; i <= text.length; i++) {
      const ch = i < text.length ? text.charCodeAt(i) : 32;
      if (ch === 45) neg = true;
      else if (ch >= 48 && ch <= 57) num = num * 10 + ch - 48;
      // Anything but an integer (a REAL a foreign writer left, say): the rows answer instead.
      else if (ch !== 32) return null;
      else {
        v[field++] = neg ? -num : num;
        num = 0;
        neg = false;
        if (field < 6) continue;
        field = 0;
        const [t, n, r, f, lo, hi] = v as [number, number, number, number, number, number];
        const b = t - ((t - start) % bucketMs);
        const c = inBucket.get(b);
        if (c) {
          c.n += n;
          c.r += r;
          c.f += f;
          c.lo = Math.min(c.lo, lo);
          c.hi = Math.max(c.hi, hi);
        } else {
          const cell = { k: x.k, b, n, r, f, lo, hi };
          inBucket.set(b, cell);
          cells.push(cell);
        }
      }
    }
    if (x.cs) lists.set(x.k, x.cs);
  }
  return { cells, clients: countClientIds(lists) };
}

/** Client ids below this are marked in a typed array by {@link countClientIds} (4 MiB at most). */
const MARKS_MAX = 1 << 20;

/**
 * The number of distinct ids in each issue's comma-separated list of `issue_client_ids` ids.
 * A day of a busy store lists ~300 000 ids: they are read as integers, each marked with the
 * issue it was last counted for, rather than as strings in a Set per issue (issue 31).
 */
function countClientIds(lists: ReadonlyMap<string, string>): Map<string, number> {
  // The issue each id was last counted for: a typed array while ids are small (both writers
  // number clients densely), a Map past that.
  let marks = new Int32Array(8192);
  const far = new Map<number, number>();
  const out = new Map<string, number>();
  let issue = 0;
  for (const [key, text] of lists) {
    issue += 1;
    let n = 0;
    for (let i = 0, id = 0, digits = 0; i <= text.length; i++) {
      const ch = i < text.length ? text.charCodeAt(i) : 44;
      if (ch !== 44) {
        id = id * 10 + ch - 48;
        digits += 1;
        continue;
      }
      if (digits > 0) {
        if (id >= marks.length && id < MARKS_MAX) {
          const grown = new Int32Array(Math.min(MARKS_MAX, 2 ** Math.ceil(Math.log2(id + 1))));
          grown.set(marks);
          marks = grown;
        }
        if (id < marks.length ? marks[id] !== issue : far.get(id) !== issue) {
          if (id < marks.length) marks[id] = issue;
          else far.set(id, issue);
          n += 1;
        }
      }
      id = 0;
      digits = 0;
    }
    out.set(key, n);
  }
  return out;
}

async function rowCells(
  db: Db,
  where: string,
  params: readonly (string | number)[],
  start: number,
  bucketMs: number,
): Promise<{ cells: Cell[]; clients: Map<string, number> }> {
  const cells = await db.all<Cell>(
    `SELECT issue_key AS k, occurred_at - ((occurred_at - ?) % ?) AS b, count(*) AS n, SUM(CASE WHEN retryable = 1 THEN 1 ELSE 0 END) AS r,
            SUM(CASE WHEN retryable = 0 THEN 1 ELSE 0 END) AS f, min(occurred_at) AS lo, max(occurred_at) AS hi
       FROM error_events WHERE ${where} AND issue_key IS NOT NULL GROUP BY 1, 2`,
    [start, bucketMs, ...params],
  );
  const clients = await db.all<{ k: string; c: number }>(
    `SELECT issue_key AS k, count(DISTINCT client) AS c FROM error_events
      WHERE ${where} AND issue_key IS NOT NULL AND client IS NOT NULL AND client <> '' GROUP BY 1`,
    params,
  );
  return { cells, clients: new Map(clients.map((c) => [c.k, c.c])) };
}

function fold(cells: readonly Cell[]): Map<string, Acc> {
  const out = new Map<string, Acc>();
  for (const c of cells) {
    let a = out.get(c.k);
    if (!a) {
      a = { key: c.k, count: 0, r: 0, f: 0, lo: Number.POSITIVE_INFINITY, hi: Number.NEGATIVE_INFINITY, spans: [] };
      out.set(c.k, a);
    }
    a.count += c.n;
    a.r += c.r;
    a.f += c.f;
    a.lo = Math.min(a.lo, c.lo);
    a.hi = Math.max(a.hi, c.hi);
    a.spans.push([c.b, c.lo, c.hi, c.n]);
  }
  for (const a of out.values()) a.spans.sort((x, y) => x[0] - y[0]);
  return out;
}

const SORTERS: Record<IssueSort, (a: Acc, b: Acc) => number> = {
  count: (a, b) => b.count - a.count || b.hi - a.hi || (a.key < b.key ? -1 : 1),
  last_seen: (a, b) => b.hi - a.hi || b.count - a.count || (a.key < b.key ? -1 : 1),
  first_seen: (a, b) => b.lo - a.lo || b.count - a.count || (a.key < b.key ? -1 : 1),
};

interface SampleRow {
  error_id: string;
  service_version: string | null;
  trace_id: string | null;
  service: string;
  protocol: string;
  rpc_method: string;
  skill: string | null;
  code: string;
  violations: string;
  conformance: string;
}

/** What {@link listIssues} shows of one issue besides its counts. */
interface IssueFacts {
  /** The issue's latest row in the window. */
  sample: SampleRow;
  /** Its first row ever (time, version). */
  first: { v: number; ver: string | null } | undefined;
  /** Its last error before the window, epoch ms, or null. */
  before: number | null;
}

/** A JSON value as the store returns it: node-postgres parses `json`, better-sqlite3 gives its text. */
const jsonValue = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/**
 * The latest row in the window, the first row ever and the last time before the window of each
 * issue in `keys` (all present in the window), in one statement: three index probes per issue
 * on the issue index (error_events_issue_time), run by the store rather than one round trip each
 * (issue 31: ~900 issues in 24 h made ~3 600 statements, seconds on PostgreSQL). The keys go in
 * as one JSON parameter, so the text is the same for any number of issues. `buyers` is '' or
 * ` AND <condition>` on the row's own columns (the subqueries' rows, `x`).
 */
async function issueFacts(db: Db, keys: readonly string[], w: TimeWindow, buyers: string): Promise<Map<string, IssueFacts>> {
  const out = new Map<string, IssueFacts>();
  if (keys.length === 0) return out;
  const pg = db.dialect === 'postgres';
  const arr = pg ? 'json_build_array' : 'json_array';
  const keysFrom = pg ? 'SELECT value AS k FROM jsonb_array_elements_text(CAST(? AS jsonb))' : 'SELECT value AS k FROM json_each(?)';
  const rows = await db.all<{ k: string; s: unknown; f: unknown; b: number | null }>(
    `SELECT k.k AS k,
       (SELECT ${arr}(x.error_id, x.service_version, x.trace_id, x.service, x.protocol, x.rpc_method, x.skill, x.code, x.violations, x.conformance)
          FROM error_events x WHERE x.issue_key = k.k AND x.occurred_at >= ? AND x.occurred_at < ?${buyers} ORDER BY x.occurred_at DESC LIMIT 1) AS s,
       (SELECT ${arr}(x.occurred_at, x.service_version) FROM error_events x WHERE x.issue_key = k.k${buyers} ORDER BY x.occurred_at LIMIT 1) AS f,
       (SELECT max(x.occurred_at) FROM error_events x WHERE x.issue_key = k.k AND x.occurred_at < ?${buyers}) AS b
     FROM (${keysFrom}) k`,
    [w.since, w.until, w.since, JSON.stringify(keys)],
  );
  for (const r of rows) {
    const s = jsonValue<[string, string | null, string | null, string, string, string, string | null, string, string, string]>(r.s);
    const f = r.f === null ? null : jsonValue<[number, string | null]>(r.f);
    out.set(r.k, {
      sample: { error_id: s[0], service_version: s[1], trace_id: s[2], service: s[3], protocol: s[4], rpc_method: s[5], skill: s[6], code: s[7], violations: s[8], conformance: s[9] },
      first: f ? { v: f[0], ver: f[1] } : undefined,
      before: r.b ?? null,
    });
  }
  return out;
}

/**
 * The versions of each issue of `keys` in the window with their errors, in one statement: on the
 * summary path from `issue_hour_versions` and the edges' rows (the same numbers: the summary is
 * read only when every row of the window counts), else from the rows.
 */
async function windowVersions(
  db: Db,
  keys: readonly string[],
  w: TimeWindow,
  buyers: string,
  summary: boolean,
): Promise<Map<string, { version: string | null; count: number }[]>> {
  const out = new Map<string, { version: string | null; count: number }[]>();
  if (keys.length === 0) return out;
  const keysFrom = db.dialect === 'postgres' ? 'SELECT value FROM jsonb_array_elements_text(CAST(? AS jsonb))' : 'SELECT value FROM json_each(?)';
  const keyList = JSON.stringify(keys);
  const fromRows = (extra: string) =>
    `SELECT issue_key AS k, COALESCE(service_version, '') AS version, count(*) AS count FROM error_events
      WHERE occurred_at >= ? AND occurred_at < ? AND issue_key IN (${keysFrom})${extra} GROUP BY 1, 2`;
  const [h0, h1] = wholeHours(w);
  // Summed by the store: a day holds ~20 000 hour × issue × version rows, a few hundred sums.
  const rows = summary
    ? await db.all<{ k: string; version: string; count: number }>(
        `SELECT k, version, sum(count) AS count FROM (
           SELECT issue_key AS k, version, errors AS count FROM issue_hour_versions WHERE hour >= ? AND hour < ? AND issue_key IN (${keysFrom})
           UNION ALL ${fromRows('')}
           UNION ALL ${fromRows('')}) t GROUP BY 1, 2`,
        [h0, h1, keyList, w.since, h0, keyList, h1, w.until, keyList],
      )
    : await db.all<{ k: string; version: string; count: number }>(fromRows(buyers), [w.since, w.until, keyList]);
  for (const r of rows) {
    let list = out.get(r.k);
    if (!list) out.set(r.k, (list = []));
    list.push({ version: r.version === '' ? null : r.version, count: r.count });
  }
  return out;
}

/** What an issue without a stored operator state has (issueReleaseFacts' answer, without the call). */
const NO_STATE = Object.freeze({ status: 'open', regression: null, muted_count: null } as const);

/**
 * Issues over a window, sorted (`count` by default), at most `limit`, each with its state and a
 * trend. Read-only; throws `QuerySyntaxError` for a bad query. The state looks at the whole
 * store (first error ever, the error before the window), not only at the window.
 */
export async function listIssues(db: Db, options: IssueOptions): Promise<IssueList> {
  const q = asQuery(options.query ?? null);
  const c = compileQuery(q, { now: options.now ?? Date.now(), window: options.window, pseudonymizer: options.pseudonymizer ?? null, includeProbe: options.includeProbe ?? false });
  const window = c.window;
  const sort = options.sort ?? 'count';
  if (!Object.hasOwn(SORTERS, sort)) throw new RangeError(`Expected sort to be one of ${ISSUE_SORTS.join(', ')}, got ${JSON.stringify(sort)}`);
  const quietMs = options.quietMs ?? ISSUE_DEFAULTS.quietMs;
  const limit = Math.max(1, Math.trunc(options.limit ?? ISSUE_DEFAULTS.limit));
  const span = window.until - window.since;
  // Both stores' writers keep the hourly summary (PostgreSQL's since its migration 5, issue 31);
  // the rows path gives the same result with the same hour-aligned buckets.
  // `span - 1`: a `--since 6h` window ends at now + 1 ms and is still a 6 h window.
  const hourly = q.terms.length === 0 && span - 1 > ISSUE_DEFAULTS.rawWindowMs && Math.floor(window.until / HOUR) * HOUR > ceilTo(window.since, HOUR);
  // The summary counts every row; a window holding calls of `aap-triage probe` (left out unless
  // asked, docs/probe.md) is read from the rows instead. The partial index of migration 6 holds
  // only probe rows, so asking costs one index probe.
  const buyersOnly = !(options.includeProbe ?? false) && !q.terms.some((t) => t.field === 'origin');
  const probeRows = async (): Promise<boolean> =>
    (await db.get('SELECT 1 AS one FROM error_events WHERE origin IS NOT NULL AND occurred_at >= ? AND occurred_at < ? LIMIT 1', [window.since, window.until])) !== undefined;
  const summary = hourly && (!buyersOnly || !(await probeRows()));
  const p = plan(window, hourly, options.buckets ?? ISSUE_DEFAULTS.buckets);
  const fromSummary = summary ? await summaryCells(db, window, p.start, p.bucketMs) : null;
  const { cells, clients } = fromSummary ?? (await rowCells(db, c.where, c.params, p.start, p.bucketMs));
  const accs = [...fold(cells).values()].sort(SORTERS[sort]);

  const buyers = buyersOnly ? ` AND ${BUYER_CALLS_SQL}` : '';
  const states = await loadIssueStates(db);
  const now = options.now ?? Date.now();
  const top = accs.slice(0, limit);
  const facts = await issueFacts(db, top.map((a) => a.key), window, buyers);
  const versions = await windowVersions(db, top.map((a) => a.key), window, buyers, summary);
  const issues: Issue[] = [];
  for (const a of top) {
    const { sample: s, first, before } = facts.get(a.key)!;
    const ever = first?.v ?? a.lo;
    let regressedAt: number | null = null;
    if (ever < window.since) {
      // A gap of quietMs either before the window's first error or between two buckets of it.
      let prev = before;
      for (const [, lo, hi] of a.spans) {
        if (prev !== null && lo - prev >= quietMs) regressedAt = lo;
        prev = hi;
      }
    }
    const trend = new Array<number>(p.count).fill(0);
    for (const [b, , , n] of a.spans) trend[Math.min(p.count - 1, Math.max(0, Math.floor((b - p.start) / p.bucketMs)))]! += n;
    const unknown = a.count - a.r - a.f;
    const stored = states.get(a.key);
    const release = stored ? await issueReleaseFacts(db, a.key, stored, now, buyers) : NO_STATE;
    if (release.regression) regressedAt = release.regression.at;
    const fields = { service: s.service, protocol: s.protocol, rpc_method: s.rpc_method, skill: s.skill, code: s.code };
    issues.push({
      key: a.key,
      title: issueTitle(fields),
      ...fields,
      violations: parseJsonArray<Violation>(s.violations),
      conformance: parseJsonArray<string>(s.conformance),
      count: a.count,
      clients: clients.get(a.key) ?? 0,
      retryable: a.r === a.count ? true : a.f === a.count ? false : null,
      retryable_split: { true: a.r, false: a.f, unknown },
      first_seen: a.lo,
      last_seen: a.hi,
      first_seen_ever: ever,
      state: release.regression ? 'regressed' : ever >= window.since ? 'new' : regressedAt !== null ? 'regressed' : 'ongoing',
      regressed_at: regressedAt,
      status: release.status,
      operator_state: stored ?? null,
      regressed_in: release.regression?.version ?? null,
      muted_count: release.muted_count,
      first_seen_version: first?.ver ?? null,
      last_seen_version: s.service_version,
      versions: sortVersions(versions.get(a.key) ?? []),
      trend,
      last_error_id: s.error_id,
      last_trace_id: s.trace_id,
    });
  }
  return { window, sort, trend_start: p.start, bucket_ms: p.bucketMs, quiet_ms: quietMs, total: accs.length, source: fromSummary ? 'summary' : 'rows', issues };
}

/**
 * One issue by its key or a key prefix (≥ 6 hex digits) over the window; undefined when no
 * error of that issue falls in it. Same fields as {@link listIssues}.
 */
export async function getIssue(db: Db, key: string, options: Omit<IssueOptions, 'query' | 'sort' | 'limit'>): Promise<Issue | undefined> {
  return (await listIssues(db, { ...options, query: `issue:${key}`, limit: 1 })).issues[0];
}
