/**
 * Gets the request body without reading the request stream (DESIGN §8).
 *
 * Preferred: the parsed body a framework left on `req.body` (Express body parsers), read when it
 * is needed, so a parser mounted after the middleware works too. Otherwise: the chunks the
 * host's own reader pulls, seen through `IncomingMessage.prototype.emit` — `'data'` is emitted in
 * flowing mode, by `read()` in paused mode, and by async iteration alike. Adding a `'data'`
 * listener instead would switch the stream to flowing mode and change the host's flow.
 */
import { IncomingMessage } from 'node:http';
import { setBounded } from '../bounded-map.js';
import { PropertyPatch } from './patch.js';

/**
 * The taps of requests in flight, by request; an entry leaves when its exchange ends. A plain
 * map, neither a WeakMap nor a property added to the request (why: `taps` in response-tap.ts).
 * Bounded: past `MAX_TAPS` the oldest entry is dropped.
 */
const taps = new Map<IncomingMessage, RequestBodyTap>();
const MAX_TAPS = 65_536;

/**
 * The patch of `IncomingMessage.prototype.emit`, so a tapped request needs no per-instance
 * wrapper (an own `emit` on each request costs every later property access on it). A request
 * without a tap pays one map read per emitted event. Installed by each triage core, removed (the
 * inherited `emit` shows through again) when the last one is disabled ({@link installRequestTap}).
 */
const patch = new PropertyPatch(IncomingMessage.prototype, (proto) => {
  const origEmit = proto.emit as (...a: unknown[]) => boolean;
  return {
    emit: function emit(this: IncomingMessage, event: unknown, chunk?: unknown) {
      const tap = taps.size === 0 ? undefined : taps.get(this);
      if (tap !== undefined) {
        if (event === 'data') tap.onData(chunk);
        else if (event === 'end') tap.onEnd();
      }
      // `apply(this, arguments)` passes every argument on without the rest/spread copies (V8 fast path).
      // eslint-disable-next-line prefer-rest-params
      return origEmit.apply(this, arguments as unknown as unknown[]);
    },
  };
});

/** Patches `IncomingMessage.prototype.emit` for one more user; returns that user's uninstall (the last one restores it). */
export function installRequestTap(): () => void {
  return patch.install();
}

/** Whether `o` has an own enumerable key (without building the key list). */
function hasOwnKey(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

export class RequestBodyTap {
  private chunks: Buffer[] = [];
  private size = 0;
  private overflow = false;
  private complete = false;
  private parsed: { value: unknown } | null = null;

  constructor(
    readonly req: IncomingMessage,
    private readonly maxBytes: number,
  ) {
    if (this.frameworkBody() !== undefined || taps.has(req) || !patch.active) return;
    setBounded(taps, req, this, MAX_TAPS);
  }

  /** Stops seeing the host's chunks (the exchange ended); what was read stays readable. */
  release(): void {
    if (taps.get(this.req) === this) taps.delete(this.req);
  }

  /** The host's reader finished the body. */
  onEnd(): void {
    this.complete = true;
  }

  /** A chunk the host's reader pulled. */
  onData(chunk: unknown): void {
    if (this.overflow) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : null;
    if (!buf) return;
    this.size += buf.length;
    if (this.size > this.maxBytes) {
      this.overflow = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(buf);
  }

  private frameworkBody(): unknown {
    const body = (this.req as IncomingMessage & { body?: unknown }).body;
    if (body === undefined || body === null) return undefined;
    if (Buffer.isBuffer(body) || typeof body === 'string') return body;
    if (typeof body === 'object') {
      // express.json() leaves `{}` when it skipped the body (wrong Content-Type); that is not a call.
      if (!Array.isArray(body) && !hasOwnKey(body)) return undefined;
      return body;
    }
    return undefined;
  }

  /**
   * The parsed request body: an object or array, `undefined` when none is available yet (not
   * read, over the cap, not JSON). Never throws; parses at most once.
   */
  body(): unknown {
    if (this.parsed) return this.parsed.value;
    const fw = this.frameworkBody();
    if (fw !== undefined) {
      if (typeof fw === 'object' && !Buffer.isBuffer(fw)) return fw;
      const text = Buffer.isBuffer(fw) ? fw.toString('utf8') : (fw as string);
      return this.parseOnce(text);
    }
    if (!this.complete || this.overflow || this.chunks.length === 0) return undefined;
    const buf = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [];
    return this.parseOnce(buf.toString('utf8'));
  }

  /** True when the host read a body larger than the cap. */
  get overCap(): boolean {
    return this.overflow;
  }

  private parseOnce(text: string): unknown {
    let value: unknown;
    try {
      value = text.length <= this.maxBytes ? JSON.parse(text) : undefined;
    } catch {
      value = undefined;
    }
    this.parsed = { value };
    return value;
  }
}
