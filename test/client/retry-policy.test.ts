/**
 * The pure retry policy, without a network. Expected delays are computed by hand from the
 * defaults the issue fixes (base 1 s, ×2, cap 20 s, equal jitter, 4 attempts, budget 10 tokens /
 * +0.1 per success / −1 per retry / none below 5).
 */
import { describe, expect, it } from 'vitest';
import {
  RETRY_DEFAULTS,
  backoffCeilingMs,
  createRetryBudget,
  creditSuccess,
  decideRetry,
  resolveBudgetOptions,
  resolveRetryPolicy,
} from '../../src/client/index.js';
import type { RetryInput } from '../../src/client/index.js';

const policy = resolveRetryPolicy();
const budget = resolveBudgetOptions();

function input(over: Partial<RetryInput> = {}): RetryInput {
  return {
    outcome: { kind: 'dealer-error', retryable: true, retryAfterMs: null },
    attempt: 1,
    tokens: 10,
    now: 1_000_000,
    startedAt: 1_000_000,
    random: 0.5,
    ...over,
  };
}

describe('defaults', () => {
  it('are the values the issue names', () => {
    expect(policy).toEqual({
      maxAttempts: 4,
      baseDelayMs: 1000,
      multiplier: 2,
      maxDelayMs: 20_000,
      jitter: 'equal',
      maxRetryAfterMs: 60_000,
      maxElapsedMs: Number.POSITIVE_INFINITY,
      retryTransportErrors: false,
    });
    expect(budget).toEqual({ capacity: 10, successCredit: 0.1, retryCost: 1, minTokens: 5 });
    expect(RETRY_DEFAULTS.maxAttempts).toBe(4);
    expect(createRetryBudget().tokens).toBe(10);
  });
});

describe('backoff', () => {
  it('grows 1 s, 2 s, 4 s, 8 s, 16 s and is capped at 20 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeilingMs(n, policy))).toEqual([1000, 2000, 4000, 8000, 16_000, 20_000, 20_000]);
  });

  it('equal jitter (the default) draws from [0.5, 1] × the ceiling: random 0.5 gives three quarters of it', () => {
    expect(decideRetry(input({ attempt: 1, random: 0.5 }), policy, budget)).toEqual({ retry: true, delayMs: 750, tokens: 9 });
    expect(decideRetry(input({ attempt: 2, random: 0 }), policy, budget)).toEqual({ retry: true, delayMs: 1000, tokens: 9 });
    expect(decideRetry(input({ attempt: 3, random: 0.9 }), policy, budget)).toEqual({ retry: true, delayMs: 3800, tokens: 9 });
    expect(decideRetry(input({ attempt: 1, random: 0.999999 }), policy, budget)).toMatchObject({ delayMs: 1000 });
  });

  it('full jitter draws uniformly below the ceiling; none waits the ceiling', () => {
    const full = resolveRetryPolicy({ jitter: 'full' });
    const none = resolveRetryPolicy({ jitter: 'none', maxAttempts: 10 });
    expect(decideRetry(input({ attempt: 3, random: 0.25 }), full, budget)).toMatchObject({ delayMs: 1000 });
    expect(decideRetry(input({ attempt: 1, random: 0 }), full, budget)).toMatchObject({ delayMs: 0 });
    expect(decideRetry(input({ attempt: 6, random: 0.7 }), none, budget)).toMatchObject({ delayMs: 20_000 });
  });

  it('rejects the jitter mode the old tracker needed (bounded) with the modes it accepts', () => {
    expect(() => resolveRetryPolicy({ jitter: 'bounded' as never })).toThrow(/"jitter" must be 'equal', 'full' or 'none', got bounded/);
  });

  it('honours custom base, multiplier and cap', () => {
    const p = resolveRetryPolicy({ baseDelayMs: 200, multiplier: 3, maxDelayMs: 1000, jitter: 'none', maxAttempts: 9 });
    expect([1, 2, 3].map((attempt) => decideRetry(input({ attempt }), p, null))).toEqual([
      { retry: true, delayMs: 200, tokens: 10 },
      { retry: true, delayMs: 600, tokens: 10 },
      { retry: true, delayMs: 1000, tokens: 10 },
    ]);
  });
});

describe('retry_after', () => {
  it('waits exactly retry_after_ms when it is longer than the jittered backoff', () => {
    const d = decideRetry(input({ outcome: { kind: 'dealer-error', retryable: true, retryAfterMs: 30_000 } }), policy, budget);
    expect(d).toEqual({ retry: true, delayMs: 30_000, tokens: 9 });
  });

  it('never waits less than retry_after_ms, and never less than the backoff either', () => {
    const none = resolveRetryPolicy({ jitter: 'none' });
    // Attempt 3: backoff 4000 ms > hint 200 ms.
    expect(decideRetry(input({ attempt: 3, outcome: { kind: 'dealer-error', retryable: true, retryAfterMs: 200 } }), none, budget)).toMatchObject({
      delayMs: 4000,
    });
  });

  it('is not capped by maxDelayMs, but a hint over maxRetryAfterMs stops the loop', () => {
    const long = input({ outcome: { kind: 'dealer-error', retryable: true, retryAfterMs: 45_000 } });
    expect(decideRetry(long, policy, budget)).toMatchObject({ retry: true, delayMs: 45_000 });
    const tooLong = input({ outcome: { kind: 'dealer-error', retryable: true, retryAfterMs: 60_001 } });
    expect(decideRetry(tooLong, policy, budget)).toEqual({ retry: false, reason: 'retry-after-too-long', tokens: 10 });
  });
});

