/**
 * Observes (and, for JSON, may complete) what a `ServerResponse` sends, through
 * `writeHead` / `flushHeaders` / `write` / `end` / `emit` patched on `ServerResponse.prototype`
 * while a triage is enabled (`installResponseTap`, undone by its uninstall), with each tapped response's state in a module map from the
 * response (why not a property or a WeakMap: see `taps`). The host's calls keep their semantics;
 * no method ever throws because of the tap. The owner hears once that the response is done:
 * right after the host's `end` (before 'finish', so the HTTP instrumentation's server span is
 * still open), or at 'close' for a response closed without one.
 *
 * Modes, decided when the host first commits headers or body:
 * - `buffer`: a JSON (or untyped) body is held until `end`, up to `maxBytes`, so the observer
 *   can add an `error_id` and fix `Content-Length`. Over the cap, what is held is sent as is and
 *   the rest passes through unobserved.
 * - `observe`: JSON whose headers the host flushed early: chunks pass through; a copy (capped)
 *   is classified at the end but never rewritten.
 * - `sse`: `text/event-stream`: chunks pass through and are fed to the SSE parser.
 * - `pass`: anything else passes through untouched.
 */
import { ServerResponse } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import { setBounded } from '../bounded-map.js';
import { PropertyPatch } from './patch.js';

export type TapMode = 'buffer' | 'observe' | 'sse' | 'pass';

/** What the tap reports to its owner (the exchange observer). */
export interface ResponseTapHandlers {
  /**
   * Called once, right before headers are committed. Returns headers to add (`traceresponse`).
   * `contentType` is the effective Content-Type, lowercased, or '' when none.
   */
  beforeHeaders(contentType: string, status: number): Record<string, string> | null;
  /** A pass-through chunk in `sse` mode. */
  onSseChunk(chunk: Buffer): void;
  /**
   * The complete body in `buffer` / `observe` mode (null when over the cap): the host's one
   * UTF-8 string as it is, else the bytes. In `buffer` mode it may return a replacement body as
   * text, sent as UTF-8 (only when it differs); in `observe` mode the return value is ignored.
   */
  onBody(body: Buffer | string | null, mode: 'buffer' | 'observe'): string | null;
  /** Reports an internal failure (the tap then passes everything through). */
  onFailure(kind: string, err: unknown): void;
  /**
   * Called once when the response is done: after the host's `end` has run, or when the response
   * emits 'close' without one (an aborted exchange), before any 'close' listener. Never throws.
   */
  onDone(): void;
}

type WriteCb = ((err?: Error | null) => void) | undefined;

function toBuffer(chunk: unknown, encoding: unknown): Buffer | null {
  if (chunk === undefined || chunk === null) return null;
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return null;
}

function isUtf8(encoding: unknown): boolean {
  return encoding === undefined || encoding === null || encoding === 'utf8' || encoding === 'utf-8';
}

function headerFromArgs(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    }
    return undefined;
  }
  if (headers && typeof headers === 'object') {
    for (const k of Object.keys(headers)) {
      if (k.toLowerCase() === name) return String((headers as Record<string, unknown>)[k]);
    }
  }
  return undefined;
}

/**
 * The `writeHead` headers argument for a replaced body, as a copy (the host may pass one shared
 * object to every response): Content-Length set to `length` where the host gave one, ETag left
 * out. `found` says whether a Content-Length was there.
 */
function headersForReplacedBody(headers: unknown, length: number): { headers: unknown; found: boolean } {
  let found = false;
  if (Array.isArray(headers)) {
    const out: unknown[] = [];
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = String(headers[i]).toLowerCase();
      if (name === 'etag') continue;
      if (name === 'content-length') found = true;
      out.push(headers[i], name === 'content-length' ? String(length) : headers[i + 1]);
    }
    return { headers: out, found };
  }
  if (headers && typeof headers === 'object') {
    const out: OutgoingHttpHeaders = {};
    for (const k of Object.keys(headers)) {
      const name = k.toLowerCase();
      if (name === 'etag') continue;
      if (name === 'content-length') found = true;
      out[k] = name === 'content-length' ? String(length) : (headers as OutgoingHttpHeaders)[k];
    }
    return { headers: out, found };
  }
  return { headers, found };
}

