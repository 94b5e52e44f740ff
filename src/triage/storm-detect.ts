/**
 * Retry-storm detection over per-minute series (DESIGN §6). Pure: plain data in, episodes out.
 * `findStorms` (storms.ts) loads the series from the store and adds codes, flags and samples.
 */
import { MAX_ATTEMPTS_CAP, RETRY_WINDOW_MS } from '../protocol/index.js';

/** Thresholds of storm detection. Every field has a default in `STORM_DEFAULTS`. */
export interface StormThresholds {
  /** A minute is stormy when retries ÷ requests exceeds this fraction (and `minRetriesPerMinute` holds). */
  retryRatio: number;
  /** …and at least this many retries happened in that minute. */
  minRetriesPerMinute: number;
  /** A minute is stormy when attempts ÷ distinct requests is at least this… */
  amplification: number;
  /** …for at least this many consecutive minutes. */
  amplificationMinutes: number;
  /** Flagged retries (retried_non_retryable, ignored_retry_after, no_backoff) "repeat" at this count within `windowMs`. */
  flaggedRepeat: number;
  /** Retry window, ms: a request seen again within it is a retry; hot minutes closer than this join one episode. */
  windowMs: number;
  /** Attempt cap; attempts above it are counted per episode (`overAttemptCap`). */
  attemptCap: number;
  /** Per-client retry budget, fraction of requests; episodes above it say so (`overBudget`). */
  clientBudget: number;
  /** Sample error_id/trace_id pairs kept per episode. */
  maxSamples: number;
}

/**
 * Default thresholds, with their sources:
 * - `retryRatio` 0.2 and `minRetriesPerMinute` 10: the retry budgets of Envoy
 *   (`retry_budget.budget_percent` default 20 %) and Finagle (`RetryBudget`: percentCanRetry 0.2,
 *   minRetriesPerSec 10 — here per minute, so a small client's few retries are not a storm).
 * - `amplification` 1.5 for `amplificationMinutes` 2: DESIGN §6 (attempts ÷ distinct requests).
 * - `flaggedRepeat` 2: "any flagged retries repeat" (DESIGN §6): one misbehaving retry is noise,
 *   the second within the window is a pattern.
 * - `windowMs` 10 min: the retry tracker's window, `RETRY_WINDOW_MS` of `src/protocol/` (DESIGN §6).
 * - `attemptCap` 5: `MAX_ATTEMPTS_CAP` of `src/protocol/retry.ts` — gRPC's cap on `maxAttempts`
 *   (gRFC A6) and DMC-12's 3–5 attempt ceiling (spec/dmc12-errors.txt "Retry strategy").
 * - `clientBudget` 0.1: Google SRE book ch. 22 "Handling Overload": per-client retry budget of 10 %.
 * - `maxSamples` 5: evidence pairs an incident email carries (issue 5).
 */
export const STORM_DEFAULTS: Readonly<StormThresholds> = Object.freeze({
  retryRatio: 0.2,
  minRetriesPerMinute: 10,
  amplification: 1.5,
  amplificationMinutes: 2,
  flaggedRepeat: 2,
  windowMs: RETRY_WINDOW_MS,
  attemptCap: MAX_ATTEMPTS_CAP,
  clientBudget: 0.1,
  maxSamples: 5,
});

const MINUTE = 60_000;

/** One minute of one client's calls to one skill (traffic counters plus flagged retries from error_events). */
export interface StormMinute {
  /** Start of the minute, epoch ms. */
  minute: number;
  /** Client pseudonym; '' when the caller sent no credential. */
  client: string;
  /** Skill or tool; '' when unknown. */
  skill: string;
  /** Every call, first attempts and retries. */
  requests: number;
  errors: number;
  /** Calls with attempt > 1. */
  retries: number;
  /** Retries carrying at least one retry flag. */
  flagged: number;
}

/** Why an episode is a storm. */
export type StormReason = 'retry-ratio' | 'amplification' | 'flagged-retries';

/** One minute of an episode, summed over its skills. */
export interface StormPoint {
  minute: number;
  requests: number;
  errors: number;
  retries: number;
  flagged: number;
}

/** An episode as detected from the series, before the store adds codes, flags and samples. */
export interface DetectedStorm {
  client: string;
  /** First stormy minute, epoch ms. */
  start: number;
  /** End of the last stormy minute (exclusive), epoch ms. */
  end: number;
  /** Skills with stormy minutes, sorted. */
  skills: string[];
  reasons: StormReason[];
  /** Every minute from start to end (quiet ones included), summed over `skills`. */
  series: StormPoint[];
  requests: number;
  errors: number;
  retries: number;
  flagged: number;
  /** retries ÷ requests over the episode (0 when no requests). */
  retryRatio: number;
  /** requests ÷ (requests − retries); Infinity (null in JSON) when every call was a retry. */
  amplification: number;
  /** Most calls in one minute. */
  peakPerMinute: number;
  /** Most retries in one minute. */
  peakRetriesPerMinute: number;
}

