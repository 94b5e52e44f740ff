/**
 * `triage.errorHandler()` with real Express 5 and its body parser (`express.json()`, body-parser
 * 2): a body the parser cannot read becomes a JSON-RPC 2.0 §5.1 error (`id: null`, -32700 /
 * -32600) with an `error_id`, never Express's HTML page with a stack trace and server paths, and
 * is audited like any error: a 2 MB body like a 200 KB one (row, log line, metric).
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AAP_HEADERS, startAapServer } from '../helpers/aap-server.js';
import { counterSum, waitFor } from '../helpers/otel.js';
import { createHarness, wireErrorId } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let server: Server;
let base = '';
beforeAll(async () => {
  h = createHarness();
  const app = express();
  // The parser before the middleware: its failures skip every later non-error middleware.
  app.use('/early', express.json({ limit: '100kb' }));
  app.use(h.triage.middleware());
  app.use('/rpc', express.json({ limit: '100kb' }));
  const handler: express.RequestHandler = (_req, res) => {
    res.json({ jsonrpc: '2.0', id: 1, result: {} });
  };
  app.post('/rpc', handler);
  app.post('/early', handler);
  app.use('/other', () => {
    throw new Error('not a body-parser failure');
  });
  app.use(h.triage.errorHandler());
  // The host's own last handler, for errors the triage passes on.
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).type('text/plain').send(`host handler: ${err.message}`);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.triage.shutdown();
});

const padded = (bytes: number): string => JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'SendMessage', params: { pad: 'a'.repeat(bytes) } });

async function send(path: string, body: string, contentType = 'application/json') {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: JSON.parse(text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } } };
}

describe('without the error handler', () => {
  it('still audits an unreadable body answered with an HTML page, 2 MB like 200 KB', async () => {
    const app = express();
    app.use(h.triage.middleware());
    app.use(express.json({ limit: '100kb' }));
    app.post('/rpc', (_req, res) => {
      res.json({ jsonrpc: '2.0', id: 1, result: {} });
    });
    // Express's default handler would print the stack to stderr; this host keeps its own page short.
    app.use((err: Error & { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(err.status ?? 500).type('text/html').send('<h1>error</h1>');
    });
    const plain = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => plain.once('listening', resolve));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/rpc`;
    try {
      const before = h.sink.events.length;
      for (const body of [padded(200_000), padded(2_000_000), '{"jsonrpc":"2.0","id":1,"meth']) {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.text();
      }
      await waitFor(() => h.sink.events.length >= before + 3);
      expect(h.sink.events.slice(before).map((e) => e.code).sort()).toEqual(['HTTP_400', 'HTTP_413', 'HTTP_413']);
    } finally {
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });
});

describe('body-parser failures', () => {
  it.each([
    ['truncated JSON', '/rpc', '{"jsonrpc":"2.0","id":1,"method":"SendMes', 'application/json', 400, -32700],
    ['a body over the limit', '/rpc', padded(200_000), 'application/json', 413, -32600],
    ['a wrong charset', '/rpc', '{"jsonrpc":"2.0","id":4,"method":"SendMessage"}', 'application/json; charset=latin-9', 415, -32600],
    ['truncated JSON before the middleware ran', '/early', '{"jsonrpc":"2.0"', 'application/json', 400, -32700],
  ] as const)('answer %s with a JSON-RPC envelope, id null, an error_id, and an audit row', async (_name, path, body, type, status, code) => {
    const before = h.sink.events.length;
    const r = await send(path, body, type);
    expect(r.status).toBe(status);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.text).not.toMatch(/<html|<pre>|node_modules|\s+at\s/i);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    const errorId = wireErrorId(r.json);
    expect(errorId).toMatch(/^err_[0-9a-f]{32}$/);
    await waitFor(() => h.sink.events.length > before);
    expect(h.event(errorId as string)).toMatchObject({ jsonrpc_code: code, http_status: status });
    expect(h.logLine(errorId as string)).toBeDefined();
  });

  it('audits a 2 MB body like a 200 KB one: row, log line and metric each', async () => {
    const metricBefore = counterSum((await h.otel.metrics()).get('aap.server.errors'), { 'error.type': '-32600' });
    const ids: string[] = [];
    for (const size of [200_000, 2_000_000]) {
      const r = await send('/rpc', padded(size));
      expect(r.status).toBe(413);
      expect(r.json.error.code).toBe(-32600);
      ids.push(wireErrorId(r.json) as string);
    }
    await waitFor(() => ids.every((id) => h.sink.events.some((e) => e.error_id === id)));
    for (const id of ids) {
      expect(h.event(id)).toMatchObject({ code: '-32600', http_status: 413 });
      expect(h.logLine(id)).toBeDefined();
    }
    const metricAfter = counterSum((await h.otel.metrics()).get('aap.server.errors'), { 'error.type': '-32600' });
    expect(metricAfter - metricBefore).toBe(2);
  });

  it('passes any other error on to the next error handler, and leaves a body that parses alone', async () => {
    const other = await fetch(`${base}/other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(other.status).toBe(500);
    expect(await other.text()).toBe('host handler: not a body-parser failure');
    const ok = await send('/rpc', '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}');
    expect(ok.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('on @a2a-js/sdk', () => {
  it("answers a body over the SDK parser's 100 kB limit with -32600, where the SDK alone would send Express's HTML page", async () => {
    const sdk = await startAapServer({ triage: h.triage, errorHandler: true });
    try {
      const res = await fetch(sdk.rpcUrl, { method: 'POST', headers: AAP_HEADERS, body: padded(200_000) });
      const text = await res.text();
      expect(res.status).toBe(413);
      expect(text).not.toMatch(/<html|node_modules/i);
      const json = JSON.parse(text) as unknown;
      expect(json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      const errorId = wireErrorId(json) as string;
      await waitFor(() => h.sink.events.some((e) => e.error_id === errorId));
      expect(h.event(errorId)).toMatchObject({ jsonrpc_code: -32600, http_status: 413 });
    } finally {
      await sdk.close();
    }
  });
});
