/**
 * The instrumentation in front of a real @a2a-js/sdk 1.3 AAP server (Express, jsonRpcHandler,
 * agent card), called by raw HTTP and by the real @a2a-js/sdk client. Expected values come from
 * spec/aap-errors.txt and the code tables in src/protocol/codes.
 */
import { randomUUID } from 'node:crypto';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, ServiceParameters, withA2AExtensions } from '@a2a-js/sdk/client';
import { AAP_CODES, ERROR_ID_PATTERN, conformanceRuleIds } from '../../src/protocol/index.js';
import type { AapCode } from '../../src/protocol/index.js';
import { AAP_HEADERS, TEST_EXTENSION_URI, post, sendMessageBody, startAapServer } from '../helpers/aap-server.js';
import type { AapServer } from '../helpers/aap-server.js';
import { counterSum, waitFor } from '../helpers/otel.js';
import { captureSdkConsole } from '../helpers/sdk-console.js';
import { assertErrorSpan, createHarness, wireErrorId } from './harness.js';
import type { Harness } from './harness.js';

const AAP_ERROR_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';
const CODES = (Object.keys(AAP_CODES) as AapCode[]).filter((c) => !AAP_CODES[c].legacy);
const VALIDATION_DETAILS = {
  errors: [
    { instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' },
    { instanceLocation: '/filters/make', keyword: 'additionalProperties', error: 'unknown filter key' },
  ],
};
const detailsFor = (code: AapCode): Record<string, unknown> | undefined =>
  AAP_CODES[code].validation ? VALIDATION_DETAILS : code === 'RATE_LIMITED' ? { retry_after_ms: 30000 } : undefined;

/** Masks the random ids the SDK mints, so two answers to the same call compare equal. */
const maskIds = (text: string): string => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID');

let h: Harness;
let srv: AapServer;
/** What the SDK itself printed during the running test (executor throws, refused versions). */
const sdkConsole = captureSdkConsole();
let bare: AapServer;

beforeAll(async () => {
  h = createHarness();
  srv = await startAapServer({ triage: h.triage });
  bare = await startAapServer({ triage: null });
});
afterAll(async () => {
  await srv.close();
  await bare.close();
  await h.triage.shutdown();
});

describe('success', () => {
  it('leaves a success body unchanged and marks the span UNSET with the call attributes', async () => {
    const body = sendMessageBody('ok-1', 'inventory.search', { filters: { make: 'Honda' } });
    const r = await post(srv.rpcUrl, body);
    const ref = await post(bare.rpcUrl, body);
    expect(maskIds(r.text)).toBe(maskIds(ref.text));
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    const span = await h.span('ok-1');
    expect(span.name).toBe('SendMessage');
    expect(span.kind).toBe(1); // SpanKind.SERVER
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'rpc.system.name': 'jsonrpc',
      'rpc.method': 'SendMessage',
      'jsonrpc.request.id': 'ok-1',
      'jsonrpc.protocol.version': '2.0',
      'aap.protocol': 'aap',
      'aap.skill': 'inventory.search',
      'aap.request.attempt': 1,
    });
    expect(span.attributes['error.type']).toBeUndefined();
  });

  it('sends a W3C traceresponse header naming the call span', async () => {
    const r = await post(srv.rpcUrl, sendMessageBody('ok-2', 'inventory.facets'));
    const span = await h.span('ok-2');
    const sc = span.spanContext();
    expect(r.headers.get('traceresponse')).toBe(`00-${sc.traceId}-${sc.spanId}-01`);
  });
});

