/**
 * The retry policy as pure functions: previous outcome, attempt, budget tokens, clock and a random
 * number in; next delay or stop (with a reason) out. No timers, no I/O — `withRetries` applies it.
 *
 * Implements dmc12-errors.txt "Retry strategy" (retry only when retryable === true; exponential
 * backoff with jitter ~1 s → 2 s → 4 s, capped; a hard attempt ceiling of 3–5) and aap-errors.txt
 * RATE_LIMITED (wait `details.retry_after_ms` / `retry_after_seconds`) and "Buyer agents MUST honor
 * the value the dealer returns rather than the table default".
 */
import { BACKOFF_BASE_MS, BACKOFF_JITTER_FLOOR, BACKOFF_MAX_MS, BACKOFF_MULTIPLIER, backoffCeilingMs as ceilingOf } from '../protocol/index.js';
import type {
  JitterMode,
  RetryBudget,
  RetryBudgetOptions,
  RetryDecision,
  RetryInput,
  RetryPolicyOptions,
} from './types.js';

/**
 * Every default of the policy and the budget, in one place (units in the names: ms). Base delay,
 * multiplier, cap and equal jitter are the one backoff policy the server-side tracker also judges
 * by (protocol's `BACKOFF_*`: 0.5–1 s → 1–2 s → 2–4 s, capped at 20 s; DESIGN §6), so a client on
 * these defaults is never flagged `no_backoff`; 4 attempts and the budget are the client's own.
 */
export const RETRY_DEFAULTS = {
  maxAttempts: 4,
  baseDelayMs: BACKOFF_BASE_MS,
  multiplier: BACKOFF_MULTIPLIER,
  maxDelayMs: BACKOFF_MAX_MS,
  jitter: 'equal' as JitterMode,
  maxRetryAfterMs: 60_000,
  maxElapsedMs: Number.POSITIVE_INFINITY,
  retryTransportErrors: false,
  budget: { capacity: 10, successCredit: 0.1, retryCost: 1 },
} as const;

/** Policy options with every default filled in. */
export type ResolvedRetryPolicy = Required<RetryPolicyOptions>;

/** Budget options with every default filled in (and `minTokens` resolved to capacity / 2). */
export type ResolvedBudgetOptions = Required<RetryBudgetOptions>;

