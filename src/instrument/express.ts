/**
 * Express adapters: `app.use(expressMiddleware(triage))` is the same as
 * `app.use(triage.middleware())` (mount it before the JSON-RPC handler; a body parser may come
 * before or after it), and `triage.errorHandler()` answers body-parser failures (issue 15
 * "Express").
 *
 * Without the error handler, a body that `express.json()` cannot read (truncated JSON, a body
 * over its `limit`, an unsupported charset) reaches Express's default handler, which sends an
 * HTML page with the stack trace and server paths. JSON-RPC 2.0 §5.1 says what the answer is: a
 * Response with `id: null` and -32700 (Parse error) or -32600 (Invalid Request). The error handler
 * sends that envelope; the observer completes it with an `error_id` and audits it like any other
 * error (row, log line, metric), whatever the body's size.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Triage } from './types.js';

export function expressMiddleware(triage: Triage): ReturnType<Triage['middleware']> {
  return triage.middleware();
}

/** An Express error-handling middleware (four parameters: Express tells them apart by arity). */
export type ErrorHandler = (err: unknown, req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The JSON-RPC error a body-parser failure becomes (JSON-RPC 2.0 §5.1). */
interface BodyFailure {
  code: -32700 | -32600 | -32603;
  message: string;
}

/**
 * body-parser's error `type`s (body-parser 2 `lib/read.js`, raw-body) and their JSON-RPC error.
 * A body the server could not read as JSON is -32700; one it refused to read (size, charset,
 * encoding) is -32600; a parser set up wrong (a stream already read or decoded) is the server's
 * own fault, -32603.
 */
const BODY_FAILURES: Readonly<Record<string, BodyFailure>> = {
  'entity.parse.failed': { code: -32700, message: 'Parse error: the request body is not valid JSON.' },
  'entity.verify.failed': { code: -32600, message: 'Invalid Request: the request body failed verification.' },
  'entity.too.large': { code: -32600, message: 'Invalid Request: the request body is larger than this server accepts.' },
  'request.size.invalid': { code: -32600, message: 'Invalid Request: the request body does not match its Content-Length.' },
  'charset.unsupported': { code: -32600, message: 'Invalid Request: unsupported charset; send UTF-8 JSON.' },
  'encoding.unsupported': { code: -32600, message: 'Invalid Request: unsupported Content-Encoding.' },
  'parameters.too.many': { code: -32600, message: 'Invalid Request: too many parameters.' },
  'querystring.parse.rangeError': { code: -32600, message: 'Invalid Request: too many parameters.' },
  'stream.encoding.set': { code: -32603, message: 'Internal error.' },
  'stream.not.readable': { code: -32603, message: 'Internal error.' },
};

/**
 * The JSON-RPC error and HTTP status for a body-parser failure, or null for any other error (and
 * for `request.aborted`: the client is gone, there is no one to answer). The status is
 * body-parser's own (400, 413, 415), else 400 (500 for -32603).
 */
export function bodyParserFailure(err: unknown): (BodyFailure & { status: number }) | null {
  if (typeof err !== 'object' || err === null) return null;
  const { type, status } = err as { type?: unknown; status?: unknown };
  if (typeof type !== 'string' || !Object.hasOwn(BODY_FAILURES, type)) return null;
  const failure = BODY_FAILURES[type] as BodyFailure;
  const fallback = failure.code === -32603 ? 500 : 400;
  return { ...failure, status: typeof status === 'number' && status >= 400 && status <= 599 ? status : fallback };
}

/**
 * The error handler behind `triage.errorHandler()`. `observe(req, res)` starts observing the
 * exchange when no triage middleware saw it (a body parser mounted before the middleware fails
 * before the middleware runs). Errors that are not body-parser failures, and responses already
 * under way, go to `next` unchanged.
 *
 * The answer is sent once the host's request body has been read to its end (a body over the
 * limit is left unread by the parser; answering before it is drained makes the client see a
 * reset instead of the answer — Express's own finalhandler waits the same way).
 */
export function createErrorHandler(observe: (req: IncomingMessage, res: ServerResponse) => void): ErrorHandler {
  return function aapTriageErrorHandler(err, req, res, next) {
    const failure = bodyParserFailure(err);
    if (failure === null || res.headersSent) {
      next(err);
      return;
    }
    observe(req, res);
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: failure.code, message: failure.message } });
    const send = (): void => {
      if (res.headersSent || res.destroyed) return;
      res.statusCode = failure.status;
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
    };
    if (req.complete || req.readableEnded) {
      send();
      return;
    }
    req.once('end', send);
    req.resume();
  };
}
