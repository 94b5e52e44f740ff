/**
 * What every simulated buyer gets: its persona, a seeded PRNG, the run's deadline and abort
 * signal, counters, and the retry options every healthy call hands to `withRetries` from
 * `aap-triage/client` (the client's default policy: retry only when `retryable` is true, wait at
 * least `retry_after_ms` and the equal-jittered backoff 0.5–1 × 1 s · 2^(n−1), 4 attempts, one
 * retry budget per buyer; spec/dmc12-errors.txt "Retry strategy", DESIGN §6).
 */
import { createNoopMeter, type MeterProvider } from '@opentelemetry/api';
import { createRetryBudget, type RetryBudget, type WithRetriesOptions } from '../../client/index.js';
import type { Rng } from '../rng.js';
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

/**
 * The buyers' meter provider: none. Each simulated buyer stands for another company's process;
 * its `rpc.client.*` / `aap.client.*` metrics would never reach the dealer's exporter, so they do
 * not reach the demo host's (global) one either (the golden scrape holds the dealer's names only).
 */
export const BUYER_METER_PROVIDER: MeterProvider = { getMeter: () => createNoopMeter() };

/** The context one buyer runs in. */
export class BuyerContext {
  readonly stats: BuyerStats = { requests: 0, errors: 0, retries: 0, codes: {} };
  /**
   * This buyer's retry budget (the client's token bucket: 10 tokens, −1 per retry, +0.1 per
   * success, none below 5 — Google SRE's per-client budget). A polite client that keeps to it is
   * never a storm by retry ratio, however unlucky its dealer is.
   */
  private readonly budget: RetryBudget = createRetryBudget();

  constructor(
    readonly persona: Persona,
    readonly rng: Rng,
    /** Epoch ms after which the buyer stops. */
    readonly deadline: number,
    /** Aborts at the deadline (or when the demo is stopped): ends waits and in-flight calls. */
    readonly signal: AbortSignal,
    readonly scenario: ScenarioState,
  ) {}

  /** Options for `withRetries`: the client's defaults, this buyer's budget, the run's signal. */
  retryOptions(): WithRetriesOptions {
    // No give-up log line: the demo prints its own report, and the audit store has every error.
    return { budget: this.budget, signal: this.signal, logger: false, meterProvider: BUYER_METER_PROVIDER };
  }

  /** Counts one request sent; `attempt` is its `aap-attempt` number (> 1: a retry), null outside `withRetries`. */
  countRequest(attempt: number | null): void {
    this.stats.requests += 1;
    if (attempt !== null && attempt > 1) this.stats.retries += 1;
  }

  /** Counts one error answer, by code. */
  countError(code: string): void {
    this.stats.errors += 1;
    this.stats.codes[code] = (this.stats.codes[code] ?? 0) + 1;
  }

  /** Counts the last request as a repeat of an earlier one the buyer resent by hand (not through `withRetries`). */
  countRepeat(): void {
    this.stats.retries += 1;
  }

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

  /** Jittered pause between steps, ms in [min, max). */
  async pause(minMs: number, maxMs: number): Promise<boolean> {
    return this.sleep(minMs + this.rng.next() * (maxMs - minMs));
  }
}