function checkNumber(name: string, value: unknown, min: number, allowInfinity = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (!allowInfinity && !Number.isFinite(value))) {
    throw new RangeError(`aap-triage/client: option "${name}" must be a number >= ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * Fills in defaults and checks every option.
 * @throws RangeError naming the option when a value is out of range (e.g. `maxAttempts: 0`).
 */
export function resolveRetryPolicy(options: RetryPolicyOptions = {}): ResolvedRetryPolicy {
  const jitter = options.jitter ?? RETRY_DEFAULTS.jitter;
  if (jitter !== 'full' && jitter !== 'equal' && jitter !== 'none') {
    throw new RangeError(`aap-triage/client: option "jitter" must be 'equal', 'full' or 'none', got ${String(jitter)}`);
  }
  const maxAttempts = checkNumber('maxAttempts', options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts, 1);
  if (!Number.isInteger(maxAttempts)) {
    throw new RangeError(`aap-triage/client: option "maxAttempts" must be an integer, got ${maxAttempts}`);
  }
  return {
    maxAttempts,
    baseDelayMs: checkNumber('baseDelayMs', options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs, 0),
    multiplier: checkNumber('multiplier', options.multiplier ?? RETRY_DEFAULTS.multiplier, 1),
    maxDelayMs: checkNumber('maxDelayMs', options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, 0, true),
    jitter,
    maxRetryAfterMs: checkNumber('maxRetryAfterMs', options.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs, 0, true),
    maxElapsedMs: checkNumber('maxElapsedMs', options.maxElapsedMs ?? RETRY_DEFAULTS.maxElapsedMs, 0, true),
    retryTransportErrors: options.retryTransportErrors ?? RETRY_DEFAULTS.retryTransportErrors,
  };
}

/**
 * Fills in budget defaults (`minTokens` = capacity / 2) and checks them.
 * @throws RangeError naming the option when a value is out of range.
 */
export function resolveBudgetOptions(options: RetryBudgetOptions = {}): ResolvedBudgetOptions {
  const capacity = checkNumber('budget.capacity', options.capacity ?? RETRY_DEFAULTS.budget.capacity, 0);
  return {
    capacity,
    successCredit: checkNumber('budget.successCredit', options.successCredit ?? RETRY_DEFAULTS.budget.successCredit, 0),
    retryCost: checkNumber('budget.retryCost', options.retryCost ?? RETRY_DEFAULTS.budget.retryCost, 0),
    minTokens: checkNumber('budget.minTokens', options.minTokens ?? capacity / 2, 0),
  };
}

/**
 * A new, full token bucket. Share one per dealer (or per process): its point is that many calls
 * failing together run out of retries together (Google SRE "retry budget"; gRPC retry throttling).
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  const resolved = resolveBudgetOptions(options);
  return { tokens: resolved.capacity, options: resolved };
}

/**
 * Capped exponential backoff before retry number `attempt` (the attempt that just failed),
 * before jitter, milliseconds: `min(maxDelayMs, baseDelayMs * multiplier^(attempt-1))`.
 */
export function backoffCeilingMs(attempt: number, policy: ResolvedRetryPolicy): number {
  return ceilingOf(attempt, { baseMs: policy.baseDelayMs, multiplier: policy.multiplier, maxMs: policy.maxDelayMs });
}

/**
 * Applies the jitter mode to a backoff ceiling (ms) with the given random number in [0, 1); ms.
 * `equal` draws from [`BACKOFF_JITTER_FLOOR`, 1] × the ceiling: never below the floor the
 * server-side tracker checks (DESIGN §6).
 */
export function jitterMs(ceilingMs: number, mode: JitterMode, random: number): number {
  switch (mode) {
    case 'full':
      return ceilingMs * random;
    case 'equal':
      return ceilingMs * (BACKOFF_JITTER_FLOOR + (1 - BACKOFF_JITTER_FLOOR) * random);
    case 'none':
      return ceilingMs;
  }
}

/**
 * Decides what to do after a failed attempt. Pure: same input, same output.
 *
 * Order of checks (first match stops): transport error without `retryTransportErrors`; the dealer's
 * `retryable` (false → `not-retryable`, null → `retryable-unknown`: never guessed from a code
 * table or an SDK exception class, as aap-errors.txt "SDK error handling" requires);
 * `maxAttempts`; a `retry_after` hint over `maxRetryAfterMs`; the budget (fewer than `minTokens`
 * tokens → `budget-exhausted`); `maxElapsedMs`.
 *
 * Delay (ms): the jittered capped backoff, raised to the dealer's `retry_after` when one was
 * given ("waits at least retry_after_ms"), rounded to a whole millisecond.
 *
 * @param input previous outcome, attempt number, tokens, clock, random number
 * @param policy resolved policy (`resolveRetryPolicy`)
 * @param budget resolved budget options, or `null` for no budget (tokens are passed through)
 * @returns `{ retry: true, delayMs, tokens }` (tokens after paying `retryCost`) or `{ retry: false, reason, tokens }`
 */
export function decideRetry(
  input: RetryInput,
  policy: ResolvedRetryPolicy,
  budget: ResolvedBudgetOptions | null,
): RetryDecision {
  const { outcome, attempt, tokens } = input;
  let retryAfterMs: number | null = null;
  if (outcome.kind === 'transport-error') {
    if (!policy.retryTransportErrors) return { retry: false, reason: 'transport-error', tokens };
  } else {
    if (outcome.retryable === false) return { retry: false, reason: 'not-retryable', tokens };
    if (outcome.retryable !== true) return { retry: false, reason: 'retryable-unknown', tokens };
    retryAfterMs = outcome.retryAfterMs !== null && Number.isFinite(outcome.retryAfterMs) ? Math.max(0, outcome.retryAfterMs) : null;
  }
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'max-attempts', tokens };
  if (retryAfterMs !== null && retryAfterMs > policy.maxRetryAfterMs) {
    return { retry: false, reason: 'retry-after-too-long', tokens };
  }
  if (budget !== null && tokens < budget.minTokens) return { retry: false, reason: 'budget-exhausted', tokens };

  const random = Math.min(Math.max(input.random, 0), 1);
  const backoff = jitterMs(backoffCeilingMs(attempt, policy), policy.jitter, random);
  const delayMs = Math.round(Math.max(backoff, retryAfterMs ?? 0));
  if (input.now + delayMs > input.startedAt + policy.maxElapsedMs) return { retry: false, reason: 'deadline', tokens };
  return { retry: true, delayMs, tokens: budget === null ? tokens : tokens - budget.retryCost };
}

/** Tokens after a successful call: `min(capacity, tokens + successCredit)`. Pure. */
export function creditSuccess(tokens: number, budget: ResolvedBudgetOptions): number {
  return Math.min(budget.capacity, tokens + budget.successCredit);
}
