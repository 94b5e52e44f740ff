/**
 * The client against the demo's own dealer agents (src/demo: the AAP agent on @a2a-js/sdk and the
 * DMC-12 agent on node:http), instrumented with aap-triage as the demo instruments them, writing a
 * real audit file. The buyer is the real @a2a-js/sdk client (AAP) and plain fetch (DMC-12), both
 * through `createAapFetch` + `withRetries`.
 *
 * The dealers' rate limiters and the client share one fake clock: the client's injected `sleep`
 * moves it, so waits are exact and the tests take no wall time. Expected waits are computed by
 * hand from the demo's token bucket (tokens refill at `refillPerSecond`; an empty bucket asks for
 * `ceil((1 - tokens) / refillPerSecond × 1000)` ms). A frozen clock (`sleep` records the wait but
 * time stands still) keeps a bucket empty: every call is rate limited, a failure flood.
 *
 * The demo AAP dealer is run with `aapForm: '2.0'` (src/demo/run-demo.ts) and speaks the 2.0 array
 * form only, so reading the released (≤1.3) bare-object form is tested against the fixture dealer
 * (aap-sdk.test.ts "is read in the released object form"), which can answer in either form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceParameters, withA2AExtensions } from '@a2a-js/sdk/client';
import type { ServiceParametersUpdate } from '@a2a-js/sdk/client';
import { openAuditReader } from '../../src/audit/index.js';
import { DealerAgentError, createAapFetch, createRetryBudget, withRetries } from '../../src/client/index.js';
import type { WithRetriesOptions } from '../../src/client/index.js';
import { AapDealer } from '../../src/demo/aap/dealer.js';
import { createAapApp } from '../../src/demo/aap/server.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { Dmc12Dealer } from '../../src/demo/dmc12/dealer.js';
import { createDmc12Listener } from '../../src/demo/dmc12/server.js';
import { closeServer, listenLoopback } from '../../src/demo/http-util.js';
import { demoInventory } from '../../src/demo/inventory.js';
import { createRng } from '../../src/demo/rng.js';
import { createTriage } from '../../src/instrument/index.js';
import { createSdkClient, searchMessage } from './fixtures/sdk-client.js';
import { createTestTelemetry } from './fixtures/telemetry.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A clock shared by the dealers and the client; `sleep` advances it and records the wait (ms). */
function sharedClock() {
  let t = Date.UTC(2026, 10, 30, 9, 0, 0);
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
    waits,
  };
}

/** A clock that never moves: `sleep` records the wait (ms) and returns at once. */
function frozenClock() {
  const t = Date.UTC(2026, 10, 30, 9, 0, 0);
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
    waits,
  };
}

/** A fetch that notes the `aap-attempt` header of every POST before sending it on. */
function attemptRecordingFetch(sent: (string | null)[]): typeof fetch {
  return async (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() === 'POST') sent.push(new Headers(init?.headers).get('aap-attempt'));
    return fetch(input, init);
  };
}