describe('A2A protocol errors', () => {
  it('completes a bare -32008 into the activation error with the URI, the header name and an error_id', async () => {
    const headers = { 'content-type': 'application/json', 'A2A-Version': '1.0' };
    const r = await post(srv.rpcUrl, sendMessageBody('ext-1', 'inventory.search', { case: 'ext' }), headers);
    const body = r.json as { error: { code: number; message: string; data: Record<string, unknown>[] } };
    expect(body.error.code).toBe(-32008);
    expect(body.error.message).toContain(TEST_EXTENSION_URI);
    expect(body.error.message).toContain('A2A-Extensions');
    const info = body.error.data.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') as Record<string, unknown>;
    expect(info).toMatchObject({
      reason: 'EXTENSION_SUPPORT_REQUIRED',
      domain: 'a2a-protocol.org',
      metadata: { extensionUri: TEST_EXTENSION_URI, requiredHeader: 'A2A-Extensions' },
    });
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    // Express's ETag validated the host's text; a completed body must not carry it.
    expect((await post(bare.rpcUrl, sendMessageBody('ext-0', 'inventory.search', { case: 'ext' }), headers)).headers.get('etag')).not.toBeNull();
    expect(r.headers.get('etag')).toBeNull();
    const id = assertErrorSpan(await h.span('ext-1'), { code: 'EXTENSION_SUPPORT_REQUIRED', rpcStatus: '-32008', protocol: 'a2a' });
    expect(wireErrorId(body)).toBe(id);
    const ev = h.event(id);
    expect(ev).toMatchObject({ code: 'EXTENSION_SUPPORT_REQUIRED', jsonrpc_code: -32008, protocol: 'a2a', http_status: 200, rpc_method: 'SendMessage' });
    expect(ev.conformance).toContain('activation-error-incomplete');
  });

  it.each([
    ['unsupported', { ...AAP_HEADERS, 'A2A-Version': '2.0' }],
    ['absent', { 'content-type': 'application/json', 'A2A-Extensions': TEST_EXTENSION_URI }],
  ])('answers an %s A2A-Version with -32009 and records it with a minted error_id', async (label, headers) => {
    const r = await post(srv.rpcUrl, sendMessageBody(`ver-${label}`, 'inventory.search', { case: label }), headers as Record<string, string>);
    const body = r.json as { error: { code: number } };
    expect(body.error.code).toBe(-32009);
    const id = assertErrorSpan(await h.span(`ver-${label}`), { code: 'VERSION_NOT_SUPPORTED', rpcStatus: '-32009', protocol: 'a2a' });
    expect(wireErrorId(body)).toBe(id);
    expect(h.event(id).trace_id).toBe((await h.span(`ver-${label}`)).spanContext().traceId);
    expect(sdkConsole.lines).toEqual(['Unhandled error in JSON-RPC POST handler:']);
  });

  it('records a wrong Content-Type (-32005) and a truncated JSON body (-32700), both answered with id null', async () => {
    const before = h.sink.events.length;
    const r1 = await post(srv.rpcUrl, JSON.stringify(sendMessageBody('ct-1', 'inventory.search')), { ...AAP_HEADERS, 'content-type': 'text/plain' });
    expect((r1.json as { error: { code: number } }).error.code).toBe(-32005);
    const r2 = await post(srv.rpcUrl, '{"jsonrpc":"2.0","id":"trunc-1","method":"SendMess');
    expect((r2.json as { error: { code: number } }).error.code).toBe(-32700);
    await waitFor(() => h.sink.events.length >= before + 2);
    const [e1, e2] = h.sink.events.slice(before);
    expect(e1).toMatchObject({ code: 'CONTENT_TYPE_NOT_SUPPORTED', jsonrpc_code: -32005, protocol: 'a2a' });
    expect(e2).toMatchObject({ code: '-32700', jsonrpc_code: -32700, rpc_method: '_OTHER' });
    expect(wireErrorId(r1.json)).toBe(e1?.error_id);
    expect(wireErrorId(r2.json)).toBe(e2?.error_id);
    const span = h.otel.spans().find((s) => s.attributes['aap.error.id'] === e2?.error_id);
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(r2.headers.get('traceresponse')).toBe(`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`);
  });

  it('reports an unknown method as _OTHER with rpc.method_original on the span only', async () => {
    const r = await post(srv.rpcUrl, { jsonrpc: '2.0', id: 'unk-1', method: 'FetchEverything', params: {} });
    expect((r.json as { error: { code: number } }).error.code).toBe(-32601);
    const span = await h.span('unk-1');
    // semconv 1.45: an RPC span whose method is _OTHER is named after rpc.system.name.
    expect(span.name).toBe('jsonrpc');
    expect(span.attributes['rpc.method']).toBe('_OTHER');
    expect(span.attributes['rpc.method_original']).toBe('FetchEverything');
    const id = assertErrorSpan(span, { code: '-32601', rpcStatus: '-32601', protocol: 'jsonrpc' });
    const metrics = await h.otel.metrics();
    const labels = metrics.get('aap.server.errors')?.dataPoints.map((p) => p.attributes) ?? [];
    expect(labels.some((a) => a['rpc.method'] === '_OTHER')).toBe(true);
    expect(labels.every((a) => !('rpc.method_original' in a))).toBe(true);
    expect(h.event(id).rpc_method).toBe('_OTHER');
  });
});

