import { createHash } from 'node:crypto';
import type { RetryFlag } from '../protocol/error-event.js';
import type { Db } from './rows.js';
import { causingFaults, retryableFault } from './codes.js';
import { BUYER_CALLS_SQL } from './compile.js';
import { detectStorms, STORM_DEFAULTS, stormCause, summariseStorm, type CausePoint, type DetectedStorm, type StormCause, type StormMinute, type StormThresholds } from './storm-detect.js';
import { summarizeErrors, type CodeBreakdown, type Evidence } from './summary.js';
import type { TimeWindow } from './time.js';

/** minute, client, skill of error_events rows, grouped by position (`GROUP BY 1, 2, 3`): NULL client or skill is ''. */
const EVENT_MINUTE_SELECT = "(occurred_at / 60000) * 60000 AS minute, COALESCE(client, '') AS client, COALESCE(skill, '') AS skill";
const COUNT_RETRIES = 'SUM(CASE WHEN attempt > 1 THEN 1 ELSE 0 END)';
const COUNT_FLAGGED = "SUM(CASE WHEN retry_flags <> '[]' THEN 1 ELSE 0 END)";

/** A retry-storm episode as `aap-triage storms --json` prints it and the TUI's Storms view shows it. */
export interface StormEpisode extends DetectedStorm {
  /**
   * Stable id: `storm-<UTC start yyyymmddThhmm>Z-<8 hex of sha256(client)>`, so the same episode
   * has the same id across runs and `draft --storm <id>` finds it without remembering a window.
   */
  id: string;
  /**
   * Who the episode blames (`stormCause`, DESIGN §6): `client` — a client storm (flagged retries,
   * attempts over the cap, or retries no retryable dealer fault explains); `dealer` — a
   * dealer-side episode: the client retried retryable dealer faults as the policy allows, so the
   * draft goes to the dealer's own on-call and asks nothing of the partner.
   */
  cause: StormCause;
  /** Errors by code in the episode (from error_events). */
  codes: CodeBreakdown[];
  /** Retry flags in the episode, per flag. */
  flags: Record<RetryFlag, number>;
  /** Errors whose attempt exceeded the attempt cap. */
  overAttemptCap: number;
  /** Whether the retry ratio exceeded the per-client retry budget. */
  overBudget: boolean;
  /** Up to `maxSamples` error_id + trace_id pairs, flagged retries first. */
  samples: Evidence[];
}

const MINUTE = 60_000;

/** The stable id of an episode of `client` starting at `start` (epoch ms). */
export function stormId(client: string, start: number): string {
  const t = new Date(start).toISOString(); // 2026-11-30T01:42:00.000Z
  const stamp = `${t.slice(0, 4)}${t.slice(5, 7)}${t.slice(8, 10)}T${t.slice(11, 13)}${t.slice(14, 16)}Z`;
  return `storm-${stamp}-${createHash('sha256').update(client).digest('hex').slice(0, 8)}`;
}

/** Parses a storm id into its start (epoch ms) and client hash; undefined when malformed. */
export function parseStormId(id: string): { start: number; clientHash: string } | undefined {
  const m = /^storm-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})Z-([0-9a-f]{8})$/.exec(id);
  if (!m) return undefined;
  const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  return Number.isFinite(start) ? { start, clientHash: m[6] ?? '' } : undefined;
}

type EventMinute = { minute: number; client: string; skill: string; errors: number; retries: number; flagged: number };
type TrafficMinute = Omit<StormMinute, 'flagged'>;

/** Joins traffic counters with error_events counts of the same (minute, client, skill). */
function joinMinutes(traffic: TrafficMinute[], events: EventMinute[], eventsCountCalls: boolean): StormMinute[] {
  const out = new Map<string, StormMinute>();
  for (const t of traffic) out.set(`${t.minute}\u0000${t.client}\u0000${t.skill}`, { ...t, flagged: 0 });
  for (const e of events) {
    const key = `${e.minute}\u0000${e.client}\u0000${e.skill}`;
    const cur = out.get(key);
    if (cur) {
      // traffic counts every call, error_events only errors: keep the larger of each.
      cur.retries = Math.max(cur.retries, e.retries);
      cur.errors = Math.max(cur.errors, e.errors);
      cur.requests = Math.max(cur.requests, cur.retries, cur.errors);
      cur.flagged = e.flagged;
    } else if (eventsCountCalls) {
      out.set(key, { minute: e.minute, client: e.client, skill: e.skill, requests: e.errors, errors: e.errors, retries: e.retries, flagged: e.flagged });
    } else {
      // Calls of this minute are unknown here: the minute can only count for its flagged retries.
      out.set(key, { minute: e.minute, client: e.client, skill: e.skill, requests: 0, errors: 0, retries: 0, flagged: e.flagged });
    }
  }
  return [...out.values()];
}

