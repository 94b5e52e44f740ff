/**
 * Bad input and broken collaborators (DESIGN §8): the host's reply goes out unchanged, nothing
 * throws into the host, nothing pollutes a prototype, and each failing hook warns once.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTriage } from '../../src/instrument/index.js';
import type { AuditSink } from '../../src/audit/sink.js';
import { captureLog } from '../helpers/log-capture.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { post } from '../helpers/aap-server.js';
import { waitFor } from '../helpers/otel.js';
import { assertErrorSpan, createHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let srv: Dmc12Server;
beforeAll(async () => {
  h = createHarness({ maxBodyBytes: 4096 });
  srv = await startDmc12Server(h.triage);
});
afterAll(async () => {
  await srv.close();
  await h.triage.shutdown();
});

/** Sends `raw` bytes as the server's reply to a tools/call with id `id`; returns the bytes received. */
async function rawReply(id: string, raw: Buffer): Promise<Buffer> {
  const res = await fetch(srv.url, {
    method: 'POST',
    headers: { ...DMC12_HEADERS, 'x-test-raw-response': raw.toString('base64') },
    body: JSON.stringify(toolsCall(id, 'search_inventory')),
  });
  return Buffer.from(await res.arrayBuffer());
}

describe('odd response bodies pass through unchanged', () => {
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
  const cases: [string, Buffer][] = [
    ['truncated JSON', Buffer.from('{"jsonrpc":"2.0","id":"t","error":{"code":-32603,"mess')],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"u","error":{"code":-32603,"message":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')])],
    ['a body over the cap', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'big', error: { code: -32603, message: 'x'.repeat(6000) } }))],
    ['deep nesting', Buffer.from(`{"jsonrpc":"2.0","id":"deep","error":{"code":-32603,"message":"m","data":${nested(1500)}}}`)],
    ['an empty body', Buffer.alloc(0)],
  ];
  it.each(cases)('%s', async (_label, raw) => {
    const got = await rawReply(`odd-${_label}`, raw);
    expect(got.equals(raw)).toBe(true);
  });

  it('a __proto__ key in error data neither pollutes a prototype nor breaks the completion', async () => {
    const raw = Buffer.from(
      '{"jsonrpc":"2.0","id":"proto-1","error":{"code":-32603,"message":"m","data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}',
    );
    const got = await rawReply('proto-1', raw);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const body = JSON.parse(got.toString('utf8')) as { error: { data: Record<string, unknown> } };
    expect(Object.hasOwn(body.error.data, '__proto__')).toBe(true);
    const span = await h.span('proto-1');
    const errorId = assertErrorSpan(span, { code: '-32603', protocol: 'jsonrpc' });
    expect(body.error.data.error_id).toBe(errorId);
  });

  it('a __proto__ key in request params is fingerprinted without pollution', async () => {
    const text = '{"jsonrpc":"2.0","id":"proto-2","method":"tools/call","params":{"name":"search_inventory","arguments":{"__proto__":{"polluted":"yes"}}}}';
    const r = await post(srv.url, text, DMC12_HEADERS);
    expect(r.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await h.span('proto-2')).status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('server-sent events from a hand-written handler', () => {
  it('treats an error frame split over several data: lines as one error event, result frames as not', async () => {
    const hh = createHarness();
    const listener: RequestListener = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"jsonrpc":"2.0","id":"s1","result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}}\n\n');
        res.write('event: error\ndata: {"jsonrpc":"2.0","id":"s1",\ndata: "error":{"code":-32603,\r\n');
        setTimeout(() => {
          res.write('data: "message":"boom"}}\n\n');
          res.end();
        }, 10);
      });
    };
    const server = createServer(hh.triage.wrap(listener));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 's1', method: 'SendStreamingMessage', params: {} }) });
      const text = await res.text();
      expect(text).toContain('"message":"boom"');
      const span = await hh.span('s1');
      assertErrorSpan(span, { code: '-32603', rpcStatus: '-32603', protocol: 'jsonrpc' });
      expect(hh.sink.events).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      server.close();
      await hh.triage.shutdown();
    }
  });
});

describe('server-sent events with CR-only line endings and characters split across writes', () => {
  it('records the error event of a CR-only stream whose UTF-8 and CR|LF pairs straddle writes', async () => {
    const hh = createHarness();
    const event = Buffer.from('event: error\rdata: {"jsonrpc":"2.0","id":"cr1","error":{"code":-32603,"message":"Müller 🚗 failed"}}\r\r', 'utf8');
    const car = event.indexOf(Buffer.from('🚗', 'utf8'));
    const listener: RequestListener = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // A success frame ending in CR, then LF opening the next write (one CRLF, not two line ends).
        res.write('data: {"jsonrpc":"2.0","id":"cr1","result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}}\r\n\r');
        res.write('\n');
        res.write(event.subarray(0, car + 2)); // half of the 4-byte 🚗
        res.end(event.subarray(car + 2));
      });
    };
    const server = createServer(hh.triage.wrap(listener));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 'cr1', method: 'SendStreamingMessage', params: {} }) });
      expect(await res.text()).toContain('Müller 🚗 failed');
      assertErrorSpan(await hh.span('cr1'), { code: '-32603', rpcStatus: '-32603', protocol: 'jsonrpc' });
      expect(hh.sink.events).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      server.close();
      await hh.triage.shutdown();
    }
  });
});

