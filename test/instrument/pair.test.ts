/**
 * `pair()` on plain data (DESIGN §2 first stage): JSON-RPC 2.0 §6 matching by id, in any order,
 * `1` and `"1"` apart; notifications never expect an answer; whole-batch failures; bodies that
 * could not be read; SSE answers (one per call); calls past the audit cap keep their position.
 */
import { describe, expect, it } from 'vitest';
import { classifyCall } from '../../src/protocol/parse-request.js';
import { pair } from '../../src/instrument/exchange/pair.js';
import type { Answer } from '../../src/instrument/exchange/pair.js';
import { SseAnswers } from '../../src/instrument/exchange/exchange-utils.js';
import { parseCall } from '../../src/protocol/parse-response.js';

/** The calls of a request body the exchange pairs: every call that expects an answer (no notifications). */
const callsOf = (body: unknown[]) => body.map(classifyCall).filter((c) => !c.isNotification).map((call) => ({ call }));
const ok = (id: string | number | null): Answer => ({ outcome: { id, ok: true }, conformance: [] });
const failed = (id: string | number | null, code = -32602): Answer => ({ outcome: parseCall({ jsonrpc: '2.0', id, error: { code, message: 'x' } }), conformance: [] });
const req = (id: unknown, method = 'tools/call') => (id === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id, method });
const POST_200 = { status: 200, batch: false, post: true };
const BATCH_200 = { status: 200, batch: true, post: true };

describe('pair()', () => {
  it('pairs a single call with its answer', () => {
    const calls = callsOf([req(7)]);
    const out = pair(calls, [failed(7)], POST_200);
    expect(out).toEqual([{ slot: calls[0], index: 0, answer: failed(7), batchOf: 0 }]);
  });

  it('pairs a batch by id whatever the order, and tells 1 from "1"', () => {
    const calls = callsOf([req(1), req('1'), req(2)]);
    const answers = [ok(2), failed('1'), ok(1)];
    const out = pair(calls, answers, BATCH_200);
    expect(out.map((p) => [p.index, p.slot?.call?.id, p.answer?.outcome.id, p.answer?.outcome.ok])).toEqual([
      [0, 1, 1, true],
      [1, '1', '1', false],
      [2, 2, 2, true],
    ]);
  });

  it('leaves notifications out: only calls with an id expect an answer', () => {
    const calls = callsOf([req(undefined), req(1), req(undefined), req(2)]);
    expect(calls).toHaveLength(2);
    const out = pair(calls, [ok(2), ok(1)], BATCH_200);
    expect(out.map((p) => [p.index, p.slot?.call?.id, p.answer?.outcome.id])).toEqual([
      [0, 1, 1],
      [1, 2, 2],
    ]);
  });

  it('gives repeated ids their answers in turn, and an answer no call claims a place after the calls', () => {
    const calls = callsOf([req(5), req(5), req(6)]);
    const out = pair(calls, [failed(5), ok(5), ok(9)], BATCH_200);
    expect(out.map((p) => [p.index, p.slot?.call?.id ?? null, p.answer?.outcome.id ?? null, p.answer?.outcome.ok ?? null])).toEqual([
      [0, 5, 5, false],
      [1, 5, 5, true],
      [2, 6, null, null],
      [3, null, 9, true],
    ]);
  });

  it('stays linear for a hostile batch that repeats one id thousands of times', () => {
    const n = 20_000;
    const calls = callsOf(Array.from({ length: n }, () => req(1)));
    const out = pair(calls, Array.from({ length: n }, () => ok(1)), BATCH_200);
    expect(out).toHaveLength(n);
    expect(out.every((p, i) => p.index === i && p.answer !== null)).toBe(true);
  });

  it('is one entry for a failure of the whole batch: no answer with an error status, or one error with id null', () => {
    const calls = callsOf([req(1), req(2), req(3)]);
    expect(pair(calls, [], { status: 413, batch: true, post: true })).toEqual([{ slot: calls[0], index: 0, answer: null, batchOf: 3 }]);
    const whole = failed(null, -32600);
    expect(pair(calls, [whole], BATCH_200)).toEqual([{ slot: calls[0], index: 0, answer: whole, batchOf: 3 }]);
  });

  it('answers a single call with id null (a parse error) with that answer', () => {
    const calls = callsOf([req(4)]);
    const parse = failed(null, -32700);
    expect(pair(calls, [parse], POST_200)).toEqual([{ slot: calls[0], index: 0, answer: parse, batchOf: 0 }]);
  });

  it('keeps one entry for a POST whose body was not JSON: its -32700 answer, or the HTTP error page', () => {
    // The body could not be read: no calls.
    const parse = failed(null, -32700);
    expect(pair([], [parse], { status: 400, batch: false, post: true })).toEqual([{ slot: null, index: 0, answer: parse, batchOf: 0 }]);
    expect(pair([], [], { status: 400, batch: false, post: true })).toEqual([{ slot: null, index: 0, answer: null, batchOf: 0 }]);
    // A GET of a page, or a 200 without JSON-RPC: nothing to record.
    expect(pair([], [], { status: 200, batch: false, post: true })).toEqual([]);
    expect(pair([], [], { status: 404, batch: false, post: false })).toEqual([]);
  });

  it('records a call that got no answer (its success, or the status error, is decided later)', () => {
    const calls = callsOf([req(1)]);
    expect(pair(calls, [], { status: 500, batch: false, post: true })).toEqual([{ slot: calls[0], index: 0, answer: null, batchOf: 0 }]);
  });

  it('pairs the answers of an SSE stream: one per call, the first error kept over a success', () => {
    const frames = [
      { jsonrpc: '2.0', id: 1, result: { kind: 'status-update' } },
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } },
      { jsonrpc: '2.0', id: 1, result: { kind: 'status-update', final: true } },
    ];
    const sse = new SseAnswers(1 << 20, (item) => ({ item, changed: false, outcome: parseCall(item), conformance: [], minted: false, promoted: false }));
    sse.push(Buffer.from(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('')));
    const answers = sse.end();
    expect(answers).toHaveLength(1);
    const calls = callsOf([{ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage' }]);
    const out = pair(calls, answers, POST_200);
    expect(out).toHaveLength(1);
    expect(out[0]?.answer?.outcome).toMatchObject({ id: 1, ok: false, error: { jsonrpcCode: -32603 } });
  });

  it('keeps every call of a batch larger than the audit cap, each at its position', () => {
    const calls = callsOf(Array.from({ length: 150 }, (_, i) => req(i)));
    const out = pair(calls, Array.from({ length: 150 }, (_, i) => failed(149 - i)), BATCH_200);
    expect(out.map((p) => p.index)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(out.every((p) => p.answer?.outcome.id === p.slot?.call?.id)).toBe(true);
  });
});