/**
 * The per-minute rows of `window` that can make a minute stormy (DESIGN §6), for `detectStorms`:
 * traffic rows whose retries meet the ratio rule's floor or the amplification threshold (a row
 * below both can be stormy under neither rule), and flagged retries from error_events (read
 * through the partial index `error_events_retries`, migration 2). A store without traffic rows
 * in the window falls back to error_events alone (errors stand in for calls).
 */
export async function loadStormMinutes(db: Db, window: TimeWindow, thresholds: Partial<StormThresholds> = {}, includeProbe = false): Promise<StormMinute[]> {
  const th: StormThresholds = { ...STORM_DEFAULTS, ...thresholds };
  const buyers = includeProbe ? '' : ` AND ${BUYER_CALLS_SQL}`;
  const since = Math.floor(window.since / MINUTE) * MINUTE;
  const hasTraffic = (await db.get('SELECT 1 AS one FROM traffic WHERE minute >= ? AND minute < ? LIMIT 1', [since, window.until])) !== undefined;
  if (!hasTraffic) {
    const events = await db.all<EventMinute>(
      `SELECT ${EVENT_MINUTE_SELECT}, COUNT(*) AS errors, ${COUNT_RETRIES} AS retries, ${COUNT_FLAGGED} AS flagged
         FROM error_events WHERE occurred_at >= ? AND occurred_at < ?${buyers} GROUP BY 1, 2, 3`,
      [since, window.until],
    );
    return joinMinutes([], events, true);
  }
  // amplification ≥ A  ⇔  retries ≥ requests · (1 − 1/A)
  const ampShare = th.amplification > 1 ? 1 - 1 / th.amplification : 0;
  const traffic = await db.all<TrafficMinute>(
    `SELECT minute, client, skill, SUM(requests) AS requests, SUM(errors) AS errors, SUM(retries) AS retries
       FROM traffic WHERE minute >= ? AND minute < ? AND retries > 0 AND (retries >= ? OR retries >= requests * CAST(? AS DOUBLE PRECISION))
      GROUP BY minute, client, skill`,
    [since, window.until, Math.min(th.minRetriesPerMinute, 1e9), ampShare],
  );
  const events = await db.all<EventMinute>(
    `SELECT ${EVENT_MINUTE_SELECT}, COUNT(*) AS errors, COUNT(*) AS retries, ${COUNT_FLAGGED} AS flagged
       FROM error_events WHERE occurred_at >= ? AND occurred_at < ? AND attempt > 1${buyers}
      GROUP BY 1, 2, 3 HAVING ${COUNT_FLAGGED} > 0`,
    [since, window.until],
  );
  return joinMinutes(traffic, events, false);
}

/** Every minute of one client's `skills` in [start, end): traffic joined with error_events. */
export async function loadClientMinutes(db: Db, client: string, skills: readonly string[], start: number, end: number, includeProbe = false): Promise<StormMinute[]> {
  const skillList = skills.map(() => '?').join(',');
  const traffic = await db.all<TrafficMinute>(
    `SELECT minute, client, skill, SUM(requests) AS requests, SUM(errors) AS errors, SUM(retries) AS retries
       FROM traffic WHERE minute >= ? AND minute < ? AND client = ? AND skill IN (${skillList}) GROUP BY minute, client, skill`,
    [start, end, client, ...skills],
  );
  const events = await db.all<EventMinute>(
    `SELECT ${EVENT_MINUTE_SELECT}, COUNT(*) AS errors, ${COUNT_RETRIES} AS retries, ${COUNT_FLAGGED} AS flagged
       FROM error_events WHERE ${client === '' ? 'client IS NULL' : 'client = ?'} AND occurred_at >= ? AND occurred_at < ?
        AND COALESCE(skill, '') IN (${skillList})${includeProbe ? '' : ` AND ${BUYER_CALLS_SQL}`} GROUP BY 1, 2, 3`,
    client === '' ? [start, end, ...skills] : [client, start, end, ...skills],
  );
  return joinMinutes(traffic, events, true);
}

/** Options of `findStorms`. */
export interface StormOptions {
  thresholds?: Partial<StormThresholds>;
  /**
   * Count the error rows of `aap-triage probe` calls too (`--include-probe`). Default false. The
   * probe's calls are never retries nor traffic (src/instrument/exchange/origin.ts), so they rarely make
   * an episode either way; a store without traffic counters falls back to error rows, where they would.
   */
  includeProbe?: boolean;
}

