/**
 * In-memory retry tracker (DESIGN §6): knows each call's attempt number from the last time the
 * same `(client, idempotency key)` — or, without one, `(client, fingerprint)` — was seen within
 * the window, and flags retries that break the contract. Bounded: at most `maxKeys` keys, least
 * recently seen evicted first; keys idle longer than the window are dropped in periodic sweeps.
 *
 * Why sweeps and batches: a Map is kept in recency order by deleting and re-adding a key, which
 * leaves a hole; reading its oldest entry (`keys().next()`) walks over every hole in front of it
 * until V8 next compacts the table. Done on every call, as before, that cost 12–46 µs per call once
 * 50 000 keys were held (bench: a record in a tight loop, after the first 50 000). The walk now
 * runs once per sweep or eviction batch, so its cost is shared by the calls in between.
 */
import type { RetryFlag } from '../../protocol/error-event.js';
import { dropOldest } from '../bounded-map.js';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, BACKOFF_MULTIPLIER, RETRY_WINDOW_MS, backoffFloorMs } from '../../protocol/retry.js';

/** Tracker settings; all times in milliseconds. */
export interface RetryTrackerOptions {
  /** A call seen again within this many ms is a retry. @default 600_000 */
  windowMs: number;
  /** Most keys remembered; past it the least recently seen sixteenth is evicted at once. @default 50_000 */
  maxKeys: number;
  /** First backoff step, ms (DMC-12: ~1 s → 2 s → 4 s). @default 1_000 */
  baseDelayMs: number;
  /** Growth of the backoff per retry. @default 2 */
  multiplier: number;
  /** Backoff cap, ms. @default 20_000 */
  maxDelayMs: number;
}

/**
 * Tracker defaults; the window and the backoff shape are DESIGN §6's one policy (src/protocol/retry.ts),
 * the same numbers the client's `RETRY_DEFAULTS` start from.
 */
export const RETRY_TRACKER_DEFAULTS: RetryTrackerOptions = {
  windowMs: RETRY_WINDOW_MS,
  maxKeys: 50_000,
  baseDelayMs: BACKOFF_BASE_MS,
  multiplier: BACKOFF_MULTIPLIER,
  maxDelayMs: BACKOFF_MAX_MS,
};

/** How a call ended, as the next attempt is judged against it. */
export interface CallResult {
  /** When the response was sent, epoch ms. */
  at: number;
  ok: boolean;
  retryable: boolean | null;
  retryAfterMs: number | null;
}

interface Entry {
  attempts: number;
  lastRequestAt: number;
  last: CallResult | null;
}

export interface Attempt {
  /** 1 for a first attempt. */
  attempt: number;
  flags: RetryFlag[];
}

/**
 * Smallest acceptable gap before retry number `n` (1 = first retry), ms: the floor of the one
 * backoff policy, `BACKOFF_JITTER_FLOOR` × capped `base · multiplier^(n−1)` (protocol's
 * `backoffFloorMs`; the client's equal jitter never goes below it).
 */
export function minBackoffMs(n: number, o: RetryTrackerOptions): number {
  return backoffFloorMs(n, { baseMs: o.baseDelayMs, multiplier: o.multiplier, maxMs: o.maxDelayMs });
}

/** A tracker key: the instrumentation's numeric call key (call-key.ts), or any string. */
export type TrackerKey = number | string;

/** Least interval between two sweeps of idle keys, ms (the window is minutes; a second late is nothing). */
const SWEEP_INTERVAL_MS = 1_000;

export class RetryTracker {
  private readonly entries = new Map<TrackerKey, Entry>();
  readonly options: RetryTrackerOptions;
  /** Keys evicted at once when the bound is passed: 1/16 of it, so one walk serves many calls. */
  private readonly evictBatch: number;
  private nextSweepAt = -Infinity;

  constructor(options: Partial<RetryTrackerOptions> = {}) {
    this.options = { ...RETRY_TRACKER_DEFAULTS, ...options };
    this.evictBatch = Math.max(1, Math.floor(this.options.maxKeys / 16));
  }

  /** Keys remembered now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Records a call arriving at `requestAt` (epoch ms) and returns its attempt number and flags.
   * `key` null (no fingerprint) means untracked: attempt 1, or `headerAttempt` when the client
   * sent one. `result` is how this call ended; it is what the next attempt is judged against.
   */
  record(key: TrackerKey | null, requestAt: number, headerAttempt: number | null, result: CallResult): Attempt {
    if (key === null) return { attempt: headerAttempt ?? 1, flags: [] };
    // Also after the clock stepped back by more than a sweep interval.
    if (requestAt >= this.nextSweepAt || requestAt < this.nextSweepAt - 2 * SWEEP_INTERVAL_MS) this.sweep(requestAt);
    const prev = this.entries.get(key);
    const live = prev !== undefined && requestAt - prev.lastRequestAt <= this.options.windowMs;
    const attempt = headerAttempt ?? (live ? prev.attempts + 1 : 1);
    const flags: RetryFlag[] = [];
    const last = live ? prev.last : null;
    if (attempt > 1 && last && !last.ok) {
      const gap = requestAt - last.at;
      if (last.retryable === false) flags.push('retried_non_retryable');
      if (last.retryAfterMs !== null && gap < last.retryAfterMs) flags.push('ignored_retry_after');
      if (gap < minBackoffMs(attempt - 1, this.options)) flags.push('no_backoff');
    }
    if (prev) this.entries.delete(key);
    this.entries.set(key, { attempts: Math.max(attempt, live ? prev.attempts + 1 : 1), lastRequestAt: requestAt, last: result });
    if (this.entries.size > this.options.maxKeys) dropOldest(this.entries, this.entries.size - this.options.maxKeys + this.evictBatch - 1);
    return { attempt, flags };
  }

  /** Drops every key idle longer than the window (they sit at the front: insertion = recency order). */
  private sweep(now: number): void {
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [k, e] of this.entries) {
      if (now - e.lastRequestAt <= this.options.windowMs) return;
      this.entries.delete(k);
    }
  }
}
