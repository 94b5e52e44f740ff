/**
 * The one SSE parser (`SseReader`, and `parseSseResponse` on top of it): the three line endings,
 * UTF-8 characters and CRLF pairs split across chunks at every possible point, and the field rules.
 */
import { describe, expect, it } from 'vitest';
import { SseReader, isParseFailure, parseSseResponse, type SseEvent } from '../../src/protocol/index.js';

/** Feeds `chunks` to a fresh reader and returns what it dispatched. */
function read(chunks: (string | Uint8Array)[], maxEventChars?: number): SseEvent[] {
  const out: SseEvent[] = [];
  const reader = new SseReader((e) => out.push(e), maxEventChars);
  for (const c of chunks) reader.push(c);
  reader.end();
  return out;
}

const bytes = (s: string) => new TextEncoder().encode(s);

/** A stream with multi-byte characters (2, 3 and 4 bytes in UTF-8), two events, a comment and a multi-line data field. */
const LF_STREAM =
  ': keep-alive\n' +
  'event: update\n' +
  'data: {"jsonrpc":"2.0","id":"é1","result":{"note":"Müller — 🚗"}}\n' +
  '\n' +
  'data: {"jsonrpc":"2.0","id":"é1",\n' +
  'data:"error":{"code":-32603,"message":"naïve ✓"}}\n' +
  '\n';

const EXPECTED: SseEvent[] = [
  { event: 'update', data: '{"jsonrpc":"2.0","id":"é1","result":{"note":"Müller — 🚗"}}' },
  { event: 'message', data: '{"jsonrpc":"2.0","id":"é1",\n"error":{"code":-32603,"message":"naïve ✓"}}' },
];

const ENDINGS: [string, string][] = [
  ['LF', LF_STREAM],
  ['CRLF', LF_STREAM.replace(/\n/g, '\r\n')],
  ['CR', LF_STREAM.replace(/\n/g, '\r')],
  // Empty lines end in CRLF so that a CR before them never pairs with their LF.
  ['mixed', LF_STREAM.slice(0, -1).split('\n').map((l, i) => l + (l === '' ? '\r\n' : ['\n', '\r', '\r\n'][i % 3])).join('') + '\r\n'],
];

describe('SseReader', () => {
  it.each(ENDINGS)('reads %s line endings into the same events', (_name, text) => {
    expect(read([text])).toEqual(EXPECTED);
    expect(read([bytes(text)])).toEqual(EXPECTED);
  });

  it.each(ENDINGS)('gives the same events for %s endings split in two at every byte, and fed one byte at a time', (_name, text) => {
    const all = bytes(text);
    for (let cut = 1; cut < all.length; cut++) {
      expect(read([all.subarray(0, cut), all.subarray(cut)]), `cut at byte ${cut}`).toEqual(EXPECTED);
    }
    expect(read([...all].map((b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });

  it('takes a CR ending one chunk and an LF starting the next as one line end, not an empty line', () => {
    // Were CR|LF two line ends, the empty line between them would dispatch "a" alone.
    expect(read(['data: a\r', '\ndata: b\r\n\r\n'])).toEqual([{ event: 'message', data: 'a\nb' }]);
    expect(read([bytes('data: a\r'), bytes('\ndata: b\r'), bytes('\n\r'), bytes('\n')])).toEqual([{ event: 'message', data: 'a\nb' }]);
    // A lone CR at a chunk end followed by more text is a line end of its own.
    expect(read(['data: a\r', 'data: b\r\r'])).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('follows the field rules: one leading space dropped, a field without colon, comments, unknown fields', () => {
    expect(read(['data:  two spaces\nid: 7\nretry: 10\nfoo: bar\ndata\n: comment\n\n'])).toEqual([{ event: 'message', data: ' two spaces\n' }]);
    expect(read(['event: ping\n\n'])).toEqual([]); // no data, no event
  });

  it('dispatches a last event whose blank line never came (the buyer SDK acts on it), and a last line without its end', () => {
    expect(read(['data: a\n'])).toEqual([{ event: 'message', data: 'a' }]);
    expect(read(['data: a'])).toEqual([{ event: 'message', data: 'a' }]);
    expect(read(['data: a\r'])).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('skips an event larger than the cap and reads its neighbours', () => {
    const big = `data: ${'x'.repeat(100)}\n\n`;
    expect(read(['data: a\n\n', big, 'data: b\n\n'], 50)).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
    // One unterminated line over the cap, arriving in pieces.
    expect(read(['data: a\n\n', `data: ${'y'.repeat(40)}`, 'y'.repeat(40), '\n\ndata: b\n\n'], 50)).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });

  it('reads invalid UTF-8 as U+FFFD without throwing, and ignores input after end()', () => {
    const out: SseEvent[] = [];
    const reader = new SseReader((e) => out.push(e));
    reader.push(Uint8Array.of(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a, 0xe2, 0x82));
    reader.end();
    reader.push('data: late\n\n');
    expect(out).toEqual([{ event: 'message', data: '\ufffd' }]);
  });
});

describe('parseSseResponse', () => {
  it.each(ENDINGS)('gives the first error of a call for %s line endings', (_name, text) => {
    const r = parseSseResponse(bytes(text));
    expect(isParseFailure(r)).toBe(false);
    expect(r).toEqual([{ id: 'é1', ok: false, error: expect.objectContaining({ code: '-32603', jsonrpcCode: -32603 }) }]);
  });

  it('reads a rejected status update (1.0 and 0.3 names) as an error', () => {
    const update = (state: string) => `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"status":{"state":"${state}"}}}}\r\r`;
    for (const state of ['TASK_STATE_REJECTED', 'rejected']) {
      expect(parseSseResponse(update('TASK_STATE_WORKING') + update(state))).toEqual([
        { id: 1, ok: false, error: expect.objectContaining({ form: 'task-failed', code: 'TASK_REJECTED' }) },
      ]);
    }
  });
});
