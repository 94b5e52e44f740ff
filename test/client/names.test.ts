/**
 * The client spells no telemetry or header name of its own: it uses protocol's
 * (`src/protocol/telemetry-names.ts`, `KNOWN_RPC_METHODS`), the names the server side uses too.
 * Checked on the wire — the spans, metrics and headers a real `createAapFetch` produces against a
 * real `node:http` server — and against the metric names DESIGN §4 lists.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_ATTEMPT, HEADER_TRACERESPONSE, callWithDetails, createAapFetch, withRetries } from '../../src/client/index.js';
import * as server from '../../src/instrument/attributes.js';
import { DEFAULT_KNOWN_METHODS, DEFAULT_KNOWN_SKILLS as SERVER_DEFAULT_SKILLS } from '../../src/instrument/options.js';
import * as names from '../../src/protocol/index.js';
import { A2A_METHODS, KNOWN_RPC_METHODS, KNOWN_SKILLS } from '../../src/protocol/index.js';
import { startRawServer } from './fixtures/raw-server.js';
import type { RawServer } from './fixtures/raw-server.js';
import { createTestTelemetry } from './fixtures/telemetry.js';

let raw: RawServer;
beforeAll(async () => {
  raw = await startRawServer();
});
afterAll(async () => {
  await raw.close();
});
afterEach(() => {
  raw.script.length = 0;
  raw.requests.length = 0;
});

/** Answers the next request with a JSON-RPC success echoing its id. */
function answerOk(): void {
  raw.script.push((body) => ({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: {} })] }));
}

let nextId = 1;
const call = (aapFetch: typeof fetch, method: string) =>
  aapFetch(raw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: {} }),
  });

describe('client span names', () => {
  it('names every method of protocol’s KNOWN_RPC_METHODS, A2A v0.3 ones included, and reports any other as _OTHER', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ logger: false, tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
    const methods = [...KNOWN_RPC_METHODS, 'admin/dumpCustomers'];
    for (const m of methods) {
      answerOk();
      await (await call(aapFetch, m)).json();
    }
    const spans = t.spans.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes['rpc.method']])).toEqual([
      ...KNOWN_RPC_METHODS.map((m) => [m, m]),
      ['_OTHER', '_OTHER'],
    ]);
    expect(spans.at(-1)!.attributes['rpc.method_original']).toBe('admin/dumpCustomers');
    // The v0.3 names the client once reported as _OTHER while the server named them.
    for (const m of ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'ping']) {
      expect(spans.find((s) => s.name === m)?.attributes['rpc.method_original']).toBeUndefined();
    }
  });
});

describe('client headers', () => {
  it('sends the attempt in protocol’s HEADER_ATTEMPT (`aap-attempt`) under withRetries', async () => {
    const aapFetch = createAapFetch({ logger: false });
    answerOk();
    await withRetries(async () => (await call(aapFetch, 'tools/call')).json(), { logger: false, budget: false });
    expect(HEADER_ATTEMPT).toBe('aap-attempt');
    expect(raw.requests[0]?.headers['aap-attempt']).toBe('1');
  });

  it('reads the trace id from protocol’s HEADER_TRACERESPONSE (`traceresponse`)', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    raw.script.push((body) => ({
      headers: { 'content-type': 'application/json', traceresponse: `00-${traceId}-00f067aa0ba902b7-01` },
      chunks: [JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, error: { code: -32603, message: 'Internal error' } })],
    }));
    const aapFetch = createAapFetch({ logger: false });
    const e = await callWithDetails(async () => (await call(aapFetch, 'tools/call')).json()).catch((x: unknown) => x);
    expect(HEADER_TRACERESPONSE).toBe('traceresponse');
    expect(e).toMatchObject({ code: '-32603', traceId });
  });
});

describe('shared telemetry names', () => {
  it('are DESIGN §4’s metric names and units, server side and client mirror', () => {
    const server4 = Object.values(names.METRICS).map((m) => [m.name, m.unit]);
    expect(server4).toEqual([
      ['rpc.server.call.duration', 's'],
      ['aap.server.errors', '{error}'],
      ['aap.server.retries', '{retry}'],
      ['aap.server.request.attempts', '{attempt}'],
      ['aap.conformance.violations', '{violation}'],
      ['aap.audit.records', '{record}'],
      ['aap.audit.queue.size', '{record}'],
    ]);
    expect(names.METRICS.attempts.buckets).toEqual([1, 2, 3, 4, 5]);
    expect(Object.values(names.CLIENT_METRICS).map((m) => [m.name, m.unit])).toEqual([
      ['rpc.client.call.duration', 's'],
      ['aap.client.errors', '{error}'],
      ['aap.client.retries', '{retry}'],
    ]);
    expect(names.CLIENT_METRICS.callDuration.buckets).toEqual(names.METRICS.callDuration.buckets);
    expect(names.CLIENT_METRIC_ATTRIBUTES.errors).toEqual(names.METRIC_ATTRIBUTES.errors);
    expect(names.CLIENT_METRIC_ATTRIBUTES.callDuration).toEqual(names.METRIC_ATTRIBUTES.callDuration);
  });

  it('are DESIGN §4’s span attribute names', () => {
    expect([
      names.ATTR_RPC_SYSTEM_NAME,
      names.ATTR_RPC_METHOD,
      names.ATTR_RPC_METHOD_ORIGINAL,
      names.ATTR_JSONRPC_REQUEST_ID,
      names.ATTR_JSONRPC_PROTOCOL_VERSION,
      names.ATTR_RPC_STATUS_CODE,
      names.ATTR_ERROR_TYPE,
      names.ATTR_AAP_PROTOCOL,
      names.ATTR_AAP_SKILL,
      names.ATTR_AAP_ERROR_CODE,
      names.ATTR_AAP_ERROR_RETRYABLE,
      names.ATTR_AAP_ERROR_ID,
      names.ATTR_AAP_REQUEST_ATTEMPT,
      names.ATTR_AAP_UPSTREAM_TRACE_ID,
    ]).toEqual([
      'rpc.system.name',
      'rpc.method',
      'rpc.method_original',
      'jsonrpc.request.id',
      'jsonrpc.protocol.version',
      'rpc.status_code',
      'error.type',
      'aap.protocol',
      'aap.skill',
      'aap.error.code',
      'aap.error.retryable',
      'aap.error.id',
      'aap.request.attempt',
      'aap.upstream_trace_id',
    ]);
    expect(names.SEMCONV_VERSION).toBe('1.45.0');
  });

  it('have the values the server side spells, name for name (until instrument re-exports them)', () => {
    const serverNames = server as Record<string, unknown>;
    const protocolNames = names as Record<string, unknown>;
    const shared = Object.keys(serverNames).filter((k) => k in protocolNames);
    expect(shared.length).toBeGreaterThanOrEqual(35);
    for (const k of shared) expect([k, protocolNames[k]]).toEqual([k, serverNames[k]]);
  });
});

describe('allow-lists', () => {
  it('KNOWN_RPC_METHODS holds every method the server side and the request classifier know', () => {
    for (const m of DEFAULT_KNOWN_METHODS) expect(KNOWN_RPC_METHODS).toContain(m);
    for (const m of A2A_METHODS) expect(KNOWN_RPC_METHODS).toContain(m);
  });

  it('KNOWN_SKILLS holds every skill and tool the server side reports by name', () => {
    for (const name of SERVER_DEFAULT_SKILLS) expect(KNOWN_SKILLS).toContain(name);
  });
});
