/**
 * Batches cost what their calls cost (issue 16): a transport-level failure of a whole batch is
 * one error (row, span, log line), the calls of one batch are not retries of each other, and the
 * calls past `maxAuditedCallsPerExchange` end in one counted summary (gap row + log line).
 * A real `node:http` JSON-RPC server wrapped by the triage; in-memory OTel and audit sink.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPPED_LOG_MESSAGE, EXCHANGE_CAP_REASON } from '../../src/instrument/sinks/log.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, dmc12Listener, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { counterSum, waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

/**
 * The test server, plus transport failures chosen by header: `x-test-status: 413` answers with
 * that status and an HTML page (no JSON-RPC at all); `x-test-single: <code>` answers HTTP 400
 * with one JSON-RPC error object (id null) for the whole array.
 */
function listener(req: IncomingMessage, res: ServerResponse): void {
  const status = req.headers['x-test-status'];
  const single = req.headers['x-test-single'];
  if (typeof status === 'string' || typeof single === 'string') {
    req.resume();
    req.on('end', () => {
      if (typeof status === 'string') {
        res.writeHead(Number(status), { 'content-type': 'text/html' });
        res.end('<html><body>413 Request Entity Too Large</body></html>');
      } else {
        const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: Number(single), message: 'Invalid Request' } });
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(body);
      }
    });
    return;
  }
  dmc12Listener(req, res);
}

const CAP = 20;
let h: Harness;
let srv: Dmc12Server;
beforeAll(async () => {
  // One line per audited error is counted below: storm sampling of the lines (test/instrument/log-sampling.test.ts) is set out of the way.
  h = createHarness({ maxAuditedCallsPerExchange: CAP, logLinesPerSecond: 1000 });
  srv = await startDmc12Server(h.triage, listener);
});
afterAll(async () => {
  await srv.close();
  await h.triage.shutdown();
});

/** `n` identical calls (same tool and arguments) with ids `${tag}-0…`. */
const batchOf = (tag: string, n: number, args: Record<string, unknown> = {}): unknown[] =>
  Array.from({ length: n }, (_, i) => toolsCall(`${tag}-${i}`, 'create_reservation', args));

/** Waits until the sink holds `n` more events than `before`, then a little longer for stragglers. */
async function settle(cond: () => boolean): Promise<void> {
  await waitFor(cond);
  await new Promise((r) => setTimeout(r, 50));
}

describe('a transport-level failure of a whole batch', () => {
  it('is one error row, span and log line for a 413 with no JSON-RPC answer', async () => {
    const events = h.sink.events.length;
    const lines = h.log.lines().length;
    const errorSpans = h.otel.spans().filter((s) => s.status.code === SpanStatusCode.ERROR).length;
    const r = await post(srv.url, batchOf('t413', 500), { ...DMC12_HEADERS, 'x-test-status': '413' });
    expect(r.status).toBe(413);
    await settle(() => h.sink.events.length > events);
    const added = h.sink.events.slice(events);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ code: 'HTTP_413', http_status: 413, attempt: 1, retry_flags: [] });
    expect(h.log.lines().length - lines).toBe(1);
    expect(h.otel.spans().filter((s) => s.status.code === SpanStatusCode.ERROR).length - errorSpans).toBe(1);
    expect(h.sink.gaps).toHaveLength(0);
  });

  it('is one error for a single error object answering the array, and a resend is attempt 2 of that batch', async () => {
    const events = h.sink.events.length;
    const batch = batchOf('single', 300);
    const r = await post(srv.url, batch, { ...DMC12_HEADERS, 'x-test-single': '-32600' });
    expect(r.status).toBe(400);
    await settle(() => h.sink.events.length > events);
    expect(h.sink.events.slice(events)).toHaveLength(1);
    expect(h.sink.events[events]).toMatchObject({ code: '-32600', jsonrpc_code: -32600, http_status: 400, attempt: 1 });
    await post(srv.url, batch, { ...DMC12_HEADERS, 'x-test-single': '-32600' });
    await settle(() => h.sink.events.length > events + 1);
    expect(h.sink.events.slice(events)).toHaveLength(2);
    expect(h.sink.events[events + 1]?.attempt).toBe(2);
  });
});

