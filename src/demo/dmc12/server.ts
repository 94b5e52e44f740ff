/**
 * The demo DMC-12 dealer agent: JSON-RPC 2.0 `tools/call` on a plain `node:http` server at
 * `/rpc`. Tool errors come back inside a successful result (`result.data` + `result._metadata`,
 * built with `buildDmc12Error`); a missing or unknown bearer token is JSON-RPC -32001 with
 * HTTP 401 (spec/dmc12-errors.txt "Auth failures are different").
 *
 * Every request gets a JSON-RPC envelope, whatever it holds (issue 16): a caller's tool name or
 * argument is sanitised before it reaches the builder, and a fault anywhere is answered -32603.
 *
 * The listener is what a dealer would write; the demo passes it through `triage.wrap(listener)`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { buildDmc12Error, stripStackTrace } from '../../protocol/index.js';
import { bearerToken } from '../http-util.js';
import { Dmc12Dealer, Dmc12Failure } from './dealer.js';
import { DMC12_TOOLS } from './schemas.js';

/** Largest request body read, bytes. */
const MAX_BODY_BYTES = 256 * 1024;

/** A new upstream trace id, `trc_` + 24 hex. */
function mintTraceId(): string {
  return `trc_${randomBytes(12).toString('hex')}`;
}

/** A tool name as `_metadata.tool` may carry it; a caller's odd name (a space, an email) is not echoed. */
const TOOL_NAME = /^[A-Za-z0-9_.:/-]{1,64}$/;

const INTERNAL: readonly [number, unknown] = [200, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error.' } }];

/**
 * Builds the DMC-12 request listener. `validTokens` are the partner tokens it accepts.
 */
export function createDmc12Listener(dealer: Dmc12Dealer, validTokens: ReadonlySet<string>): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/rpc') {
      send(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Not found; POST JSON-RPC to /rpc.' } });
      return;
    }
    // An aborted upload must not become an unhandled 'error' event.
    req.on('error', () => res.destroy());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        send(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body too large.' } });
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        send(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } });
        return;
      }
      let reply: readonly [number, unknown];
      try {
        reply = answer(dealer, validTokens, req, body);
      } catch {
        reply = INTERNAL;
      }
      send(res, reply[0], reply[1]);
    });
  };
}

function answer(dealer: Dmc12Dealer, validTokens: ReadonlySet<string>, req: IncomingMessage, body: unknown): readonly [number, unknown] {
  const rpc = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const id = typeof rpc.id === 'string' || typeof rpc.id === 'number' ? rpc.id : null;
  if (rpc.jsonrpc !== '2.0' || typeof rpc.method !== 'string') {
    return [200, { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request.' } }];
  }
  const token = bearerToken(req.headers.authorization);
  if (!token || !validTokens.has(token)) {
    return [401, { jsonrpc: '2.0', id, error: { code: -32001, message: 'Unauthorized: missing, expired or unknown bearer token.' } }];
  }
  if (rpc.method === 'tools/list') {
    return [200, { jsonrpc: '2.0', id, result: { tools: DMC12_TOOLS.map((name) => ({ name })) } }];
  }
  if (rpc.method !== 'tools/call') {
    return [200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found.' } }];
  }
  const params = (typeof rpc.params === 'object' && rpc.params !== null ? rpc.params : {}) as Record<string, unknown>;
  const tool = typeof params.name === 'string' ? params.name : '';
  const metaTool = TOOL_NAME.test(tool) ? tool : 'unknown_tool';
  const traceId = mintTraceId();
  try {
    const data = dealer.call(tool, params.arguments, token);
    return [200, { jsonrpc: '2.0', id, result: { data, _metadata: { trace_id: traceId, tool: metaTool, protocol: 'a2a' } } }];
  } catch (err) {
    const failure = err instanceof Dmc12Failure ? err : new Dmc12Failure('INTERNAL_ERROR', 'Unexpected server fault.', 'internal_error');
    // The message may echo a caller's argument; the builder refuses a stack trace, so strip one.
    const result = buildDmc12Error(failure.code, {
      ...(failure.legacyError ? { legacyError: failure.legacyError } : {}),
      message: stripStackTrace(failure.message, 'The request could not be processed.'),
      traceId,
      tool: metaTool,
    });
    return [200, { jsonrpc: '2.0', id, result }];
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
