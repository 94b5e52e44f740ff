/**
 * `record()` on plain data (DESIGN §2 last stage): one record per call, labels bounded once, one
 * `ErrorEvent` per audited error with every wire value checked once and pointers sanitised; calls
 * past the cap are records with no event; the retry tracker settles attempt and flags; batches,
 * notifications (never recorded), SSE answers and bodies that are not JSON.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createPseudonymizer } from '../../src/audit/pseudonym.js';
import { ErrorIdMemory } from '../../src/instrument/exchange/error-id-memory.js';
import { pair } from '../../src/instrument/exchange/pair.js';
import type { Answer } from '../../src/instrument/exchange/pair.js';
import { record } from '../../src/instrument/exchange/record.js';
import type { ExchangeFacts, RecordContext, RecordInput } from '../../src/instrument/exchange/record.js';
import { RetryTracker } from '../../src/instrument/exchange/retry-tracker.js';
import { checkOptions } from '../../src/instrument/options.js';
import { SafeCaller } from '../../src/instrument/safe-call.js';
import { classifyCall } from '../../src/protocol/parse-request.js';
import { parseCall } from '../../src/protocol/parse-response.js';

const SECRET = 'a-test-secret-of-at-least-32-chars-0123456789';
let ctx: RecordContext;
let warnings: string[];
beforeEach(() => {
  warnings = [];
  const p = createPseudonymizer(SECRET);
  ctx = {
    settings: checkOptions({ maxAuditedCallsPerExchange: 2 }, {}),
    service: 'dealer-test',
    serviceVersion: null,
    safe: new SafeCaller((fields) => warnings.push(String(fields.kind))),
    pseudonymizer: p,
    fingerprintOf: (method, skill, params) => p.fingerprint(method, skill, params),
    tracker: new RetryTracker({ windowMs: 600_000, maxKeys: 1000 }),
    errorIds: new ErrorIdMemory(),
  };
});

const T0 = Date.UTC(2026, 11, 2, 3, 0, 0);
const facts = (over: Partial<ExchangeFacts> = {}): ExchangeFacts => ({ startedAt: T0, endedAt: T0 + 12, httpStatus: 200, client: 'c1ient', attemptHeader: null, seen: null, origin: null, ...over });
const call = (id: number, data: Record<string, unknown> = {}) =>
  classifyCall({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_reservation', arguments: { vin: '1HGCM82633A004352', ...data } } });
const input = (c: ReturnType<typeof call> | null, answer: Answer | null, over: Partial<RecordInput> = {}): RecordInput => ({
  call: c,
  method: 'tools/call',
  index: 0,
  answer,
  batchOf: 0,
  span: null,
  endsSpan: false,
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  ...over,
});
const answer = (response: Record<string, unknown>, conformance: string[] = []): Answer => ({ outcome: parseCall(response, 'dmc12'), conformance });
const dmcError = (id: number, code: string, extra: Record<string, unknown> = {}) =>
  answer({ jsonrpc: '2.0', id, result: { data: { error: code.toLowerCase(), error_code: code, retryable: code === 'RATE_LIMITED', message: 'x', ...extra } } });

describe('record()', () => {
  it('makes a success a record with no event and null error labels', () => {
    const r = record(input(call(1), answer({ jsonrpc: '2.0', id: 1, result: { data: { ok: true } } })), facts(), ctx);
    expect(r).toMatchObject({ method: 'tools/call', protocol: 'dmc12', skill: 'create_reservation', attempt: 1, flags: [], durationS: 0.012, errorType: null, statusCode: null, errorCode: null, event: null, audited: true, count: 1 });
  });

  it('builds the one event of an error with the wire values checked once', () => {
    const id = 'err_0192f0c1a2b37c4d8e9fa0b1c2d3e4f5';
    const r = record(input(call(2), dmcError(2, 'RESERVATION_CONFLICT', { error_id: id })), facts(), ctx);
    expect(r).toMatchObject({ errorType: 'RESERVATION_CONFLICT', statusCode: null, errorCode: 'RESERVATION_CONFLICT', retryable: false });
    expect(r.event).toMatchObject({
      error_id: id,
      occurred_at: T0 + 12,
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      service: 'dealer-test',
      protocol: 'dmc12',
      rpc_method: 'tools/call',
      skill: 'create_reservation',
      code: 'RESERVATION_CONFLICT',
      legacy_error: 'reservation_conflict',
      http_status: 200,
      retryable: false,
      client: 'c1ient',
      attempt: 1,
      duration_ms: 12,
    });
    expect(r.event?.fingerprint).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(r.rowId).toBeNull();
  });

  it('mints a new error_id for a hostile wire id, bounds an unknown code, and sanitises pointers', () => {
    const hostile = answer({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'bad', data: { error_id: 'jane@example.com', error_code: 'jane@example.com', errors: [{ instanceLocation: '/arguments/jane@example.com', keyword: 'required' }] } },
    });
    const r = record(input(call(3), hostile), facts(), ctx);
    expect(r.event?.error_id).toMatch(/^err_[0-9a-f]{32}$/);
    expect(JSON.stringify(r)).not.toContain('example.com');
    expect(r.statusCode).toBe('-32602');
  });

  it('takes the HTTP status as the error of a call that got no JSON-RPC answer', () => {
    const r401 = record(input(call(4), null), facts({ httpStatus: 401 }), ctx);
    expect(r401.event).toMatchObject({ code: 'HTTP_401', retryable: false, protocol: 'jsonrpc', jsonrpc_code: null });
    const r503 = record(input(call(5), null), facts({ httpStatus: 503 }), ctx);
    expect(r503.event).toMatchObject({ code: 'HTTP_503', retryable: null });
    // A body that was not JSON (no call) answered with an error page is still one error.
    const unread = record(input(null, null, { method: '_OTHER' }), facts({ httpStatus: 400 }), ctx);
    expect(unread.event).toMatchObject({ code: 'HTTP_400', rpc_method: '_OTHER', skill: null });
  });

  it('files a server-defined code on a DMC-12 call under DMC-12 (its -32001 is the auth failure)', () => {
    const r = record(input(call(6), answer({ jsonrpc: '2.0', id: 6, error: { code: -32001, message: 'unauthorized' } })), facts({ httpStatus: 401 }), ctx);
    expect(r.protocol).toBe('dmc12');
    expect(r.event?.protocol).toBe('dmc12');
  });

  it('makes a call past the cap a record with no event, no span and no tracker entry, its labels still set', () => {
    const before = ctx.tracker.size;
    const r = record(input(call(7), dmcError(7, 'RATE_LIMITED'), { index: 2 }), facts(), ctx);
    expect(r).toMatchObject({ audited: false, event: null, span: null, errorType: 'RATE_LIMITED', errorCode: 'RATE_LIMITED', retryable: true, attempt: 1 });
    expect(ctx.tracker.size).toBe(before);
  });

  it('numbers retries across exchanges and flags a retry of a non-retryable error', () => {
    const first = record(input(call(8), dmcError(8, 'RESERVATION_CONFLICT')), facts(), ctx);
    const again = record(input(call(9), dmcError(9, 'RESERVATION_CONFLICT')), facts({ startedAt: T0 + 100, endedAt: T0 + 110 }), ctx);
    expect(first.attempt).toBe(1);
    expect(again.attempt).toBe(2);
    expect(again.flags).toEqual(['retried_non_retryable', 'no_backoff']);
  });

  it('does not count the same call twice in one batch as a retry of itself', () => {
    const body = [call(10), call(11), classifyCall({ jsonrpc: '2.0', method: 'tools/call', params: {} })];
    const calls = body.filter((c) => !c.isNotification).map((c) => ({ call: c }));
    expect(calls).toHaveLength(2);
    const x = facts({ seen: new Map() });
    const paired = pair(calls, [dmcError(10, 'RATE_LIMITED'), dmcError(11, 'RATE_LIMITED')], { status: 200, batch: true, post: true });
    const records = paired.map((p) => record(input(p.slot?.call ?? null, p.answer, { index: p.index }), x, ctx));
    expect(records.map((r) => r.attempt)).toEqual([1, 1]);
  });

  it('keeps a row for each error of a dealer that reuses an error_id, and says why', () => {
    const id = 'err_0192f0c1a2b37c4d8e9fa0b1c2d3e4f6';
    record(input(call(12, { n: 1 }), dmcError(12, 'VEHICLE_UNAVAILABLE', { error_id: id })), facts(), ctx);
    const r = record(input(call(13, { n: 2 }), dmcError(13, 'VEHICLE_UNAVAILABLE', { error_id: id })), facts(), ctx);
    expect(r.event?.error_id).toBe(id);
    expect(r.rowId).toMatch(/^err_[0-9a-f]{32}$/);
    expect(r.rowId).not.toBe(id);
    expect(r.event?.conformance).toContain('error-id-reused');
    expect(r.conformance).toContain('error-id-reused');
  });

  it('pseudonymises both the email and the phone of a customer, and never keeps either', () => {
    const c = call(14, { customer: { email: 'jane@example.com', phone: '+15550100123' } });
    const r = record(input(c, dmcError(14, 'VALIDATION_FAILED')), facts(), ctx);
    const p = createPseudonymizer(SECRET);
    expect(r.event?.subject).toBe(p.subject('jane@example.com'));
    expect(r.event?.subject_alt).toBe(p.subject('+15550100123'));
    expect(JSON.stringify(r.event)).not.toMatch(/example\.com|5550100123/);
  });

  it('reports a failing pseudonymiser once and leaves its fields null', () => {
    ctx = { ...ctx, fingerprintOf: () => { throw new Error('hsm down'); } };
    const r = record(input(call(15), dmcError(15, 'RATE_LIMITED')), facts(), ctx);
    expect(r.event?.fingerprint).toBeNull();
    expect(warnings).toEqual(['pseudonymizer']);
  });
});
