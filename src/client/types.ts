/**
 * Public options and shapes of `aap-triage/client`. Every option is optional and documented with
 * its default and unit; the defaults live in one object, `RETRY_DEFAULTS` (retry-policy.ts).
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { StopReason } from './attempt.js';
import type { DealerAgentError } from './dealer-error.js';

/**
 * How a backoff delay is randomised (AWS Architecture Blog, "Exponential Backoff And Jitter").
 * - `equal` (default): uniform in [0.5, 1] × backoff — the one backoff policy (protocol's
 *   `BACKOFF_JITTER_FLOOR`), never sooner than aap-triage's server-side retry tracker allows, so
 *   never flagged `no_backoff` (DESIGN §6).
 * - `full`: uniform in [0, backoff) — spreads a fleet the most, but about half its retries come
 *   sooner than the floor and are flagged `no_backoff` by dealers instrumented with aap-triage.
 * - `none`: exactly the capped backoff (tests, single clients).
 */
export type JitterMode = 'equal' | 'full' | 'none';

/** Retry policy knobs (spec: dmc12-errors.txt "Retry strategy"; aap-errors.txt RATE_LIMITED / INTERNAL_ERROR). */
export interface RetryPolicyOptions {
  /**
   * Most attempts of one call, the first included (DMC-12: a hard ceiling of 3–5).
   * @default 4
   */
  maxAttempts?: number;
  /**
   * Backoff before the first retry, milliseconds; retry n waits up to `baseDelayMs * multiplier^(n-1)`.
   * @default 1000
   */
  baseDelayMs?: number;
  /**
   * Growth factor of the backoff between retries.
   * @default 2
   */
  multiplier?: number;
  /**
   * Cap on the computed backoff, milliseconds. Does not cap a server's `retry_after_ms`.
   * @default 20000
   */
  maxDelayMs?: number;
  /**
   * Randomisation of the computed backoff.
   * @default 'equal'
   */
  jitter?: JitterMode;
  /**
   * Longest server-requested wait (`retry_after_ms` / `retry_after_seconds`) the client will sit
   * out, milliseconds; a longer hint stops the loop (`retry-after-too-long`) so the caller can
   * decide instead of a request hanging for minutes.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * Wall-clock limit for the whole call, all attempts and waits, milliseconds: a retry whose wait
   * would end past `startedAt + maxElapsedMs` is not made (`deadline`).
   * @default Infinity (no limit)
   */
  maxElapsedMs?: number;
  /**
   * Retry calls that failed without any dealer answer (connection refused, reset, timeout).
   * NOTE: off by default because a non-idempotent call may have reached the dealer.
   * @default false
   */
  retryTransportErrors?: boolean;
}

/** Retry budget knobs: a token bucket shared by every call that uses the same budget. */
export interface RetryBudgetOptions {
  /**
   * Tokens in a full bucket (and the starting count).
   * @default 10
   */
  capacity?: number;
  /**
   * Tokens a successful call adds back (up to `capacity`).
   * @default 0.1
   */
  successCredit?: number;
  /**
   * Tokens each retry costs.
   * @default 1
   */
  retryCost?: number;
  /**
   * No retry is made while the bucket holds fewer tokens than this ("no retry below half").
   * @default capacity / 2 (5)
   */
  minTokens?: number;
}

/** Mutable token bucket shared across calls; create with `createRetryBudget`. */
export interface RetryBudget {
  /** Tokens now (a fraction is possible after success credits). */
  tokens: number;
  readonly options: Required<RetryBudgetOptions>;
}

/** What the previous attempt ended with, as far as the retry policy cares. */
export type AttemptOutcome =
  | { kind: 'dealer-error'; retryable: boolean | null; retryAfterMs: number | null }
  | { kind: 'transport-error' };

/** Input of the pure retry policy (`decideRetry`). Times are epoch milliseconds. */
export interface RetryInput {
  /** The failed attempt's outcome. */
  outcome: AttemptOutcome;
  /** Number of the attempt that just failed, 1 for the first. */
  attempt: number;
  /** Budget tokens before this decision. */
  tokens: number;
  /** Now, epoch ms. */
  now: number;
  /** When the first attempt started, epoch ms (for `maxElapsedMs`). */
  startedAt: number;
  /** A random number in [0, 1) for the jitter (injected so the function stays pure). */
  random: number;
}