describe('when not to retry', () => {
  it('never retries retryable=false, whatever the code table says', () => {
    expect(decideRetry(input({ outcome: { kind: 'dealer-error', retryable: false, retryAfterMs: 1000 } }), policy, budget)).toEqual({
      retry: false,
      reason: 'not-retryable',
      tokens: 10,
    });
  });

  it('does not guess when the envelope lost retryable', () => {
    expect(decideRetry(input({ outcome: { kind: 'dealer-error', retryable: null, retryAfterMs: null } }), policy, budget)).toMatchObject({
      retry: false,
      reason: 'retryable-unknown',
    });
  });

  it('stops after the 4th attempt by default', () => {
    expect(decideRetry(input({ attempt: 3 }), policy, budget).retry).toBe(true);
    expect(decideRetry(input({ attempt: 4 }), policy, budget)).toEqual({ retry: false, reason: 'max-attempts', tokens: 10 });
  });

  it('stops when the wait would end past maxElapsedMs', () => {
    const p = resolveRetryPolicy({ maxElapsedMs: 10_000, jitter: 'none' });
    // Attempt 2 backoff is 2000 ms: 9000 ms elapsed + 2000 > 10 000.
    expect(decideRetry(input({ attempt: 2, now: 9000, startedAt: 0 }), p, budget)).toMatchObject({ retry: false, reason: 'deadline' });
    expect(decideRetry(input({ attempt: 2, now: 8000, startedAt: 0 }), p, budget)).toMatchObject({ retry: true, delayMs: 2000 });
  });

  it('does not retry transport errors unless asked to', () => {
    const t = input({ outcome: { kind: 'transport-error' } });
    expect(decideRetry(t, policy, budget)).toMatchObject({ retry: false, reason: 'transport-error' });
    expect(decideRetry(t, resolveRetryPolicy({ retryTransportErrors: true }), budget)).toEqual({ retry: true, delayMs: 750, tokens: 9 });
  });
});

describe('retry budget', () => {
  it('retries at 5 tokens and not below', () => {
    expect(decideRetry(input({ tokens: 5 }), policy, budget)).toEqual({ retry: true, delayMs: 750, tokens: 4 });
    expect(decideRetry(input({ tokens: 4.9 }), policy, budget)).toEqual({ retry: false, reason: 'budget-exhausted', tokens: 4.9 });
  });

  it('credits 0.1 per success up to the capacity', () => {
    expect(creditSuccess(4, budget)).toBeCloseTo(4.1, 10);
    expect(creditSuccess(9.95, budget)).toBe(10);
    expect(creditSuccess(10, budget)).toBe(10);
  });

  it('lets a failure flood through for 6 retries from a full bucket, then none', () => {
    // Every attempt fails retryably. Call 1: 10→9→8→7 (3 retries, then max-attempts);
    // call 2: 7→6→5→4 (3 retries); call 3: 4 < 5, no retry. 4 + 4 + 1 = 9 requests.
    let tokens = 10;
    const requestsPerCall: number[] = [];
    const reasons: string[] = [];
    for (let call = 0; call < 3; call++) {
      let attempt = 1;
      for (;;) {
        const d = decideRetry(input({ attempt, tokens }), policy, budget);
        tokens = d.tokens;
        if (!d.retry) {
          reasons.push(d.reason);
          break;
        }
        attempt++;
      }
      requestsPerCall.push(attempt);
    }
    expect(requestsPerCall).toEqual([4, 4, 1]);
    expect(reasons).toEqual(['max-attempts', 'max-attempts', 'budget-exhausted']);
    expect(tokens).toBe(4);
  });

  it('passes tokens through when no budget is used', () => {
    expect(decideRetry(input({ tokens: 0 }), policy, null)).toEqual({ retry: true, delayMs: 750, tokens: 0 });
  });
});

describe('purity and option checks', () => {
  it('gives the same decision for the same input', () => {
    const i = input({ attempt: 2, random: 0.3141 });
    expect(decideRetry(i, policy, budget)).toEqual(decideRetry(i, policy, budget));
    expect(decideRetry(i, policy, budget)).toMatchObject({ delayMs: 1314 }); // round(2000 × (0.5 + 0.5 × 0.3141))
  });

  it('names the option and the value it rejects', () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(/"maxAttempts" must be a number >= 1, got 0/);
    expect(() => resolveRetryPolicy({ maxAttempts: 2.5 })).toThrow(/"maxAttempts" must be an integer/);
    expect(() => resolveRetryPolicy({ baseDelayMs: -1 })).toThrow(/"baseDelayMs"/);
    expect(() => resolveRetryPolicy({ jitter: 'sometimes' as never })).toThrow(/"jitter" must be 'equal', 'full' or 'none'/);
    expect(() => resolveBudgetOptions({ capacity: Number.NaN })).toThrow(/"budget.capacity"/);
  });
});
