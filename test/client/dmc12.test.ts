/**
 * `createAapFetch` used alone (plain fetch, as a DMC-12 buyer does) against a real `node:http`
 * DMC-12 dealer (fixtures/dmc12-dealer.ts). DMC-12 errors come back inside a successful result,
 * so no SDK would ever throw for them: the adapter is what turns them into errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DealerAgentError, callWithDetails, createAapFetch, createRetryBudget, dealerErrorsOf, withRetries } from '../../src/client/index.js';
import { lookupCode } from '../../src/protocol/index.js';
import { startDmc12Dealer } from './fixtures/dmc12-dealer.js';
import type { Dmc12DealerFixture } from './fixtures/dmc12-dealer.js';
import { clientVectors } from './fixtures/reference-items.js';
import { HAVE_REFERENCE, SKIP_REASON } from '../protocol/reference.js';

// The cases that answer with shared reference vectors skip where ../shared is absent; the rest run.
if (!HAVE_REFERENCE) console.info(`skipping the DMC-12 cases that use reference vectors: ${SKIP_REASON}`);

let dealer: Dmc12DealerFixture;
beforeAll(async () => {
  dealer = await startDmc12Dealer();
});
afterAll(async () => {
  await dealer.close();
});
afterEach(() => {
  dealer.script.length = 0;
  dealer.seen.length = 0;
});

let nextId = 1;
/** One `tools/call` through the adapter; resolves to the parsed JSON body. */
async function reserve(aapFetch: typeof fetch): Promise<unknown> {
  const res = await aapFetch(dealer.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test-token-0001' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: 'create_reservation', arguments: { vin: '1HGCY2F57RA000001' } },
    }),
  });
  return res.json();
}

describe('DMC-12 result errors', () => {
  it.skipIf(!HAVE_REFERENCE)('become a DealerAgentError although the HTTP call and the JSON-RPC call succeeded', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const data = structuredClone(clientVectors().dmc12ReservationExpired.payload);
    dealer.script.push({ resultError: data, traceId: 'trc_7a1c0e93b2d44f6a' });

    const e = (await callWithDetails(() => reserve(aapFetch)).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e).toMatchObject({
      protocol: 'dmc12',
      form: 'dmc12',
      code: 'RESERVATION_EXPIRED',
      jsonrpcCode: null,
      retryable: false,
      errorId: 'err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90',
      traceId: 'trc_7a1c0e93b2d44f6a', // no traceresponse: the DMC-12 trace id stands in
      upstreamTraceId: 'trc_7a1c0e93b2d44f6a',
      httpStatus: 200,
      rpcMethod: 'tools/call',
      skill: 'create_reservation',
    });
    expect(e.envelope).toEqual({
      jsonrpc: '2.0',
      id: e.requestId,
      result: { data, _metadata: { trace_id: 'trc_7a1c0e93b2d44f6a', tool: 'create_reservation', protocol: 'a2a' } },
    });
    // The message carries codes and ids, never the dealer's text.
    expect(e.message).toBe('dmc12 error RESERVATION_EXPIRED error_id=err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90 trace_id=trc_7a1c0e93b2d44f6a');
  });

  it.skipIf(!HAVE_REFERENCE)('are listed for the Response when the adapter is used alone', async () => {
    const aapFetch = createAapFetch({ logger: false });
    dealer.script.push({ resultError: structuredClone(clientVectors().dmc12ReservationExpired.payload) });
    const res = await aapFetch(dealer.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method: 'tools/call', params: { name: 'create_reservation', arguments: {} } }),
    });
    // The body is untouched for the caller.
    expect(((await res.json()) as { result: { data: { error_code: string } } }).result.data.error_code).toBe('RESERVATION_EXPIRED');
    expect(dealerErrorsOf(res).map((x) => [x.code, x.requestId])).toEqual([['RESERVATION_EXPIRED', 'r-1']]);
  });

  it.skipIf(!HAVE_REFERENCE)('are retried when retryable (RATE_LIMITED), with the attempt number in the aap-attempt header', async () => {
    const aapFetch = createAapFetch({ logger: false });
    dealer.script.push({ resultError: structuredClone(clientVectors().dmc12RateLimited.payload) }, { ok: true });
    const waits: number[] = [];
    const body = await withRetries(() => reserve(aapFetch), {
      budget: createRetryBudget(),
      random: () => 0.25,
      sleep: async (ms) => {
        waits.push(ms);
      },
      logger: false,
    });
    expect(body).toMatchObject({ result: { data: { reservation_token: 'rsv_test_0001' } } });
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2']);
    expect(waits).toEqual([625]); // no retry_after: equal jitter, 1000 ms × (0.5 + 0.5 × 0.25)
  });

  it('sends no attempt header outside withRetries', async () => {
    await reserve(createAapFetch({ logger: false }));
    expect(dealer.seen.map((s) => s.attempt)).toEqual([undefined]);
  });

  it('reads the auth failure (-32001, HTTP 401) as a DMC-12 error that is not retried', async () => {
    dealer.script.push({ authFailure: true }, { ok: true });
    const e = (await withRetries(() => reserve(createAapFetch({ logger: false })), {
      budget: createRetryBudget(),
      sleep: async () => {},
      logger: false,
    }).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toBeInstanceOf(DealerAgentError);
    expect(e.jsonrpcCode).toBe(-32001);
    expect(e.httpStatus).toBe(401);
    // On a DMC-12 call -32001 is the auth failure, not A2A's TaskNotFoundError, and the code
    // tables know it by (protocol, code) as the error holds them.
    expect(e.protocol).toBe('dmc12');
    expect(e.code).toBe('-32001');
    expect(lookupCode(e.protocol, e.code)).toMatchObject({ retryable: false, clientAction: 'Refresh or fix the bearer token; do not retry as is.' });
    // The envelope carries no retryable: the client does not guess, and does not retry.
    expect(e.retryable).toBeNull();
    expect(e.stopReason).toBe('retryable-unknown');
    expect(dealer.seen).toHaveLength(1);
  });
});