/** Output of the pure retry policy: wait `delayMs` then retry, or stop with a reason. */
export type RetryDecision =
  | { retry: true; delayMs: number; tokens: number }
  | { retry: false; reason: StopReason; tokens: number };

/** Telemetry wiring shared by `createAapFetch` and `withRetries`. */
export interface ClientTelemetryOptions {
  /**
   * Tracer provider for the client spans.
   * @default the global provider (`trace.getTracerProvider()`); a no-op until an SDK registers one.
   */
  tracerProvider?: TracerProvider;
  /**
   * Meter provider for `rpc.client.call.duration`, `aap.client.errors`, `aap.client.retries`.
   * @default the global provider (`metrics.getMeterProvider()`).
   */
  meterProvider?: MeterProvider;
  /**
   * pino logger for the one line per given-up call (allow-listed fields only), or `false` for none.
   * @default a pino logger at `warn` writing to stderr
   */
  logger?: Logger | false;
  /**
   * Skill and tool names reported by name in `aap.skill` (span and metric label); any other
   * becomes `_OTHER`. A caller can send any tool name, so the label is allow-listed to keep metric
   * cardinality bounded (DESIGN §4), as the server side's `knownSkills` does.
   * @default KNOWN_SKILLS from `aap-triage/protocol` (the five AAP skills and the DMC-12 tools)
   */
  knownSkills?: readonly string[];
}

/** Options of `createAapFetch`. */
export interface AapFetchOptions extends ClientTelemetryOptions {
  /**
   * The fetch that actually sends (e.g. one wrapped by `createAuthenticatingFetchWithRetry`).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * `false` (default): return the dealer's Response unchanged, so the SDK converts errors as it
   * always does; the rich error is recorded for `withRetries` / `callWithDetails` / `dealerErrorsOf`.
   * `true`: throw the `DealerAgentError` from the fetch itself, before the SDK sees the response
   * (the SDK passes it through unchanged). See docs/client.md "How errors surface".
   * @default false
   */
  throwOnError?: boolean;
  /** Called once per error the dealer sent, before the Response is returned; exceptions in it are swallowed. */
  onError?: (error: DealerAgentError) => void;
  /**
   * Inject W3C `traceparent` for the client span into the request, so the dealer's server span
   * joins the buyer's trace.
   * @default true
   */
  propagateContext?: boolean;
  /**
   * Bodies longer than this many bytes (by `Content-Length`, or as read) are not inspected; the
   * call is still timed and returned unchanged.
   * @default 8388608 (8 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Retry inside the fetch, invisibly to the SDK: a retryable dealer error makes the adapter wait
   * and re-send the same request (same body, next `aap-attempt`) per the policy; when the policy
   * stops, the last Response is returned (or, with `throwOnError`, the `DealerAgentError` with
   * its `attempts` is thrown). `true` uses the defaults. Not applied inside `withRetries` (the
   * outer loop owns retries) nor to a `Request` whose body cannot be re-sent.
   * @default false
   */
  retry?: boolean | Omit<WithRetriesOptions, 'signal' | 'onRetry' | 'tracerProvider' | 'meterProvider' | 'logger' | 'knownSkills'>;
}

/** Options of `withRetries`. */
export interface WithRetriesOptions extends RetryPolicyOptions, ClientTelemetryOptions {
  /**
   * Token bucket to draw retries from. Share one per dealer (or per process) so a fleet of calls
   * cannot turn into a storm; `false` disables the budget.
   * @default a process-wide budget with the default `RetryBudgetOptions`
   */
  budget?: RetryBudget | false;
  /**
   * Clock, epoch milliseconds.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Waits `ms` milliseconds; rejects when `signal` aborts. Injected for tests (fake timers work
   * with the default, which calls the global `setTimeout` at call time).
   * @default a setTimeout-based sleep
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Random numbers in [0, 1) for the jitter.
   * @default Math.random
   */
  random?: () => number;
  /** Abort the loop (an in-flight wait rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Called before each wait with the attempt that failed and the chosen delay (ms). */
  onRetry?: (info: { attempt: number; delayMs: number; error: DealerAgentError | unknown }) => void;
}

/** What `withRetries` hands the call on each attempt. */
export interface AttemptContext {
  /** 1-based attempt number; `createAapFetch` sends it as the `aap-attempt` header. */
  attempt: number;
  /** The loop's abort signal, to pass on to the SDK's `RequestOptions.signal`. */
  signal: AbortSignal | undefined;
}
