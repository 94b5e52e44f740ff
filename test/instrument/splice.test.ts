/**
 * No re-serialisation (issue 15): what the rewrite adds is spliced into the host's bytes, so every
 * value it did not need to change keeps the host's spelling — string escapes, number spellings,
 * whitespace, the DMC-12 legacy string (spec/dmc12-errors.txt: "the legacy error string, which is
 * preserved byte-identically") — and the body sent breaks no conformance rule the host's did not.
 * The property test runs a real `node:http` host behind `triage.wrap` over many seeds.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spliceJson, valueSpellings } from '../../src/instrument/exchange/json-splice.js';
import { conformanceRuleIds } from '../../src/protocol/index.js';
import { AAP_HEADERS, post, sendMessageBody } from '../helpers/aap-server.js';
import { DMC12_HEADERS, toolsCall } from '../helpers/dmc12-server.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** mulberry32: a small seeded PRNG, so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text of `v` in an unusual but valid spelling: odd whitespace, `\u` and `\/` escapes, `1.0` / `1E0` / `10e-1` numbers. */
function oddStringify(v: Json, r: () => number): string {
  const ws = (): string => ['', '', ' ', '\n  ', '\t', ' \r\n'][Math.floor(r() * 6)] as string;
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    // (`00e-1` would not be JSON: zero keeps its plain spellings.)
    if (!Number.isInteger(v) || v === 0 || r() < 0.3) return JSON.stringify(v);
    return [`${v}.0`, `${v}E0`, `${v}0e-1`, `${v}.000`, `${v}e+0`][Math.floor(r() * 5)] as string;
  }
  if (typeof v === 'string') {
    let out = '"';
    for (const ch of v) {
      const plain = JSON.stringify(ch).slice(1, -1);
      if (ch === '/' && r() < 0.5) out += '\\/';
      else if (r() < 0.25) out += [...ch].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('').replace(/[a-f]/g, (c) => (r() < 0.5 ? c.toUpperCase() : c));
      else out += plain;
    }
    return `${out}"`;
  }
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => oddStringify(x, r)).join(`${ws()},${ws()}`)}${ws()}]`;
  return `{${ws()}${Object.entries(v)
    // Keys as hosts write them (the observer's cheap pre-check looks for `"error`; no serialiser
    // we know escapes ASCII letters in a key); values get the odd spellings.
    .map(([k, x]) => `${JSON.stringify(k)}${ws()}:${ws()}${oddStringify(x, r)}`)
    .join(`${ws()},${ws()}`)}${ws()}}`;
}

const pick = <T,>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const TEXTS = ['Café crème: 2 vehicles / 3 dealers', 'No listing matches VIN 1HGCM82633A000009.', 'Über "quoted" text\twith a tab', 'Plain text'];
const STACK = '\n    at handler (/srv/dealer/skills.js:10:5)\n    at process (node:internal/process/task_queues:95:5)';
const DRAFT = 'see https://draft.autoagentprotocol.invalid/x';
const INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const AAP_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';
const ERROR_ID = 'err_0192f3c01a2b7c3d8e4f5a6b7c8d9e0f';
const AAP_CODES = ['VEHICLE_NOT_FOUND', 'VEHICLE_UNAVAILABLE', 'INVALID_CONSENT', 'IDEMPOTENCY_CONFLICT', 'INTERNAL_ERROR', 'RATE_LIMITED'] as const;
const URI = 'https://autoagentprotocol.org/extensions/aap/v1.3';

/** One random AAP-call response (the kinds the rewrite completes, plus successes). */
function aapReply(id: string, r: () => number): Json {
  const code = pick(r, AAP_CODES);
  const retryable = code === 'INTERNAL_ERROR' || code === 'RATE_LIMITED';
  const message = pick(r, TEXTS);
  const withId = r() < 0.4;
  const extra: Json = { n: pick(r, [0, 1, 42, 1500]), price: 27990, note: pick(r, TEXTS) };
  const details: { [k: string]: Json } = code === 'RATE_LIMITED' ? { retry_after_ms: 30000 } : { extra };
  switch (Math.floor(r() * 7)) {
    case 0: {
      const meta: { [k: string]: Json } = { code, retryable: String(retryable), created_at: '2026-04-30T10:15:30Z' };
      if (withId) meta.error_id = ERROR_ID;
      // A host-written payload may carry a trace in its own message (the rewrite cuts it).
      const payload: { [k: string]: Json } = { '@type': AAP_TYPE, type: 'aap.error', code, message: `${message}${r() < 0.3 ? STACK : ''}`, retryable, details, created_at: '2026-04-30T10:15:30Z' };
      if (withId) payload.error_id = ERROR_ID;
      return { jsonrpc: '2.0', id, error: { code: -32000, message, data: [{ '@type': INFO, reason: code, domain: 'autoagentprotocol.org', metadata: meta }, payload] } };
    }
    case 1: {
      const payload: { [k: string]: Json } = { type: 'aap.error', code, message: `${message}${r() < 0.3 ? STACK : ''}`, retryable, details, created_at: '2026-04-30T10:15:30Z' };
      if (withId) payload.error_id = ERROR_ID;
      return { jsonrpc: '2.0', id, error: { code: code === 'RATE_LIMITED' ? -32002 : -32000, message, data: payload } };
    }
    case 2:
      // Caller text may name a draft identifier, which the promoted envelope must not carry.
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `${code}: ${r() < 0.2 ? DRAFT : message}${r() < 0.5 ? STACK : ''}` } };
    case 3:
      return { jsonrpc: '2.0', id, error: { code: pick(r, [-32001, -32004, -32005, -32009]), message, ...(r() < 0.5 ? { data: [] } : {}) } };
    case 4:
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32008,
          message: r() < 0.5 ? 'Extension support required.' : `Client must declare support for required extensions: ${URI}`,
          ...(r() < 0.5 ? { data: [{ '@type': INFO, reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org', metadata: { extensionUri: URI } }] } : {}),
        },
      };
    case 5:
      return { jsonrpc: '2.0', id, error: { code: pick(r, [-32600, -32601, -32602]), message: `${message}${r() < 0.3 ? STACK : ''}` } };
    default:
      return { jsonrpc: '2.0', id, result: { message: { role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response', total: 3, price_min: 19990, label: message } }] } } };
  }
}

const DMC_CODES = ['RESERVATION_EXPIRED', 'QUOTE_EXPIRED', 'VEHICLE_NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'] as const;

/** One random DMC-12 `tools/call` response: result errors with and without ids and trace ids, plain errors, successes. */
function dmcReply(id: string, r: () => number): Json {
  const code = pick(r, DMC_CODES);
  const kind = Math.floor(r() * 4);
  if (kind === 3) return { jsonrpc: '2.0', id, result: { data: { vehicles: [{ vin: '1HGCM82633A000009', price: 27990, miles: 12.5 }] } } };
  if (kind === 2) return { jsonrpc: '2.0', id, error: { code: pick(r, [-32600, -32602]), message: pick(r, TEXTS) } };
  const data: { [k: string]: Json } = {
    error: code.toLowerCase(),
    message: pick(r, TEXTS),
    error_code: code,
    retryable: code === 'RATE_LIMITED' || code === 'INTERNAL_ERROR',
  };
  if (r() < 0.4) data.error_id = ERROR_ID;
  const result: { [k: string]: Json } = { data };
  if (r() < 0.5) result._metadata = { tool: 'create_reservation', protocol: 'a2a', ...(r() < 0.5 ? { trace_id: 'trc_0123456789abcdef' } : {}) };
  return { jsonrpc: '2.0', id, result };
}

/** True when every array on the way to `pointer` has the same length in both values (no element was inserted before it). */
function sameShapeTo(pointer: string, a: unknown, b: unknown): boolean {
  let x = a;
  let y = b;
  for (const seg of pointer.split('/').slice(1)) {
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && x.length !== (y as unknown[]).length) return false;
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    x = (x as Record<string, unknown> | undefined)?.[key];
    y = (y as Record<string, unknown> | undefined)?.[key];
  }
  return true;
}

let h: Harness;
let server: Server;
/** Seeds whose body the rewrite changed (the property is only worth something if most did). */
let changedBodies = 0;
let url = '';
/** What the host answers next: the exact text. */
let nextBody = '';
/** Headers the host passes to `writeHead` next (null: none, it calls `setHeader` only). */
let nextHead: Record<string, string> | string[] | null = null;
beforeAll(async () => {
  h = createHarness();
  server = createServer(
    h.triage.wrap((req, res) => {
      req.resume();
      req.on('end', () => {
        if (nextHead) {
          res.writeHead(200, nextHead as Record<string, string>);
          res.end(nextBody);
          return;
        }
        // No writeHead: Node then sets Content-Length, which the tap must correct when it changes the body.
        res.setHeader('content-type', 'application/json');
        res.end(nextBody);
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/jsonrpc`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.triage.shutdown();
});

