/**
 * `createAapFetch` on wire cases beyond a single JSON reply: batches, SSE streams, non-JSON
 * error pages, transport failures, request objects, throwing callbacks — against a real
 * `node:http` server answering raw bytes (fixtures/raw-server.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  DealerAgentError,
  callWithDetails,
  createAapFetch,
  createRetryBudget,
  dealerErrorsOf,
  traceIdFromTraceresponse,
  withRetries,
} from '../../src/client/index.js';
import { startRawServer } from './fixtures/raw-server.js';
import type { RawServer } from './fixtures/raw-server.js';
import { createTestTelemetry } from './fixtures/telemetry.js';
import { clientVectors } from './fixtures/reference-items.js';
import { HAVE_REFERENCE, SKIP_REASON } from '../protocol/reference.js';

// The cases that answer with shared reference vectors skip where ../shared is absent; the rest run.
if (!HAVE_REFERENCE) console.info(`skipping the fetch-adapter cases that use reference vectors: ${SKIP_REASON}`);

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.script.length = 0;
  server.requests.length = 0;
});

const search = (id: number | string) => ({
  jsonrpc: '2.0',
  id,
  method: 'SendMessage',
  params: { message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: {} } }] } },
});
const post = (aapFetch: typeof fetch, body: unknown, headers: Record<string, string> = {}) =>
  aapFetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const rateLimitedError = () => structuredClone(clientVectors().aapRateLimited20.payload.error);

describe.skipIf(!HAVE_REFERENCE)('batches', () => {
  it('pairs replies with calls by id (not position), and gives a notification no span', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false });
    const reserve = { jsonrpc: '2.0', id: '2', method: 'tools/call', params: { name: 'create_reservation', arguments: {} } };
    const notification = { jsonrpc: '2.0', method: 'SendMessage', params: {} };
    // Replies in reverse order; id 1 (number) succeeds, id "2" (string) fails.
    server.script.push({
      chunks: [
        JSON.stringify([
          { jsonrpc: '2.0', id: '2', result: { data: structuredClone(clientVectors().dmc12ReservationExpired.payload), _metadata: { trace_id: 'trc_batch01' } } },
          { jsonrpc: '2.0', id: 1, result: { message: { parts: [] } } },
        ]),
      ],
    });
    const res = await post(aapFetch, [search(1), reserve, notification]);
    const errors = dealerErrorsOf(res);
    expect(errors.map((e) => [e.requestId, e.code, e.rpcMethod, e.skill])).toEqual([['2', 'RESERVATION_EXPIRED', 'tools/call', 'create_reservation']]);
    expect(errors[0]!.envelope).toMatchObject({ id: '2', result: { _metadata: { trace_id: 'trc_batch01' } } });

    const spans = t.spans.getFinishedSpans();
    expect(spans.map((s) => [s.attributes['jsonrpc.request.id'], s.status.code])).toEqual(
      expect.arrayContaining([
        ['1', SpanStatusCode.UNSET],
        ['2', SpanStatusCode.ERROR],
      ]),
    );
    expect(spans).toHaveLength(2);
  });
});

describe.skipIf(!HAVE_REFERENCE)('server-sent events', () => {
  it('records an error event at the end of a stream, and withRetries waits for the stream', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const errorEvent = JSON.stringify({ jsonrpc: '2.0', id: 7, error: rateLimitedError() });
    const sse = { status: 200, headers: { 'content-type': 'text/event-stream' } };
    server.script.push(
      // One event split over two chunks, then an error event spread over two data: lines.
      { ...sse, chunks: ['data: {"jsonrpc":"2.0","id":7,', '"result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}}\n\n', `data: ${errorEvent.slice(0, 40)}\ndata: ${errorEvent.slice(40)}\n\n`] },
      { ...sse, chunks: ['data: {"jsonrpc":"2.0","id":7,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n'] },
    );
    const waits: number[] = [];
    const text = await withRetries(
      async () => {
        const res = await post(aapFetch, { ...search(7), method: 'SendStreamingMessage' }, { accept: 'text/event-stream' });
        return res.text();
      },
      { budget: createRetryBudget(), random: () => 0, sleep: async (ms) => void waits.push(ms), logger: false },
    );
    expect(text).toContain('TASK_STATE_COMPLETED');
    expect(waits).toEqual([30_000]); // the vector's retry_after_ms
    expect(server.requests.map((r) => r.headers['aap-attempt'])).toEqual(['1', '2']);
  });
});

describe('server-sent events, read by hand', () => {
  it.skipIf(!HAVE_REFERENCE)('records an error event by the time the caller has read it, under the returned Response', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const errorEvent = JSON.stringify({ jsonrpc: '2.0', id: 9, error: rateLimitedError() });
    server.script.push({ headers: { 'content-type': 'text/event-stream' }, chunks: [`data: ${errorEvent}\n\n`] });
    const res = await post(aapFetch, { ...search(9), method: 'SendStreamingMessage' });
    expect(dealerErrorsOf(res)).toEqual([]); // nothing read yet, nothing inspected
    expect(await res.text()).toBe(`data: ${errorEvent}\n\n`); // bytes unchanged
    expect(dealerErrorsOf(res).map((e) => [e.code, e.requestId, e.rpcMethod])).toEqual([['RATE_LIMITED', 9, 'SendStreamingMessage']]);
  });

  it.skipIf(!HAVE_REFERENCE)('reads a CR-only stream whose UTF-8 and CR|LF pairs straddle chunks', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const errorEvent = new TextEncoder().encode(`event: error\rdata: ${JSON.stringify({ jsonrpc: '2.0', id: 10, error: rateLimitedError() })}\r\r`);
    const working = 'data: {"jsonrpc":"2.0","id":10,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING","note":"é"}}}}\r\n\r';
    const cut = new TextEncoder().encode(working).length - 4; // inside the two bytes of é
    const all = new Uint8Array([...new TextEncoder().encode(working), 0x0a, ...errorEvent]);
    server.script.push({ headers: { 'content-type': 'text/event-stream' }, chunks: [all.subarray(0, cut), all.subarray(cut, cut + 4), all.subarray(cut + 4)] });
    const res = await post(aapFetch, { ...search(10), method: 'SendStreamingMessage' });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(all); // bytes unchanged
    expect(dealerErrorsOf(res).map((e) => [e.code, e.requestId])).toEqual([['RATE_LIMITED', 10]]);
  });

  it('cancelling the returned body closes the dealer’s endless stream', async () => {
    const aapFetch = createAapFetch({ logger: false });
    server.script.push({
      headers: { 'content-type': 'text/event-stream' },
      chunks: ['data: {"jsonrpc":"2.0","id":5,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}}\n\n'],
      keepOpen: true,
    });
    const res = await post(aapFetch, { ...search(5), method: 'SubscribeToTask' });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('TASK_STATE_WORKING');
    await reader.cancel();
    await expect(server.closed[0]).resolves.toBeUndefined();
  });
});

describe('tasks that end in failure', () => {
  it('records a rejected task (1.0 TASK_STATE_REJECTED and 0.3 rejected) inside a success like a failed one', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const replies = [
      { jsonrpc: '2.0', id: 11, result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_REJECTED' } } } },
      { jsonrpc: '2.0', id: 12, result: { kind: 'task', id: 't', contextId: 'c', status: { state: 'rejected' } } },
      { jsonrpc: '2.0', id: 13, result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_FAILED' } } } },
    ];
    for (const r of replies) server.script.push({ chunks: [JSON.stringify(r)] });
    const got: unknown[] = [];
    for (const r of replies) {
      const res = await post(aapFetch, search(r.id));
      await res.text();
      got.push(dealerErrorsOf(res).map((e) => [e.code, e.form, e.requestId]));
    }
    expect(got).toEqual([[['TASK_REJECTED', 'task-failed', 11]], [['TASK_REJECTED', 'task-failed', 12]], [['TASK_FAILED', 'task-failed', 13]]]);
  });
});

describe('what is not a dealer error', () => {
  it('returns an HTML 502 untouched, records nothing, and types the span by status', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false });
    server.script.push({ status: 502, headers: { 'content-type': 'text/html' }, chunks: ['<html>Bad Gateway</html>'] });
    const res = await post(aapFetch, search(3));
    expect(res.status).toBe(502);
    expect(await res.text()).toBe('<html>Bad Gateway</html>');
    expect(dealerErrorsOf(res)).toEqual([]);
    const [span] = t.spans.getFinishedSpans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes['error.type']).toBe('http_502');
  });

  it('rethrows a transport failure as is, and retries it only when asked', async () => {
    const aapFetch = createAapFetch({ logger: false });
    const dead = 'http://127.0.0.1:9/rpc'; // discard port: nothing listens
    let calls = 0;
    const call = () => {
      calls++;
      return aapFetch(dead, { method: 'POST', body: JSON.stringify(search(1)) });
    };
    const err = await withRetries(call, { budget: createRetryBudget(), sleep: async () => {}, logger: false }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(DealerAgentError);
    expect((err as Error).name).toBe('TypeError'); // undici's "fetch failed"
    expect(calls).toBe(1);

    calls = 0;
    await withRetries(call, { budget: createRetryBudget(), sleep: async () => {}, logger: false, retryTransportErrors: true }).catch(() => {});
    expect(calls).toBe(4);
  });
});

describe('the request', () => {
  it('keeps the caller’s headers on a Request object and adds the attempt header', async () => {
    const aapFetch = createAapFetch({ logger: false });
    server.script.push({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })] });
    await withRetries(
      () => aapFetch(new Request(server.url, { method: 'POST', headers: { authorization: 'Bearer test-token-0002' } }), { body: JSON.stringify(search(1)) }),
      { budget: false, logger: false },
    );
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-token-0002');
    expect(server.requests[0]!.headers['aap-attempt']).toBe('1');
  });

  it.skipIf(!HAVE_REFERENCE)('still sends the request and records its errors when the tracer provider throws', async () => {
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('tracer bug');
        },
        startActiveSpan: () => {
          throw new Error('tracer bug');
        },
      }),
    };
    const aapFetch = createAapFetch({ logger: false, tracerProvider: broken });
    server.script.push({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: 1, error: rateLimitedError() })] });
    const e = (await callWithDetails(() => post(aapFetch, search(1))).catch((x: unknown) => x)) as DealerAgentError;
    expect(e).toMatchObject({ code: 'RATE_LIMITED', rpcMethod: 'SendMessage', skill: 'inventory.search' });
  });

  it.skipIf(!HAVE_REFERENCE)('is not affected by a throwing onError', async () => {
    const aapFetch = createAapFetch({
      logger: false,
      onError: () => {
        throw new Error('observer bug');
      },
    });
    server.script.push({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: 1, error: rateLimitedError() })] });
    const e = await callWithDetails(() => post(aapFetch, search(1))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DealerAgentError);
    expect((e as DealerAgentError).code).toBe('RATE_LIMITED');
  });
});

describe('withRetries', () => {
  it.skipIf(!HAVE_REFERENCE)('stops waiting when the signal aborts', async () => {
    const aapFetch = createAapFetch({ logger: false });
    server.script.push({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: 1, error: rateLimitedError() })] });
    const controller = new AbortController();
    const p = withRetries(() => post(aapFetch, search(1)), { budget: createRetryBudget(), signal: controller.signal, logger: false });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(p).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects an invalid option before sending anything', async () => {
    await expect(withRetries(() => Promise.resolve(1), { maxAttempts: 0 })).rejects.toThrow(RangeError);
  });
});

describe('traceresponse', () => {
  it('reads the trace id of a W3C traceresponse, never an all-zero or malformed one', () => {
    expect(traceIdFromTraceresponse('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(traceIdFromTraceresponse('00-00000000000000000000000000000000-b7ad6b7169203331-01')).toBeNull();
    expect(traceIdFromTraceresponse('00-0af7651916cd43dd-b7ad6b7169203331-01')).toBeNull();
    expect(traceIdFromTraceresponse(null)).toBeNull();
  });
});