/** The headers argument of `writeHead(status, [reason], [headers])`. */
function headersArgIndex(args: unknown[]): number {
  return typeof args[1] === 'string' ? 2 : 1;
}

/** The unpatched methods, captured once when the prototype is patched. */
interface Originals {
  writeHead: (...a: unknown[]) => ServerResponse;
  flushHeaders: () => void;
  write: (...a: unknown[]) => boolean;
  end: (...a: unknown[]) => ServerResponse;
  emit: (...a: unknown[]) => boolean;
}

/** One response's tap state, held in `taps` while the response is in flight. */
class Tap {
  mode: TapMode | null = null;
  pendingHead: unknown[] | null = null;
  chunks: Buffer[] = [];
  size = 0;
  overflow = false;
  /** Set while we call the original methods, so Node's internal re-entry (end → writeHead) passes. */
  inner = false;
  ended = false;

  constructor(
    readonly res: ServerResponse,
    readonly maxBytes: number,
    readonly h: ResponseTapHandlers,
    readonly o: Originals,
  ) {}

  decide(headArgs: unknown[] | null): TapMode {
    if (this.mode) return this.mode;
    const res = this.res;
    try {
      const status = headArgs && typeof headArgs[0] === 'number' ? headArgs[0] : res.statusCode;
      const fromArgs = headArgs ? headerFromArgs(headArgs[headersArgIndex(headArgs)], 'content-type') : undefined;
      const ct = String(fromArgs ?? res.getHeader('content-type') ?? '').toLowerCase();
      const extra = this.h.beforeHeaders(ct, status);
      if (extra && !res.headersSent) {
        for (const k of Object.keys(extra)) res.setHeader(k, extra[k] as string);
      }
      if (ct.startsWith('text/event-stream')) this.mode = 'sse';
      else if (ct === '' || ct.includes('json')) this.mode = status === 204 || status === 304 ? 'pass' : 'buffer';
      else this.mode = 'pass';
    } catch (err) {
      this.h.onFailure('response-tap', err);
      this.mode = 'pass';
    }
    return this.mode;
  }

  flushPending(): void {
    if (this.pendingHead) {
      const args = this.pendingHead;
      this.pendingHead = null;
      this.inner = true;
      try {
        this.o.writeHead.apply(this.res, args);
      } finally {
        this.inner = false;
      }
    }
  }

  /** Sends what is buffered and stops buffering (over the cap). */
  spill(): void {
    this.mode = 'pass';
    this.overflow = true;
    this.flushPending();
    const held = this.chunks;
    this.chunks = [];
    this.inner = true;
    try {
      for (const c of held) this.o.write.call(this.res, c);
    } finally {
      this.inner = false;
    }
  }

