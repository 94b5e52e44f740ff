/**
 * Server-sent events, the one parser: an incremental reader (`SseReader`, fed chunks as they
 * arrive: the instrumentation's response tap, the client's stream inspector) and the whole-body
 * reply parser built on it (`parseSseResponse`). Streaming replies (`SendStreamingMessage` /
 * `message/stream`) carry one JSON-RPC response per event (A2A v1.0 §9.4).
 *
 * Line rules are WHATWG HTML "Parsing an event stream": a line ends with CRLF, LF or a lone CR; an
 * empty line dispatches the event; `data:` lines of one event join with LF; one leading space of a
 * value is dropped; lines starting with `:` are comments. Bytes are decoded as a UTF-8 stream, so a
 * character split across chunks is read whole, and a CR that ends one chunk followed by an LF that
 * starts the next is one line end, not two.
 */
import type { CallOutcome } from './types.js';
import { errorText } from './extract.js';
import { type BodyLimits, DEFAULT_MAX_BYTES, type ParseFailure, decodeBody, parseFailure, readJsonBody } from './json-body.js';
import { type CallFamily, isResponseObject, parseCall } from './parse-response.js';

/** One dispatched event: its `event` field (`message` when none was given) and its joined data. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Largest event (data characters, and one unterminated line) `SseReader` keeps by default: 8 MiB. */
export const DEFAULT_MAX_SSE_EVENT_CHARS = DEFAULT_MAX_BYTES;

/**
 * Incremental SSE reader. `push` takes bytes (UTF-8) or text as it arrives; each complete event is
 * handed to `onEvent` synchronously. An event whose data, or a line, exceeds `maxEventChars` is
 * skipped whole (its neighbours are still read). `end()` closes the stream: an event whose last
 * line ended but whose blank line never came is dispatched, and so is a last line without its end
 * — the buyer's SDK (@a2a-js/sdk `parseSseStream`) acts on such an event, so an observer must see
 * it too (WHATWG would drop it). Never throws for any input; `onEvent` errors propagate.
 */
export class SseReader {
  private readonly decoder = new TextDecoder('utf-8');
  /** Per reader: `onEvent` may feed another reader, which must not move this one's lastIndex. */
  private readonly lineEnd = /\r\n|\r|\n/g;
  /** Text after the last line end: the start of a line not yet complete (holds no CR or LF). */
  private pending = '';
  /** The previous chunk ended in CR: an LF opening the next chunk belongs to that line end. */
  private afterCr = false;
  private data: string[] = [];
  private dataChars = 0;
  private event = '';
  private skipping = false;
  private ended = false;

  /**
   * @param onEvent called once per dispatched event, in stream order.
   * @param maxEventChars cap on one event's data and on one line, in characters.
   */
  constructor(
    private readonly onEvent: (e: SseEvent) => void,
    private readonly maxEventChars: number = DEFAULT_MAX_SSE_EVENT_CHARS,
  ) {}

  /** Feeds the next chunk (bytes are decoded as a UTF-8 stream; text is taken as is). Ignored after `end()`. */
  push(chunk: Uint8Array | string): void {
    if (this.ended) return;
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (text.length === 0) return;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    this.scan(text);
  }

  /** Closes the stream: flushes the decoder, then dispatches what a complete last event would hold. */
  end(): void {
    if (this.ended) return;
    // Bytes of a character the stream never finished decode as U+FFFD.
    const tail = this.decoder.decode();
    if (tail.length > 0) this.scan(tail);
    this.ended = true;
    if (this.pending.length > 0) this.line(this.pending);
    this.pending = '';
    this.line('');
  }

  private scan(text: string): void {
    const buf = this.pending + text;
    let start = 0;
    const lineEnd = this.lineEnd;
    lineEnd.lastIndex = this.pending.length;
    for (let m = lineEnd.exec(buf); m !== null; m = lineEnd.exec(buf)) {
      this.line(buf.slice(start, m.index));
      start = m.index + m[0].length;
      // A CR as the very last character may be half of a CRLF split across chunks.
      if (m[0] === '\r' && start === buf.length) this.afterCr = true;
    }
    this.pending = buf.slice(start);
    if (this.pending.length > this.maxEventChars) {
      // One unterminated line larger than the cap: drop it and the event it belongs to.
      this.pending = '';
      this.skipping = true;
      this.data = [];
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (!this.skipping && this.data.length > 0) this.onEvent({ event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.dataChars = 0;
      this.event = '';
      this.skipping = false;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      if (this.skipping) return;
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxEventChars) {
        this.skipping = true;
        this.data = [];
        return;
      }
      this.data.push(value);
    } else if (field === 'event') {
      this.event = value;
    }
  }
}

/** Options of `parseSseResponse`. */
export interface ParseSseOptions extends BodyLimits {
  /** See `ParseResponseOptions.family`. */
  family?: CallFamily;
  /** Most events read; the rest are ignored. Default 10 000. */
  maxEvents?: number;
}

/**
 * Parses a complete SSE body into one `CallOutcome` per JSON-RPC id, in order of first
 * appearance: the first error seen for the id (an `error` member, a DMC-12 result error, a failed
 * or rejected status update), else success. Events whose data is not a JSON-RPC response
 * (keep-alives, `[DONE]`) are skipped. Never throws; gives a `ParseFailure` for an unreadable body
 * (`too-large`, `invalid-utf8`) or a stream with no JSON-RPC response at all (`not-jsonrpc`).
 * `maxBytes` caps the whole body, `maxDepth` each event.
 */
export function parseSseResponse(body: string | Uint8Array, options: ParseSseOptions = {}): CallOutcome[] | ParseFailure {
  try {
    const text = decodeBody(body, options.maxBytes ?? DEFAULT_MAX_BYTES);
    if (typeof text !== 'string') return text;
    const byId = new Map<string, CallOutcome>();
    const maxEvents = options.maxEvents ?? 10_000;
    let events = 0;
    const reader = new SseReader((e) => {
      if (++events > maxEvents) return;
      const read = readJsonBody(e.data, { maxDepth: options.maxDepth, maxBytes: Number.MAX_SAFE_INTEGER });
      if ('parseError' in read || !isResponseObject(read.value)) return;
      const outcome = parseCall(read.value, options.family);
      const key = outcome.id === null ? 'null' : `${typeof outcome.id}:${String(outcome.id)}`;
      const seen = byId.get(key);
      if (!seen || (seen.ok && !outcome.ok)) byId.set(key, outcome);
    }, Number.MAX_SAFE_INTEGER);
    reader.push(text);
    reader.end();
    if (byId.size === 0) return parseFailure('not-jsonrpc', 'event stream holds no JSON-RPC response');
    return [...byId.values()];
  } catch (err) {
    return parseFailure('not-jsonrpc', `unreadable event stream: ${errorText(err)}`);
  }
}