describe.each([
  ['2.0', 'auto'],
  ['released', 'released'],
] as const)('AapError thrown on a stock SDK, %s form', (form, aapForm) => {
  let hh: Harness;
  let s: AapServer;
  beforeAll(async () => {
    hh = form === '2.0' ? h : createHarness({ aapForm });
    s = form === '2.0' ? srv : await startAapServer({ triage: hh.triage });
  });
  afterAll(async () => {
    if (form !== '2.0') {
      await s.close();
      await hh.triage.shutdown();
    }
  });

  it.each(CODES.flatMap((code) => [['executor', code] as const, ['handler', code] as const]))(
    'rewrites a %s throw of %s into the conformant envelope with the code\'s JSON-RPC code',
    async (site, code) => {
      const id = `aap-${form}-${site}-${code}`;
      const details = detailsFor(code);
      const data = { [site === 'executor' ? 'fail' : 'failInHandler']: code, nonce: randomUUID(), ...(details ? { details } : {}) };
      const r = await post(s.rpcUrl, sendMessageBody(id, 'inventory.vehicle', data));
      expect(r.status).toBe(200);
      expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
      const body = r.json as { id: string; error: { code: number; message: string; data: unknown } };
      expect(body.id).toBe(id);
      const info = AAP_CODES[code];
      expect(body.error.code).toBe(form === '2.0' ? info.jsonrpcCode : info.releasedJsonrpcCode);
      const payload = (
        form === '2.0'
          ? (body.error.data as Record<string, unknown>[]).find((d) => d['@type'] === AAP_ERROR_TYPE)
          : body.error.data
      ) as Record<string, unknown>;
      expect(payload).toMatchObject({ type: 'aap.error', code, retryable: info.retryable, message: `test failure ${code}` });
      if (details) expect(payload.details).toEqual(details);
      if (form === '2.0') {
        const errorInfo = (body.error.data as Record<string, unknown>[])[0];
        expect(errorInfo).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'autoagentprotocol.org' });
        expect((errorInfo?.metadata as Record<string, string>).error_id).toBe(payload.error_id);
      }
      expect(payload.error_id).toMatch(ERROR_ID_PATTERN);
      // What the rewrite sends breaks no rule of our own checker (issue 15), in the endpoint's form.
      expect(conformanceRuleIds(r.json, { family: 'aap', form })).toEqual([]);
      const errorId = assertErrorSpan(await hh.span(id), { code, protocol: 'aap', retryable: info.retryable });
      expect(errorId).toBe(payload.error_id);
      const ev = hh.event(errorId);
      expect(ev).toMatchObject({ code, retryable: info.retryable, skill: 'inventory.vehicle', protocol: 'aap', service: 'dealer-test' });
      expect(ev.conformance).toContain(site === 'executor' ? 'skill-error-as-failed-task' : 'aap-error-flattened');
      if (code === 'RATE_LIMITED') expect(ev.retry_after_ms).toBe(30000);
      if (info.validation) expect(ev.violations).toEqual([{ location: '/filters/year_min', keyword: 'type' }, { location: '/filters/make', keyword: 'additionalProperties' }]);
      const line = hh.logLine(errorId);
      expect(line).toMatchObject({ code, error_id: errorId, trace_id: ev.trace_id, span_id: ev.span_id, method: 'SendMessage', attempt: 1 });
      expect(line?.level).toBe(code === 'INTERNAL_ERROR' ? 50 : 40);
      expect(JSON.stringify(line)).not.toContain('test failure');
      // The SDK logs an executor's throw itself (console.error, captured); a handler's it never sees.
      expect(sdkConsole.lines.map(maskIds)).toEqual(site === 'executor' ? [`Agent execution failed for message UUID:`] : []);
    },
  );
});

describe('hidden task failure', () => {
  it('classifies a FAILED task inside a success as an error, flags it, and leaves the body as sent', async () => {
    const body = sendMessageBody('task-1', 'inventory.search', { crash: true });
    const r = await post(srv.rpcUrl, body);
    const result = (r.json as { result: { task: { status: { state: string } } } }).result;
    expect(result.task.status.state).toBe('TASK_STATE_FAILED');
    const id = assertErrorSpan(await h.span('task-1'), { code: 'TASK_FAILED', protocol: 'a2a' });
    const ev = h.event(id);
    expect(ev.conformance).toContain('skill-error-as-failed-task');
    expect(ev.jsonrpc_code).toBeNull();
    expect(JSON.stringify(h.logLine(id))).not.toContain('executor crashed');
    expect(sdkConsole.lines.map(maskIds)).toEqual(['Agent execution failed for message UUID:']);
  });
});