/** aap-triage for one test, with a temp audit database. */
function startTriage() {
  const dir = mkdtempSync(join(tmpdir(), 'aap-client-demo-'));
  const dbPath = join(dir, 'audit.db');
  const t = createTestTelemetry();
  const triage = createTriage({ serviceName: 'demo-motors', auditDb: dbPath, logger: false, tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return {
    triage,
    /** Shuts aap-triage down (flushing the audit) and reads the error rows. */
    async rows() {
      await triage.shutdown();
      const db = openAuditReader(dbPath);
      try {
        return db
          .prepare('SELECT error_id, trace_id, upstream_trace_id, attempt, code, retryable, retry_after_ms FROM error_events ORDER BY occurred_at, attempt')
          .all() as { error_id: string; trace_id: string | null; upstream_trace_id: string | null; attempt: number; code: string; retryable: number; retry_after_ms: number | null }[];
      } finally {
        db.close();
      }
    },
  };
}

async function startAapDemo(clock: { now: () => number }, middleware: ReturnType<ReturnType<typeof createTriage>['middleware']>) {
  const dealer = new AapDealer({
    inventory: demoInventory(),
    rng: createRng(7),
    rateLimit: { capacity: 1, refillPerSecond: 0.5 },
    minRetryAfterMs: 1000,
    leadFaultRate: 0,
    now: clock.now,
  });
  const app = createAapApp(dealer, middleware);
  const server = createServer(app.app);
  const baseUrl = await listenLoopback(server);
  app.setBaseUrl(baseUrl);
  cleanups.push(() => closeServer(server));
  return baseUrl;
}

const bearer =
  (token: string): ServiceParametersUpdate =>
  (p) => {
    p.authorization = `Bearer ${token}`;
  };

describe('the demo AAP dealer agent', () => {
  it('RATE_LIMITED: waits exactly the retry_after_ms the dealer computed, then succeeds; the audit row has attempt 1', async () => {
    const clock = sharedClock();
    const { triage, rows } = startTriage();
    const baseUrl = await startAapDemo(clock, triage.middleware());
    const client = await createSdkClient(baseUrl, createAapFetch({ logger: false }));
    const serviceParameters = ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI), bearer('test-buyer-0001'));

    // The first call empties the 1-token bucket; the second is rate limited: the bucket is empty
    // at an unchanged clock, so retry_after_ms = ceil(1 / 0.5 × 1000) = 2000 (> the 1000 minimum).
    await client.sendMessage(searchMessage(), { serviceParameters });
    const result = await withRetries(({ signal }) => client.sendMessage(searchMessage(), { serviceParameters, signal }), {
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0.5,
      budget: createRetryBudget(),
      logger: false,
    });
    expect(clock.waits).toEqual([2000]);
    expect(result).toMatchObject({ parts: [{ content: { $case: 'data', value: { type: 'inventory.search.response' } } }] });

    const audit = await rows();
    expect(audit.map((r) => [r.code, r.attempt, r.retryable, r.retry_after_ms])).toEqual([['RATE_LIMITED', 1, 1, 2000]]);
  });

  it('VEHICLE_NOT_FOUND is never retried, and the client quotes the audit row’s error_id and trace_id', async () => {
    const clock = sharedClock();
    const { triage, rows } = startTriage();
    const baseUrl = await startAapDemo(clock, triage.middleware());
    const client = await createSdkClient(baseUrl, createAapFetch({ logger: false }));
    const serviceParameters = ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI), bearer('test-buyer-0002'));
    const message = searchMessage();
    const part = message.message.parts[0]!;
    part.content = { $case: 'data', value: { type: 'inventory.vehicle.request', vin: '1HGCY2F57RA000099' } };

    const e = (await withRetries(() => client.sendMessage(message, { serviceParameters }), {
      now: clock.now,
      sleep: clock.sleep,
      budget: createRetryBudget(),
      logger: false,
    }).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e).toMatchObject({ code: 'VEHICLE_NOT_FOUND', protocol: 'aap', retryable: false, stopReason: 'not-retryable', skill: 'inventory.vehicle' });
    expect(clock.waits).toEqual([]);

    const audit = await rows();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ code: 'VEHICLE_NOT_FOUND', attempt: 1, error_id: e.errorId, trace_id: e.traceId });
    expect(e.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
  it('stops retries under a failure flood: 4 + 4 + 1 requests, then budget-exhausted', async () => {
    // Frozen clock: after the first call takes the one token, the bucket never refills, so every
    // attempt is RATE_LIMITED with retry_after_ms = ceil((1 - 0) / 0.5 × 1000) = 2000.
    const clock = frozenClock();
    const { triage, rows } = startTriage();
    const baseUrl = await startAapDemo(clock, triage.middleware());
    const sent: (string | null)[] = [];
    const client = await createSdkClient(baseUrl, createAapFetch({ fetch: attemptRecordingFetch(sent), logger: false }));
    const serviceParameters = ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI), bearer('test-buyer-0003'));
    await client.sendMessage(searchMessage(), { serviceParameters });
    sent.length = 0;

    // Budget: 10 tokens, a retry costs 1, none below 5. Call 1 spends 3 (10 → 7), call 2 spends
    // 3 (7 → 4), call 3 finds 4 < 5 and stops after its first attempt.
    const budget = createRetryBudget();
    const perCall: number[] = [];
    const reasons: (string | null)[] = [];
    for (let call = 0; call < 3; call++) {
      const before = sent.length;
      const e = (await withRetries(({ signal }) => client.sendMessage(searchMessage(), { serviceParameters, signal }), {
        now: clock.now,
        sleep: clock.sleep,
        random: () => 0.5,
        budget,
        logger: false,
      }).catch((x: unknown) => x)) as DealerAgentError;
      expect(e).toBeInstanceOf(DealerAgentError);
      reasons.push(e.stopReason);
      perCall.push(sent.length - before);
    }
    expect(perCall).toEqual([4, 4, 1]);
    expect(reasons).toEqual(['max-attempts', 'max-attempts', 'budget-exhausted']);
    expect(budget.tokens).toBe(4);
    // Each wait is the longer of the dealer's 2000 ms and the equal-jittered backoff at random 0.5
    // (750, 1500, 3000 ms): 2000, 2000, 3000 per call.
    expect(clock.waits).toEqual([2000, 2000, 3000, 2000, 2000, 3000]);

    const audit = await rows();
    expect(audit.map((r) => [r.code, r.retryable, r.retry_after_ms])).toEqual(Array(9).fill(['RATE_LIMITED', 1, 2000]));
  });

  it('sends the attempt header on every try, and each audit row carries that attempt and the ids the client quotes', async () => {
    const clock = frozenClock();
    const { triage, rows } = startTriage();
    const baseUrl = await startAapDemo(clock, triage.middleware());
    const sent: (string | null)[] = [];
    const client = await createSdkClient(baseUrl, createAapFetch({ fetch: attemptRecordingFetch(sent), logger: false }));
    const serviceParameters = ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI), bearer('test-buyer-0004'));
    await client.sendMessage(searchMessage(), { serviceParameters }); // takes the only token
    sent.length = 0;

    const e = (await withRetries(({ signal }) => client.sendMessage(searchMessage(), { serviceParameters, signal }), {
      now: clock.now,
      sleep: clock.sleep,
      budget: createRetryBudget(),
      logger: false,
    }).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e.stopReason).toBe('max-attempts');
    expect(sent).toEqual(['1', '2', '3', '4']);

    const audit = await rows();
    expect(audit.map((r) => [r.code, r.attempt])).toEqual([
      ['RATE_LIMITED', 1],
      ['RATE_LIMITED', 2],
      ['RATE_LIMITED', 3],
      ['RATE_LIMITED', 4],
    ]);
    // What the buyer quotes in an incident email is what the operator finds in the audit store.
    expect(e.attempts.map((a) => a.errorId)).toEqual(audit.map((r) => r.error_id));
    expect(e.attempts.map((a) => a.traceId)).toEqual(audit.map((r) => r.trace_id));
    expect(e.attempts.map((a) => a.retryAfterMs)).toEqual(audit.map((r) => r.retry_after_ms));
    expect(audit.every((r) => /^[0-9a-f]{32}$/.test(r.trace_id ?? ''))).toBe(true);
  });
});

