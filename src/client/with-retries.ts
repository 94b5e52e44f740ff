/**
 * `withRetries` and `callWithDetails`: run a call (an SDK call or a plain fetch through
 * `createAapFetch`), pick up the `DealerAgentError` the adapter recorded during it, and apply the
 * pure retry policy (retry-policy.ts) with an injectable clock, sleep and random source.
 */
import { currentScope, runInScope } from './call-scope.js';
import type { CallScope } from './call-scope.js';
import { DealerAgentError } from './dealer-error.js';
import { createRetryBudget, creditSuccess, decideRetry, resolveRetryPolicy } from './retry-policy.js';
import { countRetry, createClientTelemetry, logGiveUp } from './telemetry.js';
import type { ClientTelemetry } from './telemetry.js';
import type { AttemptRecord } from './attempt.js';
import type { AttemptContext, RetryBudget, WithRetriesOptions } from './types.js';

let processBudget: RetryBudget | undefined;

/** The process-wide budget `withRetries` uses when none is given (created on first use, full). */
export function defaultRetryBudget(): RetryBudget {
  processBudget ??= createRetryBudget();
  return processBudget;
}

/** Default sleep: the global `setTimeout` looked up at call time, so fake timers apply. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The error an attempt ended with: the last `DealerAgentError` the adapter recorded in it (the
 * SDK's own exception, if any, becomes its `cause`), else the thrown error itself.
 */
async function settle<T>(
  scope: CallScope,
  run: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; dealer: DealerAgentError | null; thrown: unknown }> {
  let value: T;
  try {
    value = await run;
  } catch (err) {
    const dealer = scope.errors.at(-1) ?? (err instanceof DealerAgentError ? err : null);
    if (dealer !== null && dealer !== err && dealer.cause === undefined) dealer.cause = err;
    return { ok: false, dealer, thrown: err };
  }
  const dealer = scope.errors.at(-1);
  // The call returned, but the dealer answered with an error the SDK does not see as one
  // (a DMC-12 error inside a successful result, a failed task): still a failed attempt.
  if (dealer !== undefined) return { ok: false, dealer, thrown: dealer };
  return { ok: true, value };
}

/**
 * Runs `call` once in an attempt scope and, if the dealer answered with an error, throws the
 * `DealerAgentError` the adapter recorded (with the SDK's exception as `cause`) instead of the
 * SDK's lossy exception. No retries, no attempt header.
 *
 * @throws DealerAgentError when the dealer answered with an error (also a DMC-12 result error
 *   the call itself returned normally); otherwise whatever `call` threw.
 */
export async function callWithDetails<T>(call: () => Promise<T>): Promise<T> {
  return runInScope(currentScope()?.attempt ?? null, async (scope) => {
    const result = await settle(scope, call());
    if (result.ok) return result.value;
    throw result.dealer ?? result.thrown;
  });
}

/**
 * Runs `call` with retries per the policy (dmc12-errors.txt "Retry strategy"): retry only when the
 * dealer said `retryable: true`; wait at least its `retry_after_ms`; otherwise capped exponential
 * backoff with jitter; at most `maxAttempts`; draw each retry from the budget. Each attempt runs
 * in a scope whose number `createAapFetch` sends as the `aap-attempt` header.
 *
 * An attempt fails when the adapter recorded a dealer error during it (even if `call` resolved —
 * a DMC-12 result error) or when `call` threw. Successes credit the budget.
 *
 * @param call receives `{ attempt, signal }`; pass `signal` on to the SDK (`RequestOptions.signal`).
 * @returns what the successful attempt returned.
 * @throws DealerAgentError of the last attempt, with `attempts` (code, error_id, trace_id of every
 *   attempt), `stopReason` and `summary()`; a non-dealer error (network) is rethrown as is when it
 *   is not retried; the signal's reason when aborted during a wait.
 * @throws RangeError for an invalid option (at call time, before any attempt).
 */
export async function withRetries<T>(call: (ctx: AttemptContext) => Promise<T>, options: WithRetriesOptions = {}): Promise<T> {
  const policy = resolveRetryPolicy(options);
  const budget = options.budget === false ? null : (options.budget ?? defaultRetryBudget());
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const telemetry: ClientTelemetry = createClientTelemetry(options);
  const startedAt = now();
  const attempts: AttemptRecord[] = [];

  for (let attempt = 1; ; attempt++) {
    const attemptStart = now();
    const result = await runInScope(attempt, (scope) => settle(scope, call({ attempt, signal: options.signal })));
    if (result.ok) {
      if (budget !== null) budget.tokens = creditSuccess(budget.tokens, budget.options);
      return result.value;
    }
    const { dealer, thrown } = result;
    attempts.push(
      dealer !== null
        ? dealer.asAttemptRecord(attempt, attemptStart)
        : { attempt, startedAt: attemptStart, code: 'TRANSPORT_ERROR', errorId: null, traceId: null, retryAfterMs: null, delayMs: null },
    );
    const decision = options.signal?.aborted
      ? ({ retry: false, reason: 'aborted', tokens: budget?.tokens ?? 0 } as const)
      : decideRetry(
          {
            outcome: dealer !== null ? { kind: 'dealer-error', retryable: dealer.retryable, retryAfterMs: dealer.retryAfterMs } : { kind: 'transport-error' },
            attempt,
            tokens: budget?.tokens ?? 0,
            now: now(),
            startedAt,
            random: random(),
          },
          policy,
          budget?.options ?? null,
        );

    if (!decision.retry) {
      if (dealer === null) throw thrown;
      dealer.attempts = attempts;
      dealer.stopReason = decision.reason;
      logGiveUp(telemetry, dealer, decision.reason);
      throw dealer;
    }
    if (budget !== null) budget.tokens = decision.tokens;
    const last = attempts.at(-1);
    if (last) last.delayMs = decision.delayMs;
    countRetry(telemetry, dealer);
    if (options.onRetry) {
      try {
        options.onRetry({ attempt, delayMs: decision.delayMs, error: dealer ?? thrown });
      } catch {
        // Observers must not change the retry loop.
      }
    }
    await sleep(decision.delayMs, options.signal);
  }
}