describe('spliceJson', () => {
  it('appends a member and keeps every other byte', () => {
    const host = '{ "a" : 1.0 ,\n "s": "caf\\u00e9\\/x" }';
    const out = spliceJson(host, { a: 1, s: 'café/x', error_id: 'err_1' });
    expect(out).toBe('{ "a" : 1.0 ,\n "s": "caf\\u00e9\\/x","error_id":"err_1" }');
  });

  it('inserts an element at the front of an array and extends the one after it', () => {
    const host = '[ {"k":1E0} ]';
    expect(spliceJson(host, [{ t: 'x' }, { k: 1, id: 'e' }])).toBe('[ {"t":"x"},{"k":1E0,"id":"e"} ]');
  });

  it('replaces a changed value in place and an object that lost a member as a whole', () => {
    expect(spliceJson('{"m": "a\\u0020b", "n": 2.50}', { m: 'c', n: 2.5 })).toBe('{"m": "c", "n": 2.50}');
    expect(spliceJson('{"o": {"x": 1, "y": 2.0}, "z": 1.0}', { o: { x: 1 }, z: 1 })).toBe('{"o": {"x":1}, "z": 1.0}');
  });

  it('drops a member set to undefined, as JSON.stringify would', () => {
    expect(JSON.parse(spliceJson('{"a": 1.0, "b": [2.0]}', { a: undefined, b: [undefined] }))).toEqual({ b: [null] });
  });

  it('throws SyntaxError on text that is not JSON', () => {
    expect(() => spliceJson('{"a":', {})).toThrow(SyntaxError);
  });
});