  copy(buf: Buffer): void {
    if (this.overflow) return;
    this.size += buf.length;
    if (this.size > this.maxBytes) {
      this.overflow = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(buf);
  }

  writeHead(args: unknown[]): ServerResponse {
    const m = this.decide(args);
    if (m === 'buffer' && !this.pendingHead) {
      // Held until `end` so Content-Length can follow a completed body; the status is visible now.
      if (typeof args[0] === 'number') this.res.statusCode = args[0];
      this.pendingHead = args;
      return this.res;
    }
    return this.o.writeHead.apply(this.res, args);
  }

  flushHeaders(): void {
    const m = this.decide(null);
    if (m !== 'buffer') return this.o.flushHeaders.call(this.res);
    // The host wants its headers out now: from here on, observe a copy, never rewrite.
    this.mode = 'observe';
    this.flushPending();
    const held = this.chunks;
    this.chunks = [];
    this.size = 0;
    this.inner = true;
    try {
      this.o.flushHeaders.call(this.res);
      for (const c of held) {
        this.copy(c);
        this.o.write.call(this.res, c);
      }
    } finally {
      this.inner = false;
    }
  }

  write(chunk: unknown, encoding: unknown, cb: unknown): boolean {
    const m = this.decide(null);
    try {
      if (m === 'buffer') {
        const buf = toBuffer(chunk, encoding);
        if (buf) {
          this.size += buf.length;
          this.chunks.push(buf);
          if (this.size > this.maxBytes) this.spill();
        }
        const callback = (typeof encoding === 'function' ? encoding : cb) as WriteCb;
        if (callback) process.nextTick(callback);
        return true;
      }
      if (m === 'sse' || m === 'observe') {
        const buf = toBuffer(chunk, encoding);
        if (buf) {
          if (m === 'sse') this.h.onSseChunk(buf);
          else this.copy(buf);
        }
      }
    } catch (err) {
      this.h.onFailure('response-tap', err);
    }
    return this.o.write.call(this.res, chunk, encoding, cb);
  }

  end(chunk: unknown, encoding: unknown, cb: unknown): ServerResponse {
    this.ended = true;
    if (typeof chunk === 'function') {
      cb = chunk;
      chunk = undefined;
      encoding = undefined;
    } else if (typeof encoding === 'function') {
      cb = encoding;
      encoding = undefined;
    }
    const m = this.decide(null);
    let out: unknown = chunk;
    let outEncoding: unknown = encoding;
    let held: Buffer | null = null;
    try {
      if (m === 'buffer') {
        // The owner's replacement of the held body (text, sent as UTF-8), or null.
        let replaced: string | null;
        if (this.chunks.length === 0 && typeof chunk === 'string' && isUtf8(encoding)) {
          // The common case (Express `res.send`): one string. The owner reads it as it is; a
          // Buffer is made only when it replaces the body.
          const size = chunk.length * 3 <= this.maxBytes ? chunk.length : Buffer.byteLength(chunk, 'utf8');
          replaced = this.h.onBody(size <= this.maxBytes ? chunk : null, 'buffer');
        } else {
          const buf = toBuffer(chunk, encoding);
          if (buf) this.chunks.push(buf);
          this.size += buf?.length ?? 0;
          const single = this.chunks.length === 1;
          const body = single ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
          held = body;
          this.chunks = [];
          replaced = this.h.onBody(this.size <= this.maxBytes ? body : null, 'buffer');
          if (replaced === null && !(single && buf)) {
            // Several chunks were held: send them as one (the host's bytes, unchanged).
            out = body.length > 0 || chunk !== undefined ? body : undefined;
            outEncoding = undefined;
          }
        }
        if (replaced !== null) {
          this.replaceHeaders(replaced);
          out = replaced;
          outEncoding = 'utf8';
        }
      } else if (m === 'sse') {
        const buf = toBuffer(chunk, encoding);
        if (buf) this.h.onSseChunk(buf);
      } else if (m === 'observe') {
        const buf = toBuffer(chunk, encoding);
        if (buf) this.copy(buf);
        this.h.onBody(this.overflow ? null : Buffer.concat(this.chunks), 'observe');
        this.chunks = [];
      } else if (this.overflow) {
        this.h.onBody(null, 'buffer');
      }
    } catch (err) {
      this.h.onFailure('response-tap', err);
      if (held) {
        // Restore the host's own bytes.
        out = held;
        outEncoding = undefined;
      }
    }
    this.flushPending();
    this.inner = true;
    try {
      return this.o.end.call(this.res, out, outEncoding, cb);
    } finally {
      this.inner = false;
      this.done();
    }
  }

  /**
   * The headers of a replaced body: its Content-Length (in the held `writeHead` arguments or the
   * response's headers, wherever the host set one), and no ETag, which validated the host's text.
   * The body goes out as text, so Node writes headers and body in one piece.
   */
  replaceHeaders(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    const headArgs = this.pendingHead;
    let inArgs = false;
    if (headArgs) {
      // `pendingHead` is our own copy of the arguments; the headers object in it is the host's.
      const at = headersArgIndex(headArgs);
      if (headArgs[at] !== undefined) {
        const r = headersForReplacedBody(headArgs[at], length);
        headArgs[at] = r.headers;
        inArgs = r.found;
      }
    }
    const res = this.res;
    if (res.headersSent) return;
    if (!inArgs && res.getHeader('content-length') !== undefined) res.setHeader('content-length', length);
    if (res.getHeader('etag') !== undefined) res.removeHeader('etag');
  }

  /** Untaps the response and tells the owner (once). */
  done(): void {
    if (taps.get(this.res) !== this) return;
    taps.delete(this.res);
    try {
      this.h.onDone();
    } finally {
      if (taps.size === 0) patch.settle();
    }
  }
}

/**
 * The taps of the responses in flight, by response; an entry leaves when its response is done.
 * A plain (strong) map: not a WeakMap, whose entries every young-generation GC has to walk
 * (replacing WeakMaps cut about 60 µs per request under load), and not a property added to
 * the response, which costs a hidden-class transition per request (about 7 000 instructions on
 * an Express response, measured with bench/a2a-dealer.callgrind.mjs). Bounded, in case a host
 * leaves responses neither ended nor closed: past `MAX_TAPS` the oldest entry is dropped.
 */
const taps = new Map<ServerResponse, Tap>();
const MAX_TAPS = 65_536;

/** The tap of `res` itself: an object that merely inherits from a tapped response has none. */
function tapOf(res: ServerResponse): Tap | undefined {
  return taps.size === 0 ? undefined : taps.get(res);
}
let originals: Originals | null = null;

/**
 * The patch of `ServerResponse.prototype` (the undici-instrumentation idea of observing without
 * per-request wrappers): a response without a tap takes the original path at the cost of one map
 * read; no function is allocated per request. Installed by each triage core, restored when the
 * last one is disabled and no tapped response is in flight ({@link installResponseTap}).
 */
const patch = new PropertyPatch(
  ServerResponse.prototype,
  (proto) => {
    const o: Originals = {
      writeHead: proto.writeHead as Originals['writeHead'],
      flushHeaders: proto.flushHeaders as Originals['flushHeaders'],
      write: proto.write as Originals['write'],
      end: proto.end as Originals['end'],
      emit: proto.emit as Originals['emit'],
    };
    originals = o;
    return {
      writeHead: function writeHead(this: ServerResponse, ...args: unknown[]) {
        const t = tapOf(this);
        return t && !t.inner && !t.ended ? t.writeHead(args) : o.writeHead.apply(this, args);
      },
      flushHeaders: function flushHeaders(this: ServerResponse) {
        const t = tapOf(this);
        return t && !t.inner && !t.ended ? t.flushHeaders() : o.flushHeaders.call(this);
      },
      write: function write(this: ServerResponse, chunk: unknown, encoding?: unknown, cb?: unknown) {
        const t = tapOf(this);
        return t && !t.inner && !t.ended ? t.write(chunk, encoding, cb) : o.write.call(this, chunk, encoding, cb);
      },
      end: function end(this: ServerResponse, chunk?: unknown, encoding?: unknown, cb?: unknown) {
        const t = tapOf(this);
        return t && !t.inner && !t.ended ? t.end(chunk, encoding, cb) : o.end.call(this, chunk, encoding, cb);
      },
      emit: function emit(this: ServerResponse, event: unknown) {
        // Before the listeners: the HTTP instrumentation ends its server span on 'close'.
        if (event === 'close') tapOf(this)?.done();
        // `apply(this, arguments)` passes every argument on without rest/spread copies.
        // eslint-disable-next-line prefer-rest-params
        return o.emit.apply(this, arguments as unknown as unknown[]);
      },
    };
  },
  () => taps.size > 0,
);

/**
 * Patches `ServerResponse.prototype` for one more user and returns that user's uninstall: the
 * last one restores the prototype's own properties exactly as found, once no tapped response is
 * in flight.
 */
export function installResponseTap(): () => void {
  return patch.install();
}

/**
 * Installs the tap on `res` with `h` as its owner. `maxBytes` caps what is buffered or copied
 * (bytes). Returns false, changing nothing, when `res` is tapped already (in flight) or done.
 */
export function tapResponse(res: ServerResponse, maxBytes: number, h: ResponseTapHandlers): boolean {
  const o = originals;
  if (!o || !patch.active || taps.has(res) || res.writableEnded) return false;
  setBounded(taps, res, new Tap(res, maxBytes, h, o), MAX_TAPS);
  return true;
}

/** Whether `res` is tapped now (observed by some exchange of this module and not done). */
export function isTapped(res: ServerResponse): boolean {
  return tapOf(res) !== undefined;
}
