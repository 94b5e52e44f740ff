/**
 * `createAapFetch` + `withRetries` under the real `@a2a-js/sdk` 1.3 client, against a real
 * `@a2a-js/sdk` dealer agent (fixtures/aap-dealer.ts) answering with the reference AAP vectors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  DealerAgentError,
  callWithDetails,
  createAapFetch,
  createRetryBudget,
  dealerErrorsOf,
  withRetries,
} from '../../src/client/index.js';
import type { AttemptRecord } from '../../src/client/index.js';
import { startAapDealer } from './fixtures/aap-dealer.js';
import type { AapDealerFixture } from './fixtures/aap-dealer.js';
import { createSdkClient, searchMessage } from './fixtures/sdk-client.js';
import { createTestTelemetry } from './fixtures/telemetry.js';
import { clientVectors } from './fixtures/reference-items.js';
import type { AapErrorVector } from './fixtures/reference-items.js';
import { HAVE_REFERENCE, SKIP_REASON } from '../protocol/reference.js';

// Every case here answers with shared reference vectors, so all skip where ../shared is absent.
if (!HAVE_REFERENCE) console.info(`skipping the @a2a-js/sdk client cases (they answer with reference vectors): ${SKIP_REASON}`);

type ErrorMember = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

/** The `error` member of a reference vector, with the per-answer fields a test sets. */
function member(vector: AapErrorVector, patch: { errorId?: string; retryAfterMs?: number } = {}): ErrorMember {
  const error = clone(vector.payload.error) as ErrorMember & { data: unknown };
  const entries = Array.isArray(error.data) ? (error.data as Record<string, unknown>[]) : [error.data as Record<string, unknown>];
  for (const e of entries) {
    const meta = e.metadata as Record<string, string> | undefined;
    if (patch.errorId !== undefined) {
      if (e.type === 'aap.error') e.error_id = patch.errorId;
      if (meta?.error_id !== undefined) meta.error_id = patch.errorId;
    }
    if (patch.retryAfterMs !== undefined && e.type === 'aap.error') {
      (e.details as Record<string, unknown>).retry_after_ms = patch.retryAfterMs;
    }
  }
  return error;
}

const rateLimited = (errorId: string, retryAfterMs?: number): ErrorMember =>
  member(clientVectors().aapRateLimited20, { errorId, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

let dealer: AapDealerFixture;
beforeAll(async () => {
  dealer = await startAapDealer();
});
afterAll(async () => {
  await dealer.close();
});
afterEach(() => {
  dealer.script.length = 0;
  dealer.seen.length = 0;
  vi.useRealTimers();
});

/** An injected clock and sleep: sleeping advances the clock and records the wait (ms). */
function fakeClock(start = 1_750_000_000_000): { now: () => number; sleep: (ms: number) => Promise<void>; waits: number[] } {
  let t = start;
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      waits.push(ms);
      t += ms;
    },
    waits,
  };
}

describe.skipIf(!HAVE_REFERENCE)('RATE_LIMITED through the SDK client', () => {
  it('waits exactly retry_after_ms on vitest fake timers, then succeeds on the 2nd attempt', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const client = await createSdkClient(dealer.baseUrl, aapFetch);
    dealer.script.push({ error: rateLimited('err_01HZ9RATE01') }); // the vector's 30 000 ms

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const done = withRetries(({ signal }) => client.sendMessage(searchMessage(), { signal }), {
      budget: createRetryBudget(),
      random: () => 0.99, // full jitter would give 990 ms: retry_after_ms must win
      logger: false,
    });
    let settled = false;
    void done.then(
      () => (settled = true),
      () => (settled = true),
    );
    await vi.waitFor(() => expect(dealer.seen).toHaveLength(1), { timeout: 5000, interval: 5 });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(dealer.seen).toHaveLength(1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    const result = await done;

    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2']);
    expect(result).toMatchObject({ parts: [{ content: { $case: 'data', value: { type: 'inventory.search.response' } } }] });
  });

  it('reports the exact wait through an injected clock and sleep', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    dealer.script.push({ error: rateLimited('err_rate_a', 1500) }, { error: rateLimited('err_rate_b', 2500) });
    const clock = fakeClock();
    const retried: number[] = [];
    await withRetries(() => client.sendMessage(searchMessage()), {
      ...clock,
      random: () => 0.5, // jitter 500 ms then 1000 ms: both below the hints
      budget: createRetryBudget(),
      logger: false,
      onRetry: ({ delayMs }) => retried.push(delayMs),
    });
    expect(clock.waits).toEqual([1500, 2500]);
    expect(retried).toEqual([1500, 2500]);
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2', '3']);
  });
});

