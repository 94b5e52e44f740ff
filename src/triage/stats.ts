import { compileQuery } from './compile.js';
import type { Query } from './query.js';
import { prepared, type Db } from './rows.js';
import { asQuery, type QueryOptions } from './search.js';
import { formatUtc, type TimeWindow } from './time.js';

/** Errors split by the `retryable` the wire carried. */
export interface RetryableSplit {
  true: number;
  false: number;
  unknown: number;
}

/** One line of a breakdown: a key and its error count, retryable split included. */
export interface CountRow {
  key: string;
  count: number;
  retryable: RetryableSplit;
}

/** Counts over a window (`aap-triage stats`, the TUI status line). */
export interface Stats {
  window: TimeWindow;
  /** Errors matching the query in the window. */
  errors: number;
  byCode: (CountRow & { protocol: string })[];
  bySkill: CountRow[];
  byProtocol: CountRow[];
  byRetryable: RetryableSplit;
  /** Retries flagged by the retry tracker, per flag. */
  byFlag: Record<string, number>;
  /**
   * All calls in the window from `traffic` (every client and skill, whatever the query), or null
   * when the store holds no traffic rows for it. Rates are fractions (0.05 = 5 %).
   */
  traffic: { requests: number; errors: number; retries: number; errorRate: number | null; retryRatio: number | null } | null;
}

interface GroupRow {
  code: string;
  protocol: string;
  skill: string | null;
  t: number;
  f: number;
  u: number;
}

/** Folds the one (code, protocol, skill) pass into a breakdown by `keyOf`. */
function fold(rows: GroupRow[], keyOf: (r: GroupRow) => string | null): Map<string, { key: string | null; t: number; f: number; u: number; protocol: string }> {
  const out = new Map<string, { key: string | null; t: number; f: number; u: number; protocol: string }>();
  for (const r of rows) {
    const key = keyOf(r);
    const id = `${key ?? '\u0000'}\u0001${keyOf === codeKey ? r.protocol : ''}`;
    const acc = out.get(id) ?? { key, t: 0, f: 0, u: 0, protocol: r.protocol };
    acc.t += r.t;
    acc.f += r.f;
    acc.u += r.u;
    out.set(id, acc);
  }
  return out;
}
const codeKey = (r: GroupRow): string => r.code;

const toRow = (r: { key: string | null; t: number; f: number; u: number }): CountRow => ({
  key: r.key ?? '(none)',
  count: r.t + r.f + r.u,
  retryable: { true: r.t, false: r.f, unknown: r.u },
});
const byCountDesc = (a: CountRow, b: CountRow): number => b.count - a.count || a.key.localeCompare(b.key);

/**
 * Counts of errors matching `query` in `window` by code, skill, protocol, retryable and flag,
 * and the window's traffic (requests, errors, retries, error rate, retry ratio).
 * Throws `QuerySyntaxError` for a bad query.
 */
export function computeStats(db: Db, query: Query | string | null, window: TimeWindow, options: QueryOptions = {}): Stats {
  const c = compileQuery(asQuery(query), { now: options.now ?? Date.now(), window, pseudonymizer: options.pseudonymizer ?? null });
  // One pass over the window; the breakdowns are folded from it.
  const rows = prepared(
    db,
    `SELECT code, protocol, skill, SUM(retryable = 1) AS t, SUM(retryable = 0) AS f, SUM(retryable IS NULL) AS u
       FROM error_events WHERE ${c.where} GROUP BY code, protocol, skill`,
  ).all(...c.params) as GroupRow[];
  const byCode = [...fold(rows, codeKey).values()].map((r) => ({ ...toRow(r), protocol: r.protocol })).sort(byCountDesc);
  const bySkill = [...fold(rows, (r) => r.skill).values()].map(toRow).sort(byCountDesc);
  const byProtocol = [...fold(rows, (r) => r.protocol).values()].map(toRow).sort(byCountDesc);
  const byRetryable = byCode.reduce<RetryableSplit>(
    (acc, r) => ({ true: acc.true + r.retryable.true, false: acc.false + r.retryable.false, unknown: acc.unknown + r.retryable.unknown }),
    { true: 0, false: 0, unknown: 0 },
  );
  const flagRows = prepared(
    db,
    `SELECT j.value AS flag, COUNT(*) AS n FROM error_events, json_each(error_events.retry_flags) AS j
      WHERE ${c.where} AND retry_flags <> '[]' GROUP BY j.value`,
  ).all(...c.params) as { flag: string; n: number }[];
  const byFlag: Record<string, number> = {};
  for (const r of flagRows) byFlag[r.flag] = r.n;
  const t = prepared(
    db,
    'SELECT COUNT(*) AS n, SUM(requests) AS requests, SUM(errors) AS errors, SUM(retries) AS retries FROM traffic WHERE minute >= ? AND minute < ?',
  ).get(c.window.since, c.window.until) as { n: number; requests: number | null; errors: number | null; retries: number | null };
  const traffic =
    t.n === 0
      ? null
      : {
          requests: t.requests ?? 0,
          errors: t.errors ?? 0,
          retries: t.retries ?? 0,
          errorRate: t.requests ? (t.errors ?? 0) / t.requests : null,
          retryRatio: t.requests ? (t.retries ?? 0) / t.requests : null,
        };
  return {
    window: c.window,
    errors: byRetryable.true + byRetryable.false + byRetryable.unknown,
    byCode,
    bySkill,
    byProtocol,
    byRetryable,
    byFlag,
    traffic,
  };
}

/** A stored gap: errors seen but not recorded (queue overflow, write failure). Column names of `audit_gaps`. */
export interface AuditGap {
  id: number;
  service: string;
  /** Epoch ms. */
  started_at: number;
  /** Epoch ms. */
  ended_at: number;
  /** Records lost. */
  dropped: number;
  reason: string;
}

/** Gap records overlapping `window`, newest first (the TUI status warning, `aap-triage doctor`). */
export function listGaps(db: Db, window: TimeWindow): AuditGap[] {
  return prepared(
    db,
    'SELECT id, service, started_at, ended_at, dropped, reason FROM audit_gaps WHERE ended_at >= ? AND started_at < ? ORDER BY ended_at DESC, id DESC',
  ).all(window.since, window.until) as AuditGap[];
}

/**
 * The one sentence every triage view shows for a gap record (issue: "N errors not recorded
 * between t1 and t2"): `17 errors not recorded between 2026-11-30 10:01:00Z and 2026-11-30
 * 10:02:00Z (queue-full)`. Times in UTC.
 */
export function describeGap(gap: Pick<AuditGap, 'dropped' | 'started_at' | 'ended_at' | 'reason'>): string {
  return `${gap.dropped} error${gap.dropped === 1 ? '' : 's'} not recorded between ${formatUtc(gap.started_at)} and ${formatUtc(gap.ended_at)} (${gap.reason})`;
}
