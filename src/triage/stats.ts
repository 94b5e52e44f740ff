import { compileQuery } from './compile.js';
import type { Query } from './query.js';
import { FLAG_COUNT_PARAMS, FLAG_COUNT_SELECT, flagCounts, type Db } from './rows.js';
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
export async function computeStats(db: Db, query: Query | string | null, window: TimeWindow, options: QueryOptions = {}): Promise<Stats> {
  const c = compileQuery(asQuery(query), { now: options.now ?? Date.now(), window, pseudonymizer: options.pseudonymizer ?? null, includeProbe: options.includeProbe ?? false });
  // One pass over the window; the breakdowns are folded from it.
  const rows = await db.all<GroupRow & Record<string, unknown>>(
    `SELECT code, protocol, skill, SUM(CASE WHEN retryable = 1 THEN 1 ELSE 0 END) AS t, SUM(CASE WHEN retryable = 0 THEN 1 ELSE 0 END) AS f,
            SUM(CASE WHEN retryable IS NULL THEN 1 ELSE 0 END) AS u, ${FLAG_COUNT_SELECT}
       FROM error_events WHERE ${c.where} GROUP BY code, protocol, skill`,
    [...FLAG_COUNT_PARAMS, ...c.params],
  );
  const byCode = [...fold(rows, codeKey).values()].map((r) => ({ ...toRow(r), protocol: r.protocol })).sort(byCountDesc);
  const bySkill = [...fold(rows, (r) => r.skill).values()].map(toRow).sort(byCountDesc);
  const byProtocol = [...fold(rows, (r) => r.protocol).values()].map(toRow).sort(byCountDesc);
  const byRetryable = byCode.reduce<RetryableSplit>(
    (acc, r) => ({ true: acc.true + r.retryable.true, false: acc.false + r.retryable.false, unknown: acc.unknown + r.retryable.unknown }),
    { true: 0, false: 0, unknown: 0 },
  );
  const flagTotals = new Map<string, number>();
  for (const r of rows) for (const [flag, n] of flagCounts(r)) if (n > 0) flagTotals.set(flag, (flagTotals.get(flag) ?? 0) + n);
  // Keys in name order, as the per-flag GROUP BY listed them before.
  const byFlag: Record<string, number> = Object.fromEntries([...flagTotals].sort(([a], [b]) => (a < b ? -1 : 1)));
  const t = (await db.get<{ n: number; requests: number | null; errors: number | null; retries: number | null }>(
    'SELECT COUNT(*) AS n, SUM(requests) AS requests, SUM(errors) AS errors, SUM(retries) AS retries FROM traffic WHERE minute >= ? AND minute < ?',
    [c.window.since, c.window.until],
  )) ?? { n: 0, requests: null, errors: null, retries: null };
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
export async function listGaps(db: Db, window: TimeWindow): Promise<AuditGap[]> {
  return db.all<AuditGap>(
    'SELECT id, service, started_at, ended_at, dropped, reason FROM audit_gaps WHERE ended_at >= ? AND started_at < ? ORDER BY ended_at DESC, id DESC',
    [window.since, window.until],
  );
}

/**
 * The one sentence every triage view shows for a gap record (issue: "N errors not recorded
 * between t1 and t2"): `17 errors not recorded between 2026-11-30 10:01:00Z and 2026-11-30
 * 10:02:00Z (queue-full)`. Times in UTC.
 */
export function describeGap(gap: Pick<AuditGap, 'dropped' | 'started_at' | 'ended_at' | 'reason'>): string {
  return `${gap.dropped} error${gap.dropped === 1 ? '' : 's'} not recorded between ${formatUtc(gap.started_at)} and ${formatUtc(gap.ended_at)} (${gap.reason})`;
}