describe.skipIf(!HAVE_REFERENCE)('non-retryable codes', () => {
  it('never retries SCHEMA_VALIDATION_FAILED: the dealer sees exactly one request', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    dealer.script.push({ error: member(clientVectors().aapValidation20) }, { error: member(clientVectors().aapValidation20) });
    const clock = fakeClock();
    const err = await withRetries(() => client.sendMessage(searchMessage({ year_min: 'soon' })), {
      ...clock,
      budget: createRetryBudget(),
      logger: false,
    }).catch((e: unknown) => e);

    expect(dealer.seen).toHaveLength(1);
    expect(clock.waits).toEqual([]);
    expect(err).toBeInstanceOf(DealerAgentError);
    const e = err as DealerAgentError;
    expect(e.stopReason).toBe('not-retryable');
    expect(e.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(e.retryable).toBe(false);
    // The SDK's own exception (lossy: -32602 becomes RequestMalformedError) is kept as the cause.
    expect((e.cause as Error).name).toBe('RequestMalformedError');
  });
});

describe.skipIf(!HAVE_REFERENCE)('the AAP payload', () => {
  it('is found by @type in the 2.0 form, wherever it sits in the array', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    const error = member(clientVectors().aapValidation20);
    const data = error.data as unknown[];
    // Buyer agents MUST locate the AAP payload by @type, never by position, and ignore unknown @types.
    error.data = [data[2], { '@type': 'type.googleapis.com/example.UnknownDetail', reason: 'NOT_AAP', code: 'NOT_AAP' }, data[1], data[0]];
    dealer.script.push({ error });

    const e = (await callWithDetails(() => client.sendMessage(searchMessage())).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e).toMatchObject({
      protocol: 'aap',
      form: 'aap-2.0',
      code: 'SCHEMA_VALIDATION_FAILED',
      jsonrpcCode: -32602,
      retryable: false,
      errorId: 'err_01HZ9EXAMPLE',
      retryAfterMs: null,
      httpStatus: 200,
      rpcMethod: 'SendMessage',
      skill: 'inventory.search',
    });
    expect(e.violations).toEqual([
      { location: '/filters/year_min', keyword: 'type' },
      { location: '/filters/make', keyword: 'additionalProperties' },
    ]);
    // The raw envelope is kept as received (the SDK's request id, the reordered array).
    expect(e.envelope).toEqual({ jsonrpc: '2.0', id: e.requestId, error });
    expect(e.traceId).toBe(dealer.seen[0]?.traceId);
    expect(e.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is read in the released object form', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    dealer.script.push({ error: member(clientVectors().aapValidationReleased) });
    const e = (await callWithDetails(() => client.sendMessage(searchMessage())).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toMatchObject({
      protocol: 'aap',
      form: 'aap-released',
      code: 'SCHEMA_VALIDATION_FAILED',
      jsonrpcCode: -32602,
      retryable: false,
      errorId: 'err_01HZ9EXAMPLE',
    });
    expect(e.violations).toEqual([
      { location: '/filters/year_min', keyword: 'type' },
      { location: '/filters/condition/0', keyword: 'enum' },
    ]);
    expect(e.serverMessage).toBe('Invalid params: 2 validation errors');
  });

  it('is recorded for the response even when the SDK is used without a helper', async () => {
    const seenErrors: DealerAgentError[] = [];
    const responses: Response[] = [];
    const inner: typeof fetch = async (input, init) => {
      const r = await fetch(input, init);
      responses.push(r);
      return r;
    };
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ fetch: inner, logger: false, onError: (e) => seenErrors.push(e) }));
    dealer.script.push({ error: rateLimited('err_plain_sdk') });
    await expect(client.sendMessage(searchMessage())).rejects.toThrow();
    expect(seenErrors.map((e) => e.errorId)).toEqual(['err_plain_sdk']);
    expect(dealerErrorsOf(responses.at(-1)!).map((e) => e.code)).toEqual(['RATE_LIMITED']);
  });

  it('reaches the caller straight from client.sendMessage with throwOnError', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false, throwOnError: true }));
    dealer.script.push({ error: rateLimited('err_thrown') });
    const e = await client.sendMessage(searchMessage()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 30_000, errorId: 'err_thrown' });
  });
});

