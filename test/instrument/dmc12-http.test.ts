/**
 * The instrumentation wrapping a plain `node:http` DMC-12 `tools/call` server (`triage.wrap`).
 * Expected values come from spec/dmc12-errors.txt and DMC12_CODES.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DMC12_CODES } from '../../src/protocol/index.js';
import type { Dmc12Code } from '../../src/protocol/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { waitFor } from '../helpers/otel.js';
import { assertErrorSpan, createHarness, wireErrorId } from './harness.js';
import type { Harness } from './harness.js';

const SERVER_ERROR_ID = 'err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90';
const CODES = Object.keys(DMC12_CODES) as Dmc12Code[];

let h: Harness;
let srv: Dmc12Server;
let bare: Dmc12Server;
beforeAll(async () => {
  h = createHarness();
  srv = await startDmc12Server(h.triage);
  bare = await startDmc12Server(null);
});
afterAll(async () => {
  await srv.close();
  await bare.close();
  await h.triage.shutdown();
});

describe('DMC-12 results', () => {
  it('leaves a success result byte-for-byte as the server sent it', async () => {
    const body = toolsCall('ok-1', 'search_inventory', { make: 'Subaru' });
    const r = await post(srv.url, body, DMC12_HEADERS);
    const ref = await post(bare.url, body, DMC12_HEADERS);
    expect(r.text).toBe(ref.text);
    const span = await h.span('ok-1');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.name).toBe('tools/call');
    expect(span.attributes).toMatchObject({ 'aap.protocol': 'dmc12', 'aap.skill': 'search_inventory', 'rpc.method': 'tools/call' });
  });

  it.each(CODES)('marks %s inside a successful result as an error with its retryable and ids', async (code) => {
    const id = `dmc-${code}`;
    const r = await post(srv.url, toolsCall(id, 'create_reservation', { fail: code, vin: '1HGCM82633A000009' }), DMC12_HEADERS);
    expect(r.status).toBe(200);
    const ref = await post(bare.url, toolsCall(id, 'create_reservation', { fail: code, vin: '1HGCM82633A000009' }), DMC12_HEADERS);
    expect(r.text).toBe(ref.text); // already complete: nothing to add
    const info = DMC12_CODES[code];
    const span = await h.span(id);
    const errorId = assertErrorSpan(span, { code, protocol: 'dmc12', retryable: info.retryable });
    expect(span.attributes['rpc.status_code']).toBeUndefined();
    expect(errorId).toBe(SERVER_ERROR_ID);
    expect(span.attributes['aap.upstream_trace_id']).toBe('trc_0123456789abcdef');
    const ev = h.sink.events.find((e) => e.code === code && e.skill === 'create_reservation');
    expect(ev).toMatchObject({
      protocol: 'dmc12',
      protocol_version: 'v0.3',
      retryable: info.retryable,
      jsonrpc_code: null,
      upstream_trace_id: 'trc_0123456789abcdef',
      legacy_error: info.legacyErrors[0],
      http_status: 200,
    });
    if (code === 'RATE_LIMITED') expect(ev?.retry_after_ms).toBe(2000);
    const line = h.log.lines().find((l) => l.code === code);
    const serverFault = code === 'INTERNAL_ERROR' || code === 'UPSTREAM_UNAVAILABLE';
    expect(line?.level).toBe(serverFault ? 50 : 40);
    expect(JSON.stringify(line)).not.toContain('failure');
    expect(JSON.stringify(line)).not.toContain('1HGCM82633A000009');
  });

  it('adds a minted error_id and _metadata.trace_id where the server left them out, with Content-Length right', async () => {
    const r = await post(srv.url, toolsCall('mint-1', 'initiate_deal_handoff', { fail: 'CONSENT_INVALID', omitErrorId: true, omitMetadata: true }), DMC12_HEADERS);
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    const body = r.json as { result: { data: Record<string, unknown>; _metadata: { trace_id: string } } };
    const span = await h.span('mint-1');
    const errorId = assertErrorSpan(span, { code: 'CONSENT_INVALID', protocol: 'dmc12', retryable: false });
    expect(body.result.data.error_id).toBe(errorId);
    expect(body.result.data.error_code).toBe('CONSENT_INVALID');
    expect(body.result._metadata.trace_id).toBe(`trc_${span.spanContext().traceId}`);
    expect(h.event(errorId).conformance).toContain('error-id-missing');
  });

  it('classifies a legacy-only error string and keeps it only when it is a safe machine string', async () => {
    await post(srv.url, toolsCall('legacy-1', 'create_reservation', { fail: 'RESERVATION_CONFLICT', legacyOnly: true }), DMC12_HEADERS);
    const span = await h.span('legacy-1');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const ev = h.event(span.attributes['aap.error.id'] as string);
    expect(ev.protocol_version).toBe('legacy');
    expect(ev.legacy_error).toBe('reservation_conflict');
  });
});

describe('DMC-12 auth failure', () => {
  it('marks HTTP 401 / -32001 as an error and adds an error_id to error.data', async () => {
    const r = await post(srv.url, toolsCall('auth-1', 'search_inventory'), { 'content-type': 'application/json', authorization: 'Bearer wrong' });
    expect(r.status).toBe(401);
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    const span = await h.span('auth-1');
    const errorId = assertErrorSpan(span, { code: span.attributes['error.type'] as string, rpcStatus: '-32001', protocol: 'dmc12' });
    expect(wireErrorId(r.json)).toBe(errorId);
    const ev = h.event(errorId);
    expect(ev).toMatchObject({ http_status: 401, jsonrpc_code: -32001, protocol: 'dmc12' });
    expect(ev.code).not.toBe('TASK_NOT_FOUND');
  });
});

describe('batches', () => {
  it('pairs calls with replies by id, gives notifications nothing, and counts each call', async () => {
    const batch = [
      toolsCall(1, 'search_inventory'),
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'search_inventory', arguments: {} } },
      toolsCall('1', 'create_reservation', { fail: 'RESERVATION_LIMIT' }),
    ];
    const r = await post(srv.url, batch, DMC12_HEADERS);
    expect((r.json as unknown[]).length).toBe(2);
    // 1 and "1" are different ids (both are "1" as the jsonrpc.request.id string attribute).
    await waitFor(() => h.otel.spans().filter((s) => s.attributes['jsonrpc.request.id'] === '1').length === 2);
    const pair = h.otel.spans().filter((s) => s.attributes['jsonrpc.request.id'] === '1');
    const ok = pair.find((s) => s.attributes['aap.skill'] === 'search_inventory');
    const failed = pair.find((s) => s.attributes['aap.skill'] === 'create_reservation');
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    assertErrorSpan(failed as NonNullable<typeof failed>, { code: 'RESERVATION_LIMIT', protocol: 'dmc12' });
  });

  it('matches replies sent in another order by id, never by position', async () => {
    const replies = [
      { jsonrpc: '2.0', id: 'b', result: { data: { error: 'quote_expired', error_code: 'QUOTE_EXPIRED', retryable: false, error_id: SERVER_ERROR_ID } } },
      { jsonrpc: '2.0', id: 'a', result: { data: { ok: true } } },
    ];
    const raw = Buffer.from(JSON.stringify(replies)).toString('base64');
    await post(srv.url, [toolsCall('a', 'search_inventory'), toolsCall('b', 'create_quote')], { ...DMC12_HEADERS, 'x-test-raw-response': raw });
    expect((await h.span('a')).status.code).toBe(SpanStatusCode.UNSET);
    const b = await h.span('b');
    assertErrorSpan(b, { code: 'QUOTE_EXPIRED', protocol: 'dmc12' });
    expect(b.attributes['aap.skill']).toBe('create_quote');
  });

  it('treats an all-notification batch as no error and `[]` as one invalid-request error', async () => {
    const before = h.sink.events.length;
    const spansBefore = h.otel.spans().length;
    const notes = [{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'search_inventory' } }];
    const r = await post(srv.url, notes, DMC12_HEADERS);
    expect(r.status).toBe(204);
    const empty = await post(srv.url, [], DMC12_HEADERS);
    expect((empty.json as { error: { code: number } }).error.code).toBe(-32600);
    await waitFor(() => h.sink.events.length === before + 1);
    expect(h.sink.events[before]).toMatchObject({ code: '-32600', jsonrpc_code: -32600 });
    expect(h.otel.spans().length).toBe(spansBefore + 1);
  });
});
