/**
 * Pure helpers of the exchange: reading the request's path and attempt header, and collecting
 * the answers of an SSE stream (one per call: the first error, else one success).
 */
import type { IncomingMessage } from 'node:http';
import { mayHoldError } from '../../protocol/call-shape.js';
import { type JsonObject, isObject } from '../../protocol/extract.js';
import { isParseFailure, readJsonBody } from '../../protocol/json-body.js';
import { SseReader } from '../../protocol/parse-sse.js';
import { HEADER_ATTEMPT } from '../attributes.js';
import type { Completion } from './complete.js';
import type { Answer } from './pair.js';

/** Attempt number from the client's `aap-attempt` header (1…100), or null. */
export function headerAttempt(req: IncomingMessage): number | null {
  const raw = req.headers[HEADER_ATTEMPT];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (typeof v !== 'string' || !/^\d{1,3}$/.test(v)) return null;
  const n = Number(v);
  return n >= 1 && n <= 100 ? n : null;
}

/** The request's path without the query; Express's `originalUrl` (a router strips its mount path from `url`). */
export function requestPath(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  const raw = typeof url === 'string' ? url : (req.url ?? '/');
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/** The JSON-RPC id of a success frame, read without parsing the frame (the first frame of a call decides nothing else). */
const FRAME_ID = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;

/**
 * The answers of an SSE response: a stream answers one call with many frames; each call keeps
 * its first error, else one success. Error frames are classified by `classify` (never rewritten:
 * the bytes are already on their way).
 */
export class SseAnswers {
  private readonly reader: SseReader;
  private readonly answers: Answer[] = [];
  private readonly byId = new Map<string | number | null, Answer>();

  constructor(maxBytes: number, classify: (item: JsonObject, id: string | number | null) => Completion) {
    this.reader = new SseReader((e) => {
      if (!mayHoldError(e.data)) {
        this.success(e.data);
        return;
      }
      const read = readJsonBody(e.data, { maxBytes });
      if (isParseFailure(read) || !isObject(read.value)) return;
      const item = read.value;
      const id = typeof item.id === 'string' || typeof item.id === 'number' ? item.id : null;
      const r = classify(item, id);
      const prev = this.byId.get(r.outcome.id);
      if (!prev) this.add({ outcome: r.outcome, conformance: r.conformance });
      else if (prev.outcome.ok && !r.outcome.ok) {
        prev.outcome = r.outcome;
        prev.conformance = r.conformance;
      }
    }, maxBytes);
  }

  /** One chunk of the stream. */
  push(chunk: Buffer): void {
    this.reader.push(chunk);
  }

  /** Ends the stream (its last event is read) and returns the answers, one per call, in stream order. */
  end(): Answer[] {
    this.reader.end();
    return this.answers;
  }

  private success(data: string): void {
    const m = FRAME_ID.exec(data);
    if (!m) return;
    let id: string | number;
    try {
      id = JSON.parse(m[1] as string) as string | number;
    } catch {
      return;
    }
    if (!this.byId.has(id)) this.add({ outcome: { id, ok: true }, conformance: [] });
  }

  private add(a: Answer): void {
    this.byId.set(a.outcome.id, a);
    this.answers.push(a);
  }
}