describe.skipIf(!HAVE_REFERENCE)('the retry option of the adapter', () => {
  it('retries inside the fetch, so a plain client.sendMessage succeeds after RATE_LIMITED', async () => {
    const clock = fakeClock();
    const client = await createSdkClient(
      dealer.baseUrl,
      createAapFetch({ logger: false, retry: { budget: createRetryBudget(), now: clock.now, sleep: clock.sleep, random: () => 0.5 } }),
    );
    dealer.script.push({ error: rateLimited('err_in_fetch', 1500) });
    const result = await client.sendMessage(searchMessage());
    expect(result).toMatchObject({ parts: [{ content: { $case: 'data', value: { type: 'inventory.search.response' } } }] });
    expect(clock.waits).toEqual([1500]);
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2']);
  });

  it('hands the SDK the last response when it gives up, and callWithDetails the error with every attempt', async () => {
    const clock = fakeClock();
    const client = await createSdkClient(
      dealer.baseUrl,
      createAapFetch({ logger: false, retry: { budget: createRetryBudget(), now: clock.now, sleep: clock.sleep, random: () => 0 } }),
    );
    for (const id of ['err_f1', 'err_f2', 'err_f3', 'err_f4']) dealer.script.push({ error: rateLimited(id, 10) });
    const e = (await callWithDetails(() => client.sendMessage(searchMessage())).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e.stopReason).toBe('max-attempts');
    expect(e.attempts.map((a) => a.errorId)).toEqual(['err_f1', 'err_f2', 'err_f3', 'err_f4']);
    expect((e.cause as Error).name).toBe('JsonRpcTransportError'); // what the SDK made of the last response
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2', '3', '4']);
  });

  it('leaves retries to an enclosing withRetries (no retries multiplied)', async () => {
    const clock = fakeClock();
    const client = await createSdkClient(
      dealer.baseUrl,
      createAapFetch({ logger: false, retry: { budget: createRetryBudget(), now: clock.now, sleep: clock.sleep } }),
    );
    for (let i = 0; i < 8; i++) dealer.script.push({ error: rateLimited(`err_n${i}`, 10) });
    await withRetries(() => client.sendMessage(searchMessage()), { ...clock, budget: createRetryBudget(), logger: false, maxAttempts: 2 }).catch(() => {});
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2']);
  });
});

describe.skipIf(!HAVE_REFERENCE)('retry budget', () => {
  it('stops retries under a failure flood: 4 + 4 + 1 requests, then budget-exhausted', async () => {
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    for (let i = 0; i < 20; i++) dealer.script.push({ error: rateLimited(`err_flood_${i}`, 10) });
    const budget = createRetryBudget();
    const clock = fakeClock();
    const reasons: (string | null)[] = [];
    const perCall: number[] = [];
    for (let call = 0; call < 3; call++) {
      const before = dealer.seen.length;
      const e = (await withRetries(() => client.sendMessage(searchMessage()), { ...clock, budget, logger: false }).catch(
        (x: unknown) => x,
      )) as DealerAgentError;
      reasons.push(e.stopReason);
      perCall.push(dealer.seen.length - before);
    }
    expect(perCall).toEqual([4, 4, 1]);
    expect(reasons).toEqual(['max-attempts', 'max-attempts', 'budget-exhausted']);
    expect(budget.tokens).toBe(4);
  });
});