describe('the rewrite splices into the host body', () => {
  it("keeps a DMC-12 legacy string byte-identical while adding error_id and trace_id", async () => {
    nextBody = '{"jsonrpc":"2.0","id":"leg-1","result":{"data":{"error":"reservation\\u005Fexpired","message":"Hold lapsed.","error_code":"RESERVATION_EXPIRED","retryable":false}}}';
    const r = await post(url, toolsCall('leg-1', 'initiate_deal_handoff', {}), DMC12_HEADERS);
    expect(r.text).toContain('"error":"reservation\\u005Fexpired"');
    expect(r.text.startsWith('{"jsonrpc":"2.0","id":"leg-1","result":{"data":{"error":"reservation\\u005Fexpired","message":"Hold lapsed.","error_code":"RESERVATION_EXPIRED","retryable":false,"error_id":"err_')).toBe(true);
    expect(r.json).toMatchObject({ result: { data: { error: 'reservation_expired', error_id: expect.stringMatching(/^err_/) }, _metadata: { trace_id: expect.stringMatching(/^trc_/) } } });
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
  });

  it.each([
    ['an object', 'object'],
    ['a flat array', 'array'],
  ])('corrects Content-Length and drops the ETag given to writeHead as %s, leaving the host its own headers', async (_, form) => {
    const legacy = '{"jsonrpc":"2.0","id":"wh-1","result":{"data":{"error":"reservation_expired","message":"Hold lapsed.","error_code":"RESERVATION_EXPIRED","retryable":false}}}';
    const shared = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(legacy)), ETag: '"host-etag-1"' };
    nextBody = legacy;
    nextHead = form === 'object' ? shared : Object.entries(shared).flat();
    const before = JSON.stringify(nextHead);
    try {
      const r = await post(url, toolsCall('wh-1', 'initiate_deal_handoff', {}), DMC12_HEADERS);
      expect(r.text).not.toBe(legacy); // the error_id was added
      expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
      expect(r.headers.get('etag')).toBeNull();
      expect(r.headers.get('content-type')).toBe('application/json');
      // The host may reuse one headers object for every response: it is not changed.
      expect(JSON.stringify(nextHead)).toBe(before);
    } finally {
      nextHead = null;
    }
  });

  it.each(Array.from({ length: 240 }, (_, i) => i + 1))('seed %i: unchanged values keep their bytes; no rule is broken by the change', async (seed) => {
    const r = prng(seed);
    const dmc = r() < 0.35;
    const batch = r() < 0.3;
    const n = batch ? 2 + Math.floor(r() * 3) : 1;
    const ids = Array.from({ length: n }, (_, i) => `s${seed}-${i}`);
    const replies = ids.map((id) => (dmc ? dmcReply(id, r) : aapReply(id, r)));
    const requests = ids.map((id) => (dmc ? toolsCall(id, 'create_reservation', {}) : sendMessageBody(id, 'inventory.vehicle', {})));
    const texts = replies.map((x) => oddStringify(x, r));
    nextBody = batch ? `[ ${texts.join(' ,\n')} ]` : (texts[0] as string);
    const res = await post(url, batch ? requests : requests[0], dmc ? DMC12_HEADERS : AAP_HEADERS);

    const sent = JSON.parse(res.text) as unknown;
    if (res.text !== nextBody) changedBodies++;
    const host = JSON.parse(nextBody) as unknown;
    const before = valueSpellings(nextBody);
    const after = valueSpellings(res.text);
    for (const [pointer, spelling] of before) {
      const now = after.get(pointer);
      if (now === undefined || !sameShapeTo(pointer, host, sent)) continue;
      if (JSON.stringify(JSON.parse(now)) === JSON.stringify(JSON.parse(spelling))) expect(now, `${pointer} (seed ${seed})`).toBe(spelling);
    }
    // A batch member that needed nothing is the host's text, untouched.
    if (batch) {
      (sent as unknown[]).forEach((x, i) => {
        if (JSON.stringify(x) === JSON.stringify(replies[i])) expect(res.text).toContain(texts[i]);
      });
    }

    const family = dmc ? 'dmc12' : 'aap';
    const broken = conformanceRuleIds(host, { family });
    const caused = conformanceRuleIds(sent, { family }).filter((rule) => !broken.includes(rule));
    expect(caused, `seed ${seed}: ${nextBody}`).toEqual([]);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
  });

  it('changed the body for most seeds (the property above was exercised)', () => {
    expect(changedBodies).toBeGreaterThan(150);
  });
});
