/**
 * What every simulated buyer gets: its persona, a seeded PRNG, the run's deadline, counters, and
 * a polite retry helper (retry only when `retryable` is true, wait at least `retry_after_ms` and
 * at least the capped exponential backoff ~1 s · 2^(n−1) with jitter; spec/dmc12-errors.txt
 * "Retry strategy", DESIGN §6).
 */
import type { Rng } from '../rng.js';
import type { CallResult } from './outcome.js';
import type { Persona } from './personas.js';

/** Per-buyer counters, for the progress line and the report. */
export interface BuyerStats {
  requests: number;
  errors: number;
  retries: number;
  /** Count per error code. */
  codes: Record<string, number>;
}

/** Shared facts the scenario hands between buyers (e.g. the VIN one buyer holds). */
export interface ScenarioState {
  /** Resolves once holding-hana holds a VIN: the VIN and her reservation token. */
  held: Promise<{ vin: string; token: string } | null>;
  /** A quote and a hold created 45 / 40 minutes ago for steady-sofia (a resumed session). */
  stale: { quoteId: string; reservationToken: string };
  /** A revoked partner token steady-sofia still has in her config at start. */
  revokedToken: string;
}

/** Backoff policy limits. */
export const BACKOFF = {
  /** First retry waits at least this, ms. */
  baseMs: 1000,
  /** Longest single wait, ms. */
  capMs: 8000,
  /** Extra factor over the minimum, so jitter never lands below it. */
  margin: 1.3,
  /** Attempts in all (first + retries). */
  maxAttempts: 4,
  /**
   * Client-side retry budget: retries may be at most this share of the calls of the last
   * `budgetWindowMs` (Google SRE per-client retry budget, 10 %), at least one. A polite client
   * that keeps to it is never a storm by retry ratio, however unlucky its dealer is.
   */
  budgetRatio: 0.1,
  budgetWindowMs: 60_000,
} as const;

/** The context one buyer runs in. */
export class BuyerContext {
  readonly stats: BuyerStats = { requests: 0, errors: 0, retries: 0, codes: {} };
  /** Send times (epoch ms) of recent calls and of recent retries, for the retry budget. */
  private readonly recentCalls: number[] = [];
  private readonly recentRetries: number[] = [];

  constructor(
    readonly persona: Persona,
    readonly rng: Rng,
    /** Epoch ms after which the buyer stops. */
    readonly deadline: number,
    readonly signal: AbortSignal,
    readonly scenario: ScenarioState,
  ) {}

  /** True while the run lasts. */
  live(): boolean {
    return !this.signal.aborted && Date.now() < this.deadline;
  }

  /** Waits `ms` (cut short at the deadline); resolves false when the run is over. */
  async sleep(ms: number): Promise<boolean> {
    const wait = Math.max(0, Math.min(ms, this.deadline - Date.now()));
    if (wait > 0 && !this.signal.aborted) {
      const signal = this.signal;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, wait);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return this.live();
  }

  /** Counts one call's result; `retry` says whether it repeated an earlier call. */
  record(result: CallResult, retry = false): CallResult {
    this.stats.requests += 1;
    this.recentCalls.push(Date.now());
    if (retry) {
      this.stats.retries += 1;
      this.recentRetries.push(Date.now());
    }
    if (!result.ok) {
      this.stats.errors += 1;
      this.stats.codes[result.code] = (this.stats.codes[result.code] ?? 0) + 1;
    }
    return result;
  }

  /** Jittered pause between steps, ms in [min, max). */
  async pause(minMs: number, maxMs: number): Promise<boolean> {
    return this.sleep(minMs + this.rng.next() * (maxMs - minMs));
  }

  /** True when one more retry keeps this buyer within its retry budget (BACKOFF.budgetRatio). */
  private withinRetryBudget(): boolean {
    const since = Date.now() - BACKOFF.budgetWindowMs;
    for (const list of [this.recentCalls, this.recentRetries]) while (list.length > 0 && (list[0] as number) < since) list.shift();
    return this.recentRetries.length + 1 <= Math.max(1, BACKOFF.budgetRatio * this.recentCalls.length);
  }

  /**
   * Calls `fn` and retries it the polite way: only when the answer says `retryable: true`,
   * waiting max(retry_after_ms, 1 s · 2^(n−1)) × 1.3–1.5, at most 4 attempts in all, and only
   * while the retry budget allows.
   */
  async withRetry(fn: () => Promise<CallResult>): Promise<CallResult> {
    let result = this.record(await fn());
    for (let attempt = 2; attempt <= BACKOFF.maxAttempts && !result.ok && result.retryable === true; attempt++) {
      const backoff = Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** (attempt - 2));
      const wait = Math.max(result.retryAfterMs ?? 0, backoff) * (BACKOFF.margin + this.rng.next() * 0.2);
      if (!(await this.sleep(wait)) || !this.withinRetryBudget()) return result;
      result = this.record(await fn(), true);
    }
    return result;
  }
}