/**
 * Retry-storm episodes in `window`, newest first (`aap-triage storms`, the TUI's Storms view):
 * detection over the per-minute series (`detectStorms`), then codes, flags and samples of each
 * episode from error_events.
 */
export async function findStorms(db: Db, window: TimeWindow, options: StormOptions = {}): Promise<StormEpisode[]> {
  const th: StormThresholds = { ...STORM_DEFAULTS, ...options.thresholds };
  const probe = options.includeProbe ?? false;
  const detected = detectStorms(await loadStormMinutes(db, window, th, probe), th);
  const episodes: StormEpisode[] = [];
  for (const d of detected) episodes.push(await enrich(db, d, th, probe));
  return episodes.sort((a, b) => b.start - a.start || a.id.localeCompare(b.id));
}

/** The where-clause selecting an episode's errors (its client, skills and minutes). */
export function stormWhere(storm: Pick<DetectedStorm, 'client' | 'skills' | 'start' | 'end'>, includeProbe = false): { where: string; params: (string | number)[] } {
  const clientSql = storm.client === '' ? 'client IS NULL' : 'client = ?';
  const params: (string | number)[] = storm.client === '' ? [] : [storm.client];
  params.push(storm.start, storm.end, ...storm.skills);
  return {
    where: `${clientSql} AND occurred_at >= ? AND occurred_at < ? AND COALESCE(skill, '') IN (${storm.skills.map(() => '?').join(',')})${includeProbe ? '' : ` AND ${BUYER_CALLS_SQL}`}`,
    params,
  };
}

/** The episode's series with the retryable dealer faults (`retryableFault`) answered per minute. */
async function withFaults(db: Db, d: DetectedStorm, where: string, params: readonly (string | number)[]): Promise<CausePoint[]> {
  const rows = await db.all<{ minute: number; protocol: string; code: string; retryable: number | null; n: number }>(
    `SELECT (occurred_at / 60000) * 60000 AS minute, protocol, code, retryable, COUNT(*) AS n
       FROM error_events WHERE ${where} GROUP BY 1, 2, 3, 4`,
    params,
  );
  const faults = new Map<number, number>();
  for (const r of rows) if (retryableFault(r.protocol, r.code, r.retryable)) faults.set(Number(r.minute), (faults.get(Number(r.minute)) ?? 0) + Number(r.n));
  return d.series.map((p) => ({ ...p, faults: faults.get(p.minute) ?? 0 }));
}

async function enrich(db: Db, detected: DetectedStorm, th: StormThresholds, includeProbe: boolean): Promise<StormEpisode> {
  // Detection saw only the minutes that could be stormy; count the episode over all its minutes.
  const d = summariseStorm(detected, await loadClientMinutes(db, detected.client, detected.skills, detected.start, detected.end, includeProbe));
  const { where, params } = stormWhere(d, includeProbe);
  const s = await summarizeErrors(db, where, params, { attemptCap: th.attemptCap, maxSamples: th.maxSamples });
  const cause = stormCause(await withFaults(db, d, where, params), s.overAttemptCap, th);
  return {
    id: stormId(d.client, d.start),
    cause,
    ...d,
    errors: Math.max(d.errors, s.errors),
    // A dealer-side episode's codes are the faults that caused it (docs/storms.md), not the
    // client's other, non-retryable one-offs inside the same minutes.
    codes: cause === 'dealer' ? causingFaults(s.codes) : s.codes,
    flags: s.flags,
    overAttemptCap: s.overAttemptCap,
    overBudget: d.retryRatio > th.clientBudget,
    samples: s.samples,
  };
}

/**
 * The episode with `id` (see `stormId`), detected over a window around the start the id names
 * (1 h before to 24 h after); undefined when the id is malformed or no such episode is found.
 */
export async function findStormById(db: Db, id: string, options: StormOptions = {}): Promise<StormEpisode | undefined> {
  const parsed = parseStormId(id);
  if (!parsed) return undefined;
  const th: StormThresholds = { ...STORM_DEFAULTS, ...options.thresholds };
  const window = { since: parsed.start - 3_600_000, until: parsed.start + 86_400_000 };
  const probe = options.includeProbe ?? false;
  const detected = detectStorms(await loadStormMinutes(db, window, th, probe), th);
  const hash = (c: string): string => createHash('sha256').update(c).digest('hex').slice(0, 8);
  const exact = detected.find((d) => d.start === parsed.start && hash(d.client) === parsed.clientHash);
  const match = exact ?? detected.find((d) => hash(d.client) === parsed.clientHash && d.start <= parsed.start && parsed.start < d.end);
  return match ? { ...(await enrich(db, match, th, probe)), id } : undefined;
}