describe('rejected task', () => {
  it('records a REJECTED task like a failed one: audit row, span status ERROR, error metric', async () => {
    const errorsBefore = counterSum((await h.otel.metrics()).get('aap.server.errors'), { 'error.type': 'TASK_REJECTED' });
    const r = await post(srv.rpcUrl, sendMessageBody('task-rej', 'inventory.search', { reject: true }));
    const result = (r.json as { result: { task: { status: { state: string } } } }).result;
    expect(result.task.status.state).toBe('TASK_STATE_REJECTED');
    const id = assertErrorSpan(await h.span('task-rej'), { code: 'TASK_REJECTED', protocol: 'a2a' });
    const ev = h.event(id);
    expect(ev).toMatchObject({ code: 'TASK_REJECTED', protocol: 'a2a', jsonrpc_code: null });
    // The checker's finding: a refusal hidden in a success carries no typed aap.error.
    expect(ev.conformance).toContain('aap.typed-payload-present');
    const m = await h.otel.metrics();
    expect(counterSum(m.get('aap.server.errors'), { 'error.type': 'TASK_REJECTED', 'aap.protocol': 'a2a' }) - errorsBefore).toBe(1);
  });

  it('records a REJECTED task in a stream too', async () => {
    const res = await fetch(srv.rpcUrl, {
      method: 'POST',
      headers: AAP_HEADERS,
      body: JSON.stringify(sendMessageBody('sse-rej', 'inventory.search', { reject: true }, 'SendStreamingMessage')),
    });
    expect(await res.text()).toContain('TASK_STATE_REJECTED');
    const id = assertErrorSpan(await h.span('sse-rej'), { code: 'TASK_REJECTED', protocol: 'a2a' });
    expect(h.event(id).code).toBe('TASK_REJECTED');
  });
});

describe('streaming', () => {
  it('classifies an SSE stream whose task fails as an error and leaves the frames unchanged', async () => {
    const res = await fetch(srv.rpcUrl, {
      method: 'POST',
      headers: AAP_HEADERS,
      body: JSON.stringify(sendMessageBody('sse-1', 'inventory.search', { crash: true }, 'SendStreamingMessage')),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('TASK_STATE_FAILED');
    const span = await h.span('sse-1');
    expect(span.name).toBe('SendStreamingMessage');
    assertErrorSpan(span, { code: 'TASK_FAILED', protocol: 'a2a' });
    expect(res.headers.get('traceresponse')).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(sdkConsole.lines.map(maskIds)).toEqual(['Agent execution failed for stream message UUID:']);
  });

  it('classifies a stream call answered with plain JSON (pre-stream -32008)', async () => {
    const r = await post(srv.rpcUrl, sendMessageBody('sse-2', 'inventory.search', {}, 'SendStreamingMessage'), {
      'content-type': 'application/json',
      'A2A-Version': '1.0',
    });
    expect((r.json as { error: { code: number } }).error.code).toBe(-32008);
    assertErrorSpan(await h.span('sse-2'), { code: 'EXTENSION_SUPPORT_REQUIRED', protocol: 'a2a' });
    expect(sdkConsole.lines).toEqual(['Pre-stream error for request sse-2:']);
  });
});

describe('the real @a2a-js/sdk client', () => {
  it('gets a success through the instrumentation and a typed error envelope it can read from errorResponse', async () => {
    const client = await new ClientFactory().createFromUrl(srv.url);
    const options = { serviceParameters: ServiceParameters.create(withA2AExtensions(TEST_EXTENSION_URI)) };
    const message = (data: Record<string, unknown>) => ({
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: 1,
        parts: [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    });
    const ok = await client.sendMessage(message({ type: 'inventory.search.request', nonce: randomUUID() }) as never, options);
    expect(JSON.stringify(ok)).toContain('inventory.search.response');
    let thrown: unknown;
    try {
      await client.sendMessage(message({ type: 'inventory.vehicle.request', failInHandler: 'VEHICLE_NOT_FOUND', nonce: randomUUID() }) as never, options);
    } catch (err) {
      thrown = err;
    }
    const envelope = (thrown as { errorResponse?: { error: { code: number; data: Record<string, unknown>[] } } }).errorResponse;
    expect(envelope?.error.code).toBe(-32000);
    const payload = envelope?.error.data.find((d) => d['@type'] === AAP_ERROR_TYPE);
    expect(payload).toMatchObject({ code: 'VEHICLE_NOT_FOUND', retryable: false });
    await waitFor(() => h.sink.events.some((e) => e.error_id === payload?.error_id));
  });
});

describe.each(['before', 'after'] as const)('body parser mounted %s the middleware', (parser) => {
  it('classifies the call from the parsed body', async () => {
    const hh = createHarness();
    const s = await startAapServer({ triage: hh.triage, parser });
    try {
      const r = await post(s.rpcUrl, sendMessageBody(`parser-${parser}`, 'inventory.vehicle', { fail: 'VEHICLE_UNAVAILABLE' }));
      expect((r.json as { error: { code: number } }).error.code).toBe(-32000);
      const span = await hh.span(`parser-${parser}`);
      expect(span.attributes['aap.skill']).toBe('inventory.vehicle');
      assertErrorSpan(span, { code: 'VEHICLE_UNAVAILABLE', protocol: 'aap', retryable: false });
    } finally {
      await s.close();
      await hh.triage.shutdown();
    }
  });
});