interface Span {
  client: string;
  start: number;
  end: number;
  skills: Set<string>;
  reasons: Set<StormReason>;
}

const REASON_ORDER: StormReason[] = ['retry-ratio', 'amplification', 'flagged-retries'];

/** Hot minutes of one (client, skill) series, sorted by minute, each with its reasons. */
function hotMinutes(series: StormMinute[], th: StormThresholds): Map<number, Set<StormReason>> {
  const hot = new Map<number, Set<StormReason>>();
  const mark = (m: number, r: StormReason): void => {
    const s = hot.get(m) ?? new Set<StormReason>();
    s.add(r);
    hot.set(m, s);
  };
  let run: number[] = [];
  const closeRun = (): void => {
    if (run.length >= th.amplificationMinutes) for (const m of run) mark(m, 'amplification');
    run = [];
  };
  let prev = Number.NaN;
  for (const s of series) {
    if (s.requests > 0 && s.retries >= th.minRetriesPerMinute && s.retries / s.requests > th.retryRatio) mark(s.minute, 'retry-ratio');
    const distinct = s.requests - s.retries;
    const amp = s.requests <= 0 ? 0 : distinct <= 0 ? Infinity : s.requests / distinct;
    if (amp >= th.amplification && s.retries > 0) {
      if (run.length && s.minute !== prev + MINUTE) closeRun();
      run.push(s.minute);
    } else closeRun();
    prev = s.minute;
  }
  closeRun();
  // Flagged retries repeat: a minute with flagged retries is hot when the window around it
  // (± windowMs) holds at least `flaggedRepeat` of them.
  const flagged = series.filter((s) => s.flagged > 0);
  for (const s of flagged) {
    let n = 0;
    for (const o of flagged) if (Math.abs(o.minute - s.minute) <= th.windowMs) n += o.flagged;
    if (n >= th.flaggedRepeat) mark(s.minute, 'flagged-retries');
  }
  return hot;
}

/**
 * Finds retry-storm episodes in per-minute series (DESIGN §6). A minute of a (client, skill)
 * is stormy when its retry ratio exceeds `retryRatio` with at least `minRetriesPerMinute`
 * retries, or it is part of a run of at least `amplificationMinutes` minutes with
 * amplification ≥ `amplification`, or flagged retries repeat (≥ `flaggedRepeat` within
 * ±`windowMs`). Stormy minutes of one client less than `windowMs` apart, on any of its skills,
 * merge into one episode. Samples with the same (minute, client, skill) are added together
 * (several services). Returns episodes sorted by start, then client. Never throws.
 */
export function detectStorms(samples: readonly StormMinute[], thresholds: Partial<StormThresholds> = {}): DetectedStorm[] {
  const th: StormThresholds = { ...STORM_DEFAULTS, ...thresholds };
  // Sum duplicates and split by (client, skill).
  const bySeries = new Map<string, Map<number, StormMinute>>();
  for (const s of samples) {
    const key = `${s.client}\u0000${s.skill}`;
    const m = bySeries.get(key) ?? new Map<number, StormMinute>();
    const cur = m.get(s.minute);
    if (cur) {
      cur.requests += s.requests;
      cur.errors += s.errors;
      cur.retries += s.retries;
      cur.flagged += s.flagged;
    } else m.set(s.minute, { ...s });
    bySeries.set(key, m);
  }
  // Hot minutes per series → spans per (client, skill).
  const spans: Span[] = [];
  for (const m of bySeries.values()) {
    const series = [...m.values()].sort((a, b) => a.minute - b.minute);
    const first = series[0];
    if (!first) continue;
    const hot = [...hotMinutes(series, th).entries()].sort((a, b) => a[0] - b[0]);
    let cur: Span | null = null;
    for (const [minute, reasons] of hot) {
      if (cur && minute - (cur.end - MINUTE) <= th.windowMs) {
        cur.end = minute + MINUTE;
        for (const r of reasons) cur.reasons.add(r);
      } else {
        cur = { client: first.client, start: minute, end: minute + MINUTE, skills: new Set([first.skill]), reasons: new Set(reasons) };
        spans.push(cur);
      }
    }
  }
  // Merge one client's spans across skills.
  spans.sort((a, b) => (a.client < b.client ? -1 : a.client > b.client ? 1 : a.start - b.start));
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && last.client === s.client && s.start - (last.end - MINUTE) <= th.windowMs) {
      last.end = Math.max(last.end, s.end);
      for (const k of s.skills) last.skills.add(k);
      for (const r of s.reasons) last.reasons.add(r);
    } else merged.push({ ...s, skills: new Set(s.skills), reasons: new Set(s.reasons) });
  }
  const out = merged.map((span) => summarise(span, (client, skill, minute) => bySeries.get(`${client}\u0000${skill}`)?.get(minute)));
  return out.sort((a, b) => a.start - b.start || (a.client < b.client ? -1 : a.client > b.client ? 1 : 0));
}

