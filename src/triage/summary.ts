import { RETRY_FLAGS, type RetryFlag } from '../protocol/error-event.js';
import { FLAG_COUNT_PARAMS, FLAG_COUNT_SELECT, flagCounts, likeContains, type Db } from './rows.js';

/** One code in a set of errors: counts and what the clients did with it. */
export interface CodeBreakdown {
  code: string;
  protocol: string;
  count: number;
  /** `retryable` as the wire said: true/false when every row agrees, null when unknown or mixed. */
  retryable: boolean | null;
  /** Rows with attempt > 1. */
  retries: number;
  /** Highest attempt seen. */
  maxAttempt: number;
  /** Retry flags on rows with this code. */
  flags: Record<RetryFlag, number>;
  /** Smallest and largest retry_after_ms the server sent, ms; null when none. */
  retryAfterMs: { min: number; max: number } | null;
}

/** An evidence pair for an incident email (spec/dmc12-errors.txt: quote error_id + trace_id). */
export interface Evidence {
  error_id: string;
  trace_id: string | null;
  upstream_trace_id: string | null;
  occurred_at: number;
  code: string;
  attempt: number;
}

/** Aggregates of a set of errors selected by a SQL condition. */
export interface ErrorSummary {
  errors: number;
  /** Epoch ms of the first and last error; null when none. */
  first: number | null;
  last: number | null;
  codes: CodeBreakdown[];
  flags: Record<RetryFlag, number>;
  skills: string[];
  services: string[];
  /** Distinct client pseudonyms ('' for none), most errors first, at most 20. */
  clients: string[];
  /** Minute with the most errors. */
  peak: { minute: number; errors: number } | null;
  /** Rows with attempt above the cap. */
  overAttemptCap: number;
  /** Flagged rows first, then oldest; at most `maxSamples`. */
  samples: Evidence[];
}

/** The answers a flagged retry retried: per code of the answer before it, how many retries followed it. */
export interface RetriedAnswer {
  code: string;
  protocol: string;
  /** Flagged retries that followed an answer with this code. */
  retries: number;
}

/** How many flagged retries are traced back to their previous answer, at most (keeps a draft of a huge storm cheap). */
const MAX_TRACED_RETRIES = 2_000;

/**
 * For retries matching `where` that carry `flag`, the codes of the answers they retried: the
 * earlier rows of the same call (same client and fingerprint, lower attempt, within the 10 min
 * retry window) that explain the flag — `retryable = 0` for `retried_non_retryable`, a
 * `retry_after_ms` for `ignored_retry_after`, any for `no_backoff`. A retry is the next attempt of
 * an answer, so its own code may differ (a RATE_LIMITED retry of a refused call): the draft must
 * name the answer's code. Most retries first.
 */
export async function retriedAnswers(db: Db, where: string, params: readonly (string | number)[], flag: RetryFlag): Promise<RetriedAnswer[]> {
  const explains =
    flag === 'retried_non_retryable' ? 'AND p.retryable = 0' : flag === 'ignored_retry_after' ? 'AND p.retry_after_ms IS NOT NULL' : '';
  return db.all<RetriedAnswer>(
    `WITH r AS (
       SELECT error_id, client, fingerprint, occurred_at, attempt FROM error_events
        WHERE ${where} AND fingerprint IS NOT NULL AND retry_flags LIKE ? ESCAPE '\\' LIMIT ${MAX_TRACED_RETRIES})
     SELECT p.code AS code, p.protocol AS protocol, COUNT(DISTINCT r.error_id) AS retries
       FROM r JOIN error_events p
         ON p.client IS NOT DISTINCT FROM r.client AND p.occurred_at <= r.occurred_at AND p.occurred_at >= r.occurred_at - 600000
        AND p.fingerprint = r.fingerprint AND p.attempt < r.attempt ${explains}
      GROUP BY p.code, p.protocol ORDER BY retries DESC, p.code`,
    [...params, likeContains(JSON.stringify(flag))],
  );
}