describe('broken collaborators never reach the host', () => {
  it('keeps answering when the credential hook, the audit sink and the logger throw, and warns once per kind', async () => {
    const warnings = captureLog();
    const broken: AuditSink = {
      write() {
        throw new Error('disk on fire');
      },
      recordTraffic() {
        throw new Error('disk on fire');
      },
      flush: async () => {},
      close: async () => {
        throw new Error('close failed');
      },
      health: () => {
        throw new Error('no health');
      },
    };
    const triage = createTriage({
      auditSink: broken,
      logger: warnings.logger,
      credential: () => {
        throw new Error('hook broke with jane@example.com');
      },
    });
    // The error line itself goes through a logger whose `warn` throws for error lines only.
    const origWarn = warnings.logger.warn.bind(warnings.logger);
    warnings.logger.warn = ((obj: unknown, msg?: string) => {
      if (msg === 'json-rpc error sent') throw new Error('logger broke');
      return origWarn(obj as object, msg);
    }) as typeof warnings.logger.warn;
    const s = await startDmc12Server(triage);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await post(s.url, toolsCall(`broken-${i}`, 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
        expect(r.status).toBe(200);
        expect((r.json as { result: { data: { error_code: string } } }).result.data.error_code).toBe('RESERVATION_CONFLICT');
      }
      await waitFor(() => warnings.lines().filter((l) => l.kind !== undefined).length >= 3);
      await triage.shutdown();
      const kinds = warnings.lines().map((l) => l.kind).filter((k): k is string => typeof k === 'string');
      for (const k of ['credential-hook', 'audit-write', 'log']) expect(kinds.filter((x) => x === k)).toHaveLength(1);
      expect(warnings.raw.join('')).not.toContain('jane@example.com');
      expect(warnings.raw.join('')).not.toContain('disk on fire');
    } finally {
      await s.close();
    }
  });

  it('rejects invalid options at construction, naming the option', () => {
    expect(() => createTriage({ maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    expect(() => createTriage({ aapForm: '3.0' as never })).toThrow(/aapForm/);
    expect(() => createTriage({ auditDbPath: 'x' } as never)).toThrow(/auditDbPath/);
    expect(() => createTriage({ requiredExtensionUri: 'not a uri' })).toThrow(/requiredExtensionUri/);
  });
});

describe("the host's request and response", () => {
  /** What a host can see of its req/res: own string keys, and whether inspect shows any tap. */
  interface Seen {
    req: string[];
    res: string[];
    inspectShowsTap: boolean;
  }
  const look = (req: IncomingMessage, res: ServerResponse): Seen => ({
    req: Object.keys(req).sort(),
    res: Object.keys(res).sort(),
    inspectShowsTap: /aap-triage/.test(inspect(req) + inspect(res)),
  });

  /** Echoes a tools/call; records what req/res look like after the body is read and at 'finish'. */
  const echo =
    (seen: Seen[]): RequestListener =>
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push(look(req, res));
        res.on('finish', () => seen.push(look(req, res)));
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } }));
      });
    };

  async function callOnce(listener: RequestListener): Promise<void> {
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const r = await post(url, JSON.stringify(toolsCall('keys-1', 'search_inventory')), DMC12_HEADERS);
      expect(r.status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('look the same to the host with and without the instrumentation (wrap and Express middleware)', async () => {
    const plain: Seen[] = [];
    const wrapped: Seen[] = [];
    const viaExpress: Seen[] = [];
    const plainExpress: Seen[] = [];
    await callOnce(echo(plain));
    await callOnce(h.triage.wrap(echo(wrapped)));
    const app = express();
    app.use(h.triage.middleware());
    app.use(echo(viaExpress));
    await callOnce(app);
    const bare = express();
    bare.use(echo(plainExpress));
    await callOnce(bare);

    await waitFor(() => plain.length === 2 && wrapped.length === 2 && viaExpress.length === 2 && plainExpress.length === 2);
    expect(plain.every((s) => !s.inspectShowsTap)).toBe(true);
    expect(wrapped).toEqual(plain);
    expect(viaExpress).toEqual(plainExpress);
  });
});
