/**
 * One backoff policy on both sides (issue 18, DESIGN §6): the client's default retry loop and the
 * server-side retry tracker read the same constants (src/protocol/retry.ts), so a client on the
 * defaults is never flagged `no_backoff`, while a client that retries with no backoff always is.
 *
 * Across many seeds: the real `withRetries` + `createAapFetch` (its `fetch` option answers each
 * attempt with a real DMC-12 RATE_LIMITED envelope from `buildDmc12Error`, no retry hint, so only
 * the backoff spaces the attempts) and the real `RetryTracker`, fed each request's time, its
 * `aap-attempt` header and the time its answer left. One seeded clock drives both: a random
 * network latency passes between request and answer, and the client's injected `sleep` moves it.
 */
import { describe, expect, it } from 'vitest';
import { createAapFetch, withRetries } from '../../src/client/index.js';
import type { WithRetriesOptions } from '../../src/client/index.js';
import { createRng } from '../../src/demo/rng.js';
import type { Rng } from '../../src/demo/rng.js';
import { RetryTracker } from '../../src/instrument/exchange/retry-tracker.js';
import { HEADER_ATTEMPT, MAX_ATTEMPTS_CAP, buildDmc12Error } from '../../src/protocol/index.js';
import type { RetryFlag } from '../../src/protocol/index.js';

const SEEDS = 500;
const URL_ = 'http://dealer.example.com/rpc';

/** Runs one call with `options` until it gives up; returns the tracker's flags per retry. */
async function flagsOfOneCall(rng: Rng, options: WithRetriesOptions): Promise<RetryFlag[][]> {
  let now = Date.UTC(2026, 11, 1, 9, 0, 0);
  const tracker = new RetryTracker();
  const flags: RetryFlag[][] = [];
  const dealer: typeof fetch = async (_input, init) => {
    const header = new Headers(init?.headers).get(HEADER_ATTEMPT);
    const requestAt = now;
    now += Math.floor(rng.next() * 40); // the dealer's latency, 0–39 ms
    const seen = tracker.record('client\u0000call', requestAt, header === null ? null : Number(header), {
      at: now,
      ok: false,
      retryable: true,
      retryAfterMs: null,
    });
    if (seen.attempt > 1) flags.push(seen.flags);
    const result = buildDmc12Error('RATE_LIMITED', { tool: 'search_inventory' });
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result }), { headers: { 'content-type': 'application/json' } });
  };
  const aapFetch = createAapFetch({ fetch: dealer, logger: false });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_inventory', arguments: { make: 'Toyota' } } });
  await expect(
    withRetries(() => aapFetch(URL_, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), {
      logger: false,
      budget: false,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      random: () => rng.next(),
      ...options,
    }),
  ).rejects.toMatchObject({ code: 'RATE_LIMITED', stopReason: 'max-attempts' });
  return flags;
}

describe('one backoff policy for the client and the server-side tracker', () => {
  it(`never flags a client on the defaults (${SEEDS} seeds, up to ${MAX_ATTEMPTS_CAP} attempts each)`, async () => {
    let retries = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const flags = await flagsOfOneCall(createRng(seed), { maxAttempts: MAX_ATTEMPTS_CAP });
      expect(flags, `seed ${seed}`).toHaveLength(MAX_ATTEMPTS_CAP - 1);
      for (const f of flags) expect(f, `seed ${seed}`).not.toContain('no_backoff');
      retries += flags.length;
    }
    expect(retries).toBe(SEEDS * (MAX_ATTEMPTS_CAP - 1));
  });

  it(`always flags a client that retries with no backoff (${SEEDS} seeds)`, async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const flags = await flagsOfOneCall(createRng(seed), { maxAttempts: MAX_ATTEMPTS_CAP, baseDelayMs: 0 });
      expect(flags, `seed ${seed}`).toHaveLength(MAX_ATTEMPTS_CAP - 1);
      for (const f of flags) expect(f, `seed ${seed}`).toContain('no_backoff');
    }
  });

  it('flags about half the retries of a client that picks full jitter instead (why it is not the default)', async () => {
    let flagged = 0;
    let retries = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const flags = await flagsOfOneCall(createRng(seed), { jitter: 'full' });
      retries += flags.length;
      flagged += flags.filter((f) => f.includes('no_backoff')).length;
    }
    expect(flagged / retries).toBeGreaterThan(0.4);
    expect(flagged / retries).toBeLessThan(0.6);
  });
});
