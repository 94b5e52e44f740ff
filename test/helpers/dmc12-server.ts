/**
 * A plain `node:http` DMC-12 server (JSON-RPC `tools/call`), for tests of the instrumentation,
 * the audit canary and the client. Loopback only. It reads its own request body (as a
 * hand-written server does), answers batches, and skips notifications.
 *
 * Behaviour per call, chosen by `params.arguments`:
 * - default: a successful `search_inventory`-style result with `_metadata.trace_id`;
 * - `fail: '<DMC-12 code>'`: the error envelope inside a successful result (spec/dmc12-errors.txt
 *   "The envelope"), with `omitErrorId` / `omitMetadata` / `legacyOnly` to leave parts out;
 * - a missing or wrong bearer token: HTTP 401 with JSON-RPC -32001 (no data envelope).
 * Raw mode: a request header `x-test-raw-response` makes the server send exactly that
 * (base64-decoded) body, to test odd responses.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DMC12_CODES } from '../../src/protocol/index.js';
import type { Triage } from '../../src/instrument/types.js';

/** The bearer token the server accepts. */
export const DMC12_TOKEN = 'test-token-0001';

export interface Dmc12Server {
  url: string;
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function answer(call: unknown): Obj | null {
  if (!isObj(call)) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
  if (!Object.hasOwn(call, 'id')) return null;
  const id = call.id as string | number | null;
  if (call.method !== 'tools/call') return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
  const params = isObj(call.params) ? call.params : {};
  const tool = typeof params.name === 'string' ? params.name : 'unknown';
  const args = isObj(params.arguments) ? params.arguments : {};
  const meta = { trace_id: 'trc_0123456789abcdef', tool, protocol: 'a2a' };
  if (typeof args.fail === 'string' && Object.hasOwn(DMC12_CODES, args.fail)) {
    const info = DMC12_CODES[args.fail as keyof typeof DMC12_CODES];
    const data: Obj = args.legacyOnly
      ? { error: info.legacyErrors[0], message: 'legacy failure' }
      : { error: info.legacyErrors[0], message: `failure ${info.code}`, error_code: info.code, retryable: info.retryable };
    if (!args.omitErrorId && !args.legacyOnly) data.error_id = 'err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90';
    if (args.fail === 'RATE_LIMITED') data.retry_after_ms = 2000;
    const result: Obj = { data };
    if (!args.omitMetadata) result._metadata = meta;
    return { jsonrpc: '2.0', id, result };
  }
  return { jsonrpc: '2.0', id, result: { data: { vehicles: [{ vin: '1HGCM82633A000003', price: 21000 }] }, _metadata: meta } };
}

/** The server's own request listener (reads the body itself). */
export const dmc12Listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = req.headers['x-test-raw-response'];
    if (typeof raw === 'string') {
      const body = Buffer.from(raw, 'base64');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const send = (status: number, obj: unknown): void => {
      const body = JSON.stringify(obj);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      send(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (req.headers.authorization !== `Bearer ${DMC12_TOKEN}`) {
      const id = isObj(parsed) && (typeof parsed.id === 'string' || typeof parsed.id === 'number') ? parsed.id : null;
      send(401, { jsonrpc: '2.0', id, error: { code: -32001, message: 'Unauthorized' } });
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        send(200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
        return;
      }
      const out = parsed.map(answer).filter((x): x is Obj => x !== null);
      if (out.length === 0) {
        res.writeHead(204);
        res.end();
        return;
      }
      send(200, out);
      return;
    }
    const one = answer(parsed);
    if (one === null) {
      res.writeHead(204);
      res.end();
      return;
    }
    send(200, one);
  });
};

/** Starts the DMC-12 server on 127.0.0.1 (random port), wrapped by `triage` when given. */
export async function startDmc12Server(triage?: Triage | null, listener: RequestListener = dmc12Listener): Promise<Dmc12Server> {
  const server = createServer(triage ? triage.wrap(listener) : listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A `tools/call` request body. */
export function toolsCall(id: string | number, name: string, args: Obj = {}): Obj {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** Headers of an authorised DMC-12 call. */
export const DMC12_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${DMC12_TOKEN}`,
};