describe.skipIf(!HAVE_REFERENCE)('operator summary', () => {
  it('lists code, attempts, and every error_id and trace_id after the last attempt', async () => {
    const telemetry = createTestTelemetry();
    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    for (const id of ['err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a01', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a02', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a03', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a04']) dealer.script.push({ error: rateLimited(id, 100) });
    const t0 = Date.UTC(2026, 10, 30, 2, 0, 0);
    const clock = fakeClock(t0);
    const e = (await withRetries(() => client.sendMessage(searchMessage()), {
      ...clock,
      random: () => 0,
      budget: createRetryBudget(),
      logger: telemetry.logger,
    }).catch((x: unknown) => x)) as DealerAgentError;

    const traceIds = dealer.seen.map((s) => s.traceId);
    expect(e.attempts).toEqual<AttemptRecord[]>([1, 2, 3, 4].map((n, i) => ({
      attempt: n,
      startedAt: t0 + [0, 500, 1500, 3500][i]!, // each wait is the backoff floor (equal jitter at 0), above the 100 ms hint
      code: 'RATE_LIMITED',
      errorId: `err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0${n}`,
      traceId: traceIds[i] ?? null,
      retryAfterMs: 100,
      delayMs: n < 4 ? 500 * 2 ** i : null,
    })));
    expect(e.stopReason).toBe('max-attempts');
    const text = e.summary();
    expect(text.split('\n')[0]).toBe('RATE_LIMITED (aap, JSON-RPC -32000, inventory.search) after 4 attempts; stopped: max-attempts');
    for (const [i, id] of ['err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a01', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a02', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a03', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a04'].entries()) {
      expect(text).toContain(`error_id=${id} trace_id=${traceIds[i]}`);
    }
    // One pino line for the given-up call, allow-listed fields only.
    expect(telemetry.logLines).toHaveLength(1);
    const line = telemetry.logLines[0]!;
    expect(line).toMatchObject({
      level: 40,
      event: 'aap.client.gave_up',
      code: 'RATE_LIMITED',
      protocol: 'aap',
      jsonrpc_code: -32000,
      retryable: true,
      method: 'SendMessage',
      skill: 'inventory.search',
      attempts: 4,
      stop_reason: 'max-attempts',
      error_ids: ['err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a01', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a02', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a03', 'err_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a04'],
      trace_ids: traceIds,
    });
    expect(JSON.stringify(line)).not.toContain('Per-key rate limit exceeded');
  });
});

describe.skipIf(!HAVE_REFERENCE)('telemetry', () => {
  it('emits a CLIENT span per call with the server-side attributes, and the client metrics', async () => {
    const t = createTestTelemetry();
    const opts = { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: t.logger };
    const client = await createSdkClient(dealer.baseUrl, createAapFetch(opts));
    dealer.script.push({ error: rateLimited('err_7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e01', 50) });
    await withRetries(() => client.sendMessage(searchMessage()), { ...opts, ...fakeClock(), budget: createRetryBudget() });

    const spans = t.spans.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.kind])).toEqual([
      ['SendMessage', SpanKind.CLIENT],
      ['SendMessage', SpanKind.CLIENT],
    ]);
    const [failed, ok] = spans;
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes).toMatchObject({
      'rpc.system.name': 'jsonrpc',
      'rpc.method': 'SendMessage',
      'jsonrpc.protocol.version': '2.0',
      'rpc.status_code': '-32000',
      'error.type': 'RATE_LIMITED',
      'aap.protocol': 'aap',
      'aap.skill': 'inventory.search',
      'aap.error.code': 'RATE_LIMITED',
      'aap.error.retryable': true,
      'aap.error.id': 'err_7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e01',
      'aap.request.attempt': 1,
    });
    expect(typeof failed!.attributes['jsonrpc.request.id']).toBe('string');
    expect(ok!.status.code).toBe(SpanStatusCode.UNSET);
    expect(ok!.attributes['aap.request.attempt']).toBe(2);
    expect(ok!.attributes['error.type']).toBeUndefined();

    await t.collect();
    const errors = t.points('aap.client.errors');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.value).toBe(1);
    expect(errors[0]!.attributes).toEqual({
      'rpc.method': 'SendMessage',
      'aap.protocol': 'aap',
      'aap.skill': 'inventory.search',
      'error.type': 'RATE_LIMITED',
      'aap.error.code': 'RATE_LIMITED',
      'aap.error.retryable': true,
    });
    const retries = t.points('aap.client.retries');
    expect(retries.map((p) => [p.value, p.attributes])).toEqual([
      [1, { 'rpc.method': 'SendMessage', 'aap.protocol': 'aap', 'aap.skill': 'inventory.search', 'aap.error.code': 'RATE_LIMITED' }],
    ]);
    const durations = t.points('rpc.client.call.duration');
    const counts = durations.map((p) => (p.value as { count: number }).count).reduce((a, b) => a + b, 0);
    expect(counts).toBe(2);
    // No id ever becomes a metric label.
    for (const p of [...errors, ...retries, ...durations]) {
      expect(Object.keys(p.attributes)).not.toContain('aap.error.id');
      expect(Object.keys(p.attributes)).not.toContain('jsonrpc.request.id');
    }
  });
});