describe('a single parse error answering a batch with HTTP 200', () => {
  it('is one -32700 error for the exchange', async () => {
    const events = h.sink.events.length;
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toString('base64');
    const r = await post(srv.url, batchOf('parse', 50), { ...DMC12_HEADERS, 'x-test-raw-response': body });
    expect(r.status).toBe(200);
    await settle(() => h.sink.events.length > events);
    expect(h.sink.events.slice(events).map((e) => [e.code, e.http_status, e.attempt])).toEqual([['-32700', 200, 1]]);
  });
});

describe('calls of one batch', () => {
  it('are not retries of each other: identical calls in one batch are all attempt 1, unflagged', async () => {
    const metrics = await h.otel.metrics();
    const retriesBefore = counterSum(metrics.get('aap.server.retries'));
    const events = h.sink.events.length;
    await post(srv.url, batchOf('same', CAP, { fail: 'RESERVATION_LIMIT' }), DMC12_HEADERS);
    await settle(() => h.sink.events.length >= events + CAP);
    const added = h.sink.events.slice(events);
    expect(added).toHaveLength(CAP);
    expect(added.every((e) => e.attempt === 1 && e.retry_flags.length === 0)).toBe(true);
    expect(counterSum((await h.otel.metrics()).get('aap.server.retries'))).toBe(retriesBefore);
  });
});

describe('the per-exchange audit cap', () => {
  it('audits the first calls one by one and ends in one counted summary: a gap row and a log line', async () => {
    const n = 250;
    const metrics = await h.otel.metrics();
    const errorsBefore = counterSum(metrics.get('aap.server.errors'));
    const events = h.sink.events.length;
    const lines = h.log.lines().length;
    const errorSpans = h.otel.spans().filter((s) => s.status.code === SpanStatusCode.ERROR).length;
    const r = await post(srv.url, batchOf('cap', n, { fail: 'VEHICLE_UNAVAILABLE' }), DMC12_HEADERS);
    // Every call still gets its answer, each with an error_id the caller can quote.
    expect((r.json as unknown[]).length).toBe(n);
    await settle(() => h.sink.gaps.length > 0);
    expect(h.sink.events.length - events).toBe(CAP);
    expect(h.sink.gaps).toHaveLength(1);
    const gap = h.sink.gaps[0];
    expect(gap).toMatchObject({ service: 'dealer-test', count: n - CAP, reason: EXCHANGE_CAP_REASON });
    expect(gap?.startedAt).toBeLessThanOrEqual(gap?.endedAt ?? 0);
    // Rows + the gap's count = the errors the caller saw; the metric counts every one.
    expect(h.sink.events.length - events + (gap?.count ?? 0)).toBe(n);
    expect(counterSum((await h.otel.metrics()).get('aap.server.errors')) - errorsBefore).toBe(n);
    const added = h.log.lines().slice(lines);
    expect(added).toHaveLength(CAP + 1);
    const summary = added.find((l) => l.msg === CAPPED_LOG_MESSAGE);
    expect(summary).toMatchObject({ not_audited: n - CAP, cap: CAP, reason: EXCHANGE_CAP_REASON });
    expect(h.otel.spans().filter((s) => s.status.code === SpanStatusCode.ERROR).length - errorSpans).toBe(CAP);
    expect(h.sink.health().dropped).toBe(n - CAP);
  });

  it('still completes the wire past the cap: every error the dealer sent without an id gets one', async () => {
    const gaps = h.sink.gaps.length;
    const r = await post(srv.url, batchOf('mint', CAP + 30, { fail: 'QUOTE_EXPIRED', omitErrorId: true }), DMC12_HEADERS);
    const replies = r.json as { result: { data: { error_id?: string } } }[];
    expect(replies).toHaveLength(CAP + 30);
    const ids = replies.map((x) => x.result.data.error_id);
    expect(ids.every((id) => typeof id === 'string' && /^err_[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(CAP + 30);
    await settle(() => h.sink.gaps.length > gaps);
    expect(h.sink.gaps[gaps]).toMatchObject({ count: 30, reason: EXCHANGE_CAP_REASON });
    // The audited ones are stored under the ids the caller holds.
    for (const id of ids.slice(0, CAP)) expect(h.sink.events.some((e) => e.error_id === id), id).toBe(true);
  });

  it('rejects a cap that is not a positive integer, naming the option', () => {
    expect(() => createHarness({ maxAuditedCallsPerExchange: 0 })).toThrow(/maxAuditedCallsPerExchange/);
  });
});
