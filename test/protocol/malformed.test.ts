import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  type ParseFailureCode,
  checkConformance,
  classifyRequest,
  isParseFailure,
  matchBatch,
  parseResponse,
} from '../../src/protocol/index.js';

function failureCode(result: unknown): ParseFailureCode | 'no-failure' {
  return isParseFailure(result) ? result.parseError.code : 'no-failure';
}

afterEach(() => {
  // Nothing may ever leak onto Object.prototype.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

describe('malformed bodies give a clear parse failure and never throw', () => {
  it('reports truncated JSON as truncated, whether cut inside a string or between members', () => {
    const full = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Per-key rate limit exceeded.' } });
    for (const cut of [10, 30, full.length - 1, full.indexOf('Per-key') + 3]) {
      const r = parseResponse(full.slice(0, cut));
      expect(failureCode(r)).toBe('truncated');
      expect((r as { parseError: { message: string } }).parseError.message).toMatch(/ends early/);
    }
    expect(failureCode(parseResponse(Buffer.from(full.slice(0, 25))))).toBe('truncated');
  });

  it('reports other syntax errors as invalid-json', () => {
    expect(failureCode(parseResponse('{"jsonrpc":"2.0","id":1,}'))).toBe('invalid-json');
    expect(failureCode(parseResponse('{"a":1}}'))).toBe('invalid-json');
    expect(failureCode(parseResponse("{'a':1}"))).toBe('invalid-json');
  });

  it('reports invalid UTF-8 bytes as invalid-utf8 (bad byte, overlong form, encoded surrogate)', () => {
    const prefix = Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"');
    const suffix = Buffer.from('"}}');
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([prefix, Buffer.from(bad), suffix]);
      expect(failureCode(parseResponse(body))).toBe('invalid-utf8');
      expect(failureCode(parseResponse(new Uint8Array(body)))).toBe('invalid-utf8');
    }
    // Well-formed multi-byte UTF-8 and a leading BOM are fine.
    const good = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), prefix, Buffer.from('Prüfung – 車'), suffix]);
    expect(failureCode(parseResponse(good))).toBe('no-failure');
  });

  it('refuses a 10 MB body with a small cap quickly, and with the default 8 MiB cap', () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}}`;
    const started = performance.now();
    expect(failureCode(parseResponse(big, { maxBytes: 64 * 1024 }))).toBe('too-large');
    expect(failureCode(parseResponse(Buffer.from(big), { maxBytes: 64 * 1024 }))).toBe('too-large');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(failureCode(parseResponse(big))).toBe('too-large');
    // Multi-byte text is measured in UTF-8 bytes, not UTF-16 units.
    expect(failureCode(parseResponse(`"${'é'.repeat(600)}"`, { maxBytes: 1000 }))).toBe('too-large');
  });

  it('refuses nesting 10 000 deep as too-deep (text, bytes and already-parsed values), and a cycle', () => {
    const arrays = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    expect(failureCode(parseResponse(arrays))).toBe('too-deep');
    expect(failureCode(parseResponse(Buffer.from(objects)))).toBe('too-deep');
    expect(failureCode(classifyRequest(objects))).toBe('too-deep');
    let deep: unknown = { jsonrpc: '2.0', id: 1, result: {} };
    for (let i = 0; i < 10_000; i++) deep = { result: deep };
    expect(failureCode(parseResponse(deep))).toBe('too-deep');
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', id: 1, result: {} };
    (cyclic.result as Record<string, unknown>).self = cyclic;
    expect(failureCode(parseResponse(cyclic))).toBe('too-deep');
    // Brackets inside strings do not count.
    expect(failureCode(parseResponse(`{"jsonrpc":"2.0","id":1,"result":{"s":"${'['.repeat(500)}"}}`))).toBe('no-failure');
  });

  it('honours a custom maxDepth', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { a: { b: { c: {} } } } });
    expect(failureCode(parseResponse(body, { maxDepth: 3 }))).toBe('too-deep');
    expect(failureCode(parseResponse(body, { maxDepth: 5 }))).toBe('no-failure');
  });

  it('reports empty bodies as empty, and non-JSON-RPC values as not-jsonrpc', () => {
    for (const body of ['', '   \n', Buffer.alloc(0)]) expect(failureCode(parseResponse(body))).toBe('empty');
    for (const body of ['null', '42', '"x"', '[]', '[1,2]', '{"jsonrpc":"2.0"}', null, undefined, 7, Symbol('x'), 10n]) {
      expect(failureCode(parseResponse(body))).toBe('not-jsonrpc');
    }
  });

  it('keeps __proto__ and constructor keys inert: no pollution, and the rest still parses', () => {
    const body =
      '{"jsonrpc":"2.0","id":1,"__proto__":{"polluted":"yes"},"error":{"code":-32000,"message":"x","__proto__":{"polluted":1},' +
      '"data":{"__proto__":{"polluted":2},"constructor":{"prototype":{"polluted":3}},"type":"aap.error","code":"RATE_LIMITED",' +
      '"retryable":"false","error_id":"err_1","details":{"__proto__":{"retry_after_ms":5}}}}}';
    const [outcome] = parseResponse(body) as CallOutcome[];
    expect(outcome!.error).toMatchObject({ code: 'RATE_LIMITED', retryable: false, errorId: 'err_1', retryAfterMs: null });
    expect(failureCode(parseResponse('{"__proto__":{"result":1,"polluted":true}}'))).toBe('not-jsonrpc');
    expect(failureCode(parseResponse('[{"__proto__":{"polluted":true}}]'))).toBe('not-jsonrpc');
    expect(Array.isArray(classifyRequest('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"__proto__":{"polluted":1}}}'))).toBe(true);
    expect(failureCode(matchBatch('{"__proto__":{"polluted":1},"id":1,"method":"x"}', body))).toBe('no-failure');
    expect(() => checkConformance(body)).not.toThrow();
  });

  it('survives hostile already-parsed values (throwing getters, proxies)', () => {
    const hostile = {
      jsonrpc: '2.0',
      id: 1,
      get error(): unknown {
        throw new Error('getter exploded');
      },
    };
    expect(failureCode(parseResponse(hostile))).toBe('not-jsonrpc');
    const proxy = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
        has: () => {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('trap');
        },
      },
    );
    expect(() => parseResponse(proxy)).not.toThrow();
    expect(() => classifyRequest(proxy)).not.toThrow();
    expect(() => matchBatch(proxy, proxy)).not.toThrow();
    expect(() => checkConformance(proxy)).not.toThrow();
  });
});
