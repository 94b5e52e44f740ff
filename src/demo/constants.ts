/**
 * Constants and defaults of the demo, in one place: the AAP extension URI, rate limits, TTLs and
 * the injected fault rate. Durations are milliseconds unless the name says otherwise.
 */

/**
 * The AAP extension URI the demo agent card declares `required: true`. The demo serves the 2.0
 * draft contract, which has no approved URI yet, and the spec's illustrative draft identifiers
 * "MUST NOT be deployed" (spec/aap-errors.txt; the builders refuse them), so the demo names its
 * own profile under a reserved `.example` host that can never be mistaken for a production one.
 */
export const AAP_EXTENSION_URI = 'https://aap-triage.example/extensions/aap/2.0-demo';

/** A2A protocol version the demo serves (the SDK answers anything else with -32009). */
export const A2A_VERSION = '1.0';

/** Header names on the wire. */
export const HEADERS = {
  version: 'A2A-Version',
  extensions: 'A2A-Extensions',
  authorization: 'authorization',
} as const;

/** Defaults of the two demo dealer agents. */
export const DEALER_DEFAULTS = {
  /** AAP per-client token bucket: burst size (requests) and refill (requests per second). */
  aapRateLimit: { capacity: 10, refillPerSecond: 5 },
  /** Smallest `retry_after_ms` the AAP dealer sends, so a polite client visibly waits. */
  aapMinRetryAfterMs: 1000,
  /** DMC-12 per-client token bucket. */
  dmc12RateLimit: { capacity: 8, refillPerSecond: 4 },
  /** Probability that `lead.submit` hits the injected CRM fault (INTERNAL_ERROR, retryable). */
  leadFaultRate: 0.08,
  /** Probability that `initiate_deal_handoff` hits the injected SMTP fault (UPSTREAM_UNAVAILABLE). */
  handoffFaultRate: 0.15,
  /** DMC-12 quote and hold lifetime: 30 minutes (spec/dmc12-errors.txt QUOTE_EXPIRED, RESERVATION_EXPIRED). */
  dmc12TtlMs: 30 * 60 * 1000,
} as const;

/** Demo command defaults. */
export const DEMO_DEFAULTS = {
  /** Simulated traffic duration, ms. */
  durationMs: 60_000,
  /** Audit database written by the demo. */
  dbPath: './aap-triage-demo.db',
  /** PRNG seed. */
  seed: 12,
  /** Service names written on audit rows. */
  aapService: 'demo-motors-aap',
  dmc12Service: 'demo-motors-dmc12',
  /** How many dealer agents the demo runs (AAP and DMC-12); stated in its output. */
  dealerAgents: 2,
  /**
   * Margin, ms, added on both sides of the traffic when the demo reads back its database: the
   * triage functions group by whole minutes (storm minutes start on the minute), so a window that
   * starts and ends a minute outside the run includes the first and last minute whole.
   */
  analysisMarginMs: 60_000,
  /**
   * With `--keep-serving`, how often the instrumentation writes its traffic counters, ms (the
   * servers stay up, so no shutdown flush comes before the report); the report waits one interval
   * plus `trafficFlushSlackMs` so it sees the whole run.
   */
  trafficFlushIntervalMs: 2000,
  trafficFlushSlackMs: 500,
} as const;
