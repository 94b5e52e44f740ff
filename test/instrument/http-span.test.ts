/**
 * Where a call's span goes when the real OpenTelemetry HTTP instrumentation made a server span
 * (DESIGN §4, issue 14): a single call is recorded on that span (renamed to the method, its
 * attributes and status set there, no second span), a batch gets one child span per call. Runs
 * test/instrument/fixtures/http-span.mjs in a child process against dist/ (built when stale), so
 * the instrumentation patches `node:http` as it does in a server.
 *
 * Expected spans:
 *   tools/call (SERVER, instrumentation-http's span, ERROR)   single error
 *   tools/call (SERVER, instrumentation-http's span, UNSET)   single success
 *   jsonrpc    (SERVER, instrumentation-http's span)          single unknown method
 *   POST (SERVER, instrumentation-http)                       batch of two
 *     ├─ tools/call (SERVER, aap-triage, ERROR)
 *     └─ tools/call (SERVER, aap-triage)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/dist.js';

interface FixtureSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  status: number;
  attributes: Record<string, unknown>;
}
interface FixtureOutput {
  replies: Record<'singleError' | 'singleSuccess' | 'unknownMethod' | 'batch', { traceresponse: string | null }>;
  spans: FixtureSpan[];
  events: { trace_id: string; span_id: string; code: string }[];
}

const FIXTURE = join(import.meta.dirname, 'fixtures', 'http-span.mjs');
let out: FixtureOutput;
const traceOf = (reply: keyof FixtureOutput['replies']): string => (out.replies[reply].traceresponse ?? '').split('-')[1] ?? '';
const spansOf = (reply: keyof FixtureOutput['replies']): FixtureSpan[] => out.spans.filter((s) => s.traceId === traceOf(reply));

beforeAll(() => {
  ensureBuilt();
  const r = spawnSync(process.execPath, [FIXTURE], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  out = JSON.parse(r.stdout) as FixtureOutput;
}, 120_000);

describe('a call under the HTTP instrumentation\'s server span', () => {
  it('records a single error call on the HTTP server span: one span, renamed, with the call\'s attributes and status ERROR', () => {
    const spans = spansOf('singleError');
    expect(spans).toHaveLength(1);
    const span = spans[0] as FixtureSpan;
    expect(span).toMatchObject({ name: 'tools/call', kind: SpanKind.SERVER, parentSpanId: null, status: SpanStatusCode.ERROR });
    // Both instrumentations' attributes on the one span.
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'rpc.system.name': 'jsonrpc',
      'rpc.method': 'tools/call',
      'jsonrpc.request.id': 'single-error',
      'aap.protocol': 'dmc12',
      'aap.error.code': 'RESERVATION_CONFLICT',
    });
    // The audit row and the traceresponse header name that span.
    expect(out.replies.singleError.traceresponse).toBe(`00-${span.traceId}-${span.spanId}-01`);
    expect(out.events.find((e) => e.trace_id === span.traceId)).toMatchObject({ span_id: span.spanId, code: 'RESERVATION_CONFLICT' });
  });

  it('leaves a single success call\'s HTTP span UNSET, and names an unknown method\'s span jsonrpc', () => {
    const [ok] = spansOf('singleSuccess');
    expect(spansOf('singleSuccess')).toHaveLength(1);
    expect(ok).toMatchObject({ name: 'tools/call', status: SpanStatusCode.UNSET, attributes: { 'rpc.method': 'tools/call', 'http.request.method': 'POST' } });
    expect(spansOf('unknownMethod')).toHaveLength(1);
    expect(spansOf('unknownMethod')[0]).toMatchObject({ name: 'jsonrpc', attributes: { 'rpc.method': '_OTHER', 'rpc.method_original': 'FetchEverything' } });
  });

  it('gives each call of a batch its own child span under the HTTP server span', () => {
    const spans = spansOf('batch');
    const http = spans.find((s) => s.parentSpanId === null) as FixtureSpan;
    expect(http).toMatchObject({ name: 'POST', kind: SpanKind.SERVER });
    expect(http.attributes['rpc.method']).toBeUndefined();
    const children = spans.filter((s) => s.parentSpanId === http.spanId);
    expect(children.map((s) => [s.attributes['jsonrpc.request.id'], s.status])).toEqual(
      expect.arrayContaining([
        ['batch-error', SpanStatusCode.ERROR],
        ['batch-ok', SpanStatusCode.UNSET],
      ]),
    );
    expect(children).toHaveLength(2);
    const error = children.find((s) => s.attributes['jsonrpc.request.id'] === 'batch-error') as FixtureSpan;
    expect(out.events.find((e) => e.trace_id === http.traceId)).toMatchObject({ span_id: error.spanId });
  });
});