/** An empty per-flag counter. */
export function emptyFlags(): Record<RetryFlag, number> {
  return Object.fromEntries(RETRY_FLAGS.map((f) => [f, 0])) as Record<RetryFlag, number>;
}

/**
 * Summarises the errors matching `where` (a condition over `error_events` with `?` bound to
 * `params`): breakdown by code with retryable, retry flags, attempts, the peak minute and
 * sample evidence. Used by storms and drafts.
 */
export async function summarizeErrors(
  db: Db,
  where: string,
  params: readonly (string | number)[],
  options: { attemptCap?: number; maxSamples?: number } = {},
): Promise<ErrorSummary> {
  const cap = options.attemptCap ?? 5;
  const count = (condition: string) => `SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  const codeRows = await db.all<{
    code: string;
    protocol: string;
    n: number;
    t: number;
    f: number;
    retries: number;
    max_attempt: number;
    over_cap: number;
    ra_min: number | null;
    ra_max: number | null;
    first: number;
    last: number;
    [flag: string]: unknown;
  }>(
    `SELECT code, protocol, COUNT(*) AS n, ${count('retryable = 1')} AS t, ${count('retryable = 0')} AS f, ${count('attempt > 1')} AS retries,
            MAX(attempt) AS max_attempt, ${count('attempt > ?')} AS over_cap, MIN(retry_after_ms) AS ra_min, MAX(retry_after_ms) AS ra_max,
            MIN(occurred_at) AS first, MAX(occurred_at) AS last, ${FLAG_COUNT_SELECT}
       FROM error_events WHERE ${where} GROUP BY code, protocol ORDER BY n DESC, code`,
    [cap, ...FLAG_COUNT_PARAMS, ...params],
  );
  const flags = emptyFlags();
  const codes: CodeBreakdown[] = codeRows.map((r) => {
    const own = emptyFlags();
    for (const [flag, n] of flagCounts(r)) {
      own[flag] += n;
      flags[flag] += n;
    }
    return {
      code: r.code,
      protocol: r.protocol,
      count: r.n,
      retryable: r.t === r.n ? true : r.f === r.n ? false : null,
      retries: r.retries,
      maxAttempt: r.max_attempt,
      flags: own,
      retryAfterMs: r.ra_min === null || r.ra_max === null ? null : { min: r.ra_min, max: r.ra_max },
    };
  });
  const errors = codeRows.reduce((a, r) => a + r.n, 0);
  const distinct = async (col: string, limit: number): Promise<string[]> =>
    (await db.all<{ v: string }>(`SELECT COALESCE(${col}, '') AS v, COUNT(*) AS n FROM error_events WHERE ${where} GROUP BY 1 ORDER BY n DESC, v LIMIT ?`, [...params, limit])).map(
      (r) => r.v,
    );
  const peakRow = await db.get<{ minute: number; errors: number }>(
    `SELECT (occurred_at / 60000) * 60000 AS minute, COUNT(*) AS errors FROM error_events WHERE ${where} GROUP BY 1 ORDER BY errors DESC, minute LIMIT 1`,
    params,
  );
  const samples = await db.all<Evidence>(
    `SELECT error_id, trace_id, upstream_trace_id, occurred_at, code, attempt FROM error_events WHERE ${where}
      ORDER BY CASE WHEN retry_flags = '[]' THEN 1 ELSE 0 END, occurred_at, error_id LIMIT ?`,
    [...params, options.maxSamples ?? 5],
  );
  const [skills, services, clients] = [await distinct('skill', 100), await distinct('service', 100), await distinct('client', 20)];
  return {
    errors,
    first: codeRows.length ? Math.min(...codeRows.map((r) => r.first)) : null,
    last: codeRows.length ? Math.max(...codeRows.map((r) => r.last)) : null,
    codes,
    flags,
    skills: skills.filter((s) => s !== ''),
    services,
    clients,
    peak: peakRow ?? null,
    overAttemptCap: codeRows.reduce((a, r) => a + r.over_cap, 0),
    samples,
  };
}