describe('the demo DMC-12 dealer agent', () => {
  async function startDmc12Demo(clock: { now: () => number }, wrap: ReturnType<typeof createTriage>['wrap'], rateLimit = { capacity: 100, refillPerSecond: 100 }) {
    const dealer = new Dmc12Dealer({
      inventory: demoInventory(),
      rng: createRng(8),
      rateLimit,
      ttlMs: 30 * 60_000,
      handoffFaultRate: 0,
      now: clock.now,
    });
    const server = createServer(wrap(createDmc12Listener(dealer, new Set(['test-buyer-a', 'test-buyer-b']))));
    const base = await listenLoopback(server);
    cleanups.push(() => closeServer(server));
    return `${base}/rpc`;
  }

  let nextId = 1;
  const tool = (aapFetch: typeof fetch, url: string, token: string, name: string, args: Record<string, unknown>) => async () => {
    const res = await aapFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
    });
    return (await res.json()) as { result: { data: Record<string, unknown> } };
  };

  it('RESERVATION_CONFLICT inside a successful result becomes a DealerAgentError, not retried', async () => {
    const clock = sharedClock();
    const { triage, rows } = startTriage();
    const url = await startDmc12Demo(clock, (l) => triage.wrap(l));
    const aapFetch = createAapFetch({ logger: false });
    const vin = '1HGCY2F52RA004211';
    const opts: WithRetriesOptions = { now: clock.now, sleep: clock.sleep, budget: createRetryBudget(), logger: false };

    const quoteA = await withRetries(tool(aapFetch, url, 'test-buyer-a', 'request_quote', { vin }), opts);
    await withRetries(tool(aapFetch, url, 'test-buyer-a', 'create_reservation', { quote_id: quoteA.result.data.quote_id }), opts);
    const quoteB = await withRetries(tool(aapFetch, url, 'test-buyer-b', 'request_quote', { vin }), opts);
    const e = (await withRetries(tool(aapFetch, url, 'test-buyer-b', 'create_reservation', { quote_id: quoteB.result.data.quote_id }), opts).catch(
      (x: unknown) => x,
    )) as DealerAgentError;

    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e).toMatchObject({
      protocol: 'dmc12',
      form: 'dmc12',
      code: 'RESERVATION_CONFLICT',
      jsonrpcCode: null,
      retryable: false,
      stopReason: 'not-retryable',
      rpcMethod: 'tools/call',
      skill: 'create_reservation',
    });
    expect(e.upstreamTraceId).toMatch(/^trc_[0-9a-f]{24}$/);
    expect(clock.waits).toEqual([]);

    const audit = await rows();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ code: 'RESERVATION_CONFLICT', attempt: 1, error_id: e.errorId, upstream_trace_id: e.upstreamTraceId });
  });

  it('RATE_LIMITED without a hint backs off 750, 1500 ms (equal jitter at 0.5) and succeeds on the 3rd attempt', async () => {
    const clock = sharedClock();
    const { triage, rows } = startTriage();
    const url = await startDmc12Demo(clock, (l) => triage.wrap(l), { capacity: 1, refillPerSecond: 0.5 });
    const aapFetch = createAapFetch({ logger: false });
    const search = tool(aapFetch, url, 'test-buyer-a', 'search_inventory', { make: 'Honda' });
    await search(); // empties the bucket
    // Bucket: t=0 → 0 tokens (fail); t=750 → 0.375 (fail); t=2250 → 1.125 (ok).
    const body = await withRetries(search, { now: clock.now, sleep: clock.sleep, random: () => 0.5, budget: createRetryBudget(), logger: false });
    expect(clock.waits).toEqual([750, 1500]);
    expect(body.result.data).toHaveProperty('vehicles');

    const audit = await rows();
    expect(audit.map((r) => [r.code, r.attempt])).toEqual([
      ['RATE_LIMITED', 1],
      ['RATE_LIMITED', 2],
    ]);
  });
});