/** The bounds and causes of an episode, without its counts. */
export interface StormSpan {
  client: string;
  start: number;
  end: number;
  skills: readonly string[];
  reasons: readonly StormReason[];
}

/**
 * Recomputes an episode's series and counts from a complete set of its minutes (every minute
 * of the client's `skills` in [start, end), not only the ones detection looked at). Pure.
 */
export function summariseStorm(span: StormSpan, minutes: readonly StormMinute[]): DetectedStorm {
  const byKey = new Map<string, StormMinute>();
  for (const m of minutes) {
    if (m.client !== span.client) continue;
    const key = `${m.skill}\u0000${m.minute}`;
    const cur = byKey.get(key);
    if (cur) byKey.set(key, { ...cur, requests: cur.requests + m.requests, errors: cur.errors + m.errors, retries: cur.retries + m.retries, flagged: cur.flagged + m.flagged });
    else byKey.set(key, m);
  }
  return summarise(
    { client: span.client, start: span.start, end: span.end, skills: new Set(span.skills), reasons: new Set(span.reasons) },
    (_client, skill, minute) => byKey.get(`${skill}\u0000${minute}`),
  );
}

function summarise(span: Span, at: (client: string, skill: string, minute: number) => StormMinute | undefined): DetectedStorm {
  const skills = [...span.skills].sort();
  const series: StormPoint[] = [];
  for (let minute = span.start; minute < span.end; minute += MINUTE) {
    const p: StormPoint = { minute, requests: 0, errors: 0, retries: 0, flagged: 0 };
    for (const skill of skills) {
      const s = at(span.client, skill, minute);
      if (!s) continue;
      p.requests += s.requests;
      p.errors += s.errors;
      p.retries += s.retries;
      p.flagged += s.flagged;
    }
    series.push(p);
  }
  const sum = (f: (p: StormPoint) => number): number => series.reduce((acc, p) => acc + f(p), 0);
  const requests = sum((p) => p.requests);
  const retries = sum((p) => p.retries);
  return {
    client: span.client,
    start: span.start,
    end: span.end,
    skills,
    reasons: REASON_ORDER.filter((r) => span.reasons.has(r)),
    series,
    requests,
    errors: sum((p) => p.errors),
    retries,
    flagged: sum((p) => p.flagged),
    retryRatio: requests > 0 ? retries / requests : 0,
    amplification: requests - retries > 0 ? requests / (requests - retries) : requests > 0 ? Infinity : 0,
    peakPerMinute: Math.max(0, ...series.map((p) => p.requests)),
    peakRetriesPerMinute: Math.max(0, ...series.map((p) => p.retries)),
  };
}

/**
 * Who an episode blames (DESIGN §6, docs/storms.md): `client` when the client broke the retry
 * rules or amplified beyond the backoff policy; `dealer` when its retries are explained by
 * policy-conform retries of retryable dealer faults (a dealer-side episode, drafted to the
 * dealer's own on-call, never to the partner).
 */
export type StormCause = 'client' | 'dealer';

/** One minute of an episode with the retryable dealer faults answered in it (`retryableFault`). */
export interface CausePoint extends StormPoint {
  /** Errors in the minute that a client may retry under the policy (retryable dealer faults). */
  faults: number;
}

/**
 * The cause of an episode (DESIGN §6). A retry is explained when it follows a retryable dealer
 * fault: each fault answered in a minute explains one retry in that minute or the next (the
 * policy's longest wait, 20 s, and a typical `retry_after_ms` fit in that), and is used once.
 * The episode is the client's when any of these holds, else the dealer's:
 * - flagged retries repeat (≥ `flaggedRepeat` within `windowMs`: retried non-retryable, ignored
 *   `retry_after_ms`, no backoff — "faster than its schedule");
 * - attempts above the attempt cap (`overAttemptCap` > 0: "more attempts per request than its cap");
 * - the unexplained retries alone meet the retry-ratio rule or the amplification rule.
 * Pure; `series` sorted by minute, as `DetectedStorm.series` is. Never throws.
 */
export function stormCause(series: readonly CausePoint[], overAttemptCap: number, thresholds: Partial<StormThresholds> = {}): StormCause {
  const th: StormThresholds = { ...STORM_DEFAULTS, ...thresholds };
  if (overAttemptCap > 0) return 'client';
  let carry = 0;
  const unexplained: StormMinute[] = series.map((p) => {
    const available = p.faults + carry;
    const explained = Math.min(p.retries, available);
    // Only this minute's unused faults carry into the next one.
    carry = Math.min(available - explained, p.faults);
    return { minute: p.minute, client: '', skill: '', requests: p.requests, errors: p.errors, retries: p.retries - explained, flagged: p.flagged };
  });
  return hotMinutes(unexplained, th).size > 0 ? 'client' : 'dealer';
}
