/**
 * Pure helpers of the exchange: reading the request's path and attempt header, and collecting
 * the answers of an SSE stream (one per call: the first error, else one success).
 */
import type { IncomingMessage } from 'node:http';
import { mayHoldError } from '../../protocol/call-shape.js';
import { type JsonObject, isObject } from '../../protocol/extract.js';
import { isParseFailure, readJsonBody } from '../../protocol/json-body.js';
import { SseReader } from '../../protocol/parse-sse.js';
import type { Context, Span } from '@opentelemetry/api';
import { classifyCall } from '../../protocol/parse-request.js';
import type { RequestCall } from '../../protocol/parse-request.js';
import { safeMethodOriginal } from '../../protocol/value-patterns.js';
import { HEADER_ATTEMPT, RPC_METHOD_OTHER } from '../attributes.js';
import type { CappedErrors, TriageCore } from '../internal-types.js';
import type { Completion } from './complete.js';
import type { Answer } from './pair.js';
import { mayHoldResponseFacts } from '../genai-conventions.js';
import type { ReplyFacts } from '../genai-conventions.js';

/** One call of the exchange and its span (started when first needed: calls past the cap never get one). */
export interface CallState {
  readonly call: RequestCall | null;
  /** Allow-listed method, and `rpc.method_original` when it is not allow-listed and passes its pattern. */
  readonly method: string;
  readonly original: string | null;
  readonly index: number;
  /** A single call's span is the HTTP server span (DESIGN §4), set, never ended, by the exchange. */
  readonly onServerSpan: boolean;
  /** The remote parent a `tools/call` names in `params._meta` (GenAI opt-in, genai-conventions.ts), else null. */
  readonly remote: Context | null;
  span: Span | null;
}

/** The state of one call: its method allow-listed (`_OTHER` otherwise). */
export function callState(call: RequestCall | null, index: number, knownMethods: ReadonlySet<string>, onServerSpan = false, remote: Context | null = null): CallState {
  const raw = call?.method ?? null;
  const known = raw !== null && knownMethods.has(raw);
  return { call, method: known ? (raw as string) : RPC_METHOD_OTHER, original: known ? null : safeMethodOriginal(raw), index, onServerSpan, remote, span: null };
}

/**
 * The calls of a parsed request body that expect an answer (notifications left out), in body
 * order, and for a batch the first call per JSON-RPC id (so pairing a reply stays linear).
 * `onServerSpan`: a single call is recorded on the HTTP server span. `remoteOf` (GenAI opt-in
 * only): a call's own remote parent; a call that has one gets its own span under it instead.
 */
export function callStates(
  body: unknown,
  knownMethods: ReadonlySet<string>,
  onServerSpan: boolean,
  remoteOf: ((call: RequestCall) => Context | null) | null = null,
): { calls: CallState[]; byId: Map<string | number | null, CallState> | null } {
  const batch = Array.isArray(body);
  // A parsed body (Express, or our own bounded parse) needs no second depth walk.
  const classified = batch ? body.map(classifyCall) : isObject(body) ? [classifyCall(body)] : [];
  const calls: CallState[] = [];
  let byId: Map<string | number | null, CallState> | null = null;
  for (const call of classified) {
    if (call.isNotification) continue;
    const remote = remoteOf ? remoteOf(call) : null;
    const c = callState(call, calls.length, knownMethods, onServerSpan && remote === null, remote);
    calls.push(c);
    if (batch) {
      byId ??= new Map();
      if (!byId.has(call.id)) byId.set(call.id, c);
    }
  }
  return { calls, byId };
}

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

/** The caller's client pseudonym (credential hook, then the keyed HMAC), or null. Inline guards: this runs for every exchange. */
export function clientOf(core: TriageCore, req: IncomingMessage): string | null {
  let credential: string | null | undefined = null;
  try {
    credential = core.settings.credential(req);
  } catch (err) {
    core.safe.fail('credential-hook', err);
  }
  if (!credential) return null;
  try {
    return core.clientPseudonym(credential);
  } catch (err) {
    core.safe.fail('pseudonymizer', err);
    return null;
  }
}

/** Reads the agent card the host served into the endpoint forms (its AAP version decides the error form). Returns null: the card is sent as it is. */
export function learnCard(core: TriageCore, body: Buffer | string): null {
  const read = readJsonBody(body, { maxBytes: core.settings.maxBodyBytes });
  if (!isParseFailure(read)) core.forms.learnCard(read.value);
  return null;
}

/** `capped` with one more error past the audit cap, sent at `at` (epoch ms). */
export function countCapped(capped: CappedErrors | null, at: number): CappedErrors {
  const c = capped ?? { count: 0, from: Infinity, to: -Infinity };
  c.count++;
  if (at < c.from) c.from = at;
  if (at > c.to) c.to = at;
  return c;
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

  /** @param facts the GenAI conventions' reader (opt-in only, else null): success frames are parsed for it too */
  constructor(maxBytes: number, classify: (item: JsonObject, id: string | number | null) => Completion, facts: ReplyFacts | null = null) {
    this.reader = new SseReader((e) => {
      const errors = mayHoldError(e.data);
      if (!errors) {
        this.success(e.data);
        if (facts === null || !mayHoldResponseFacts(e.data)) return;
      }
      const read = readJsonBody(e.data, { maxBytes });
      if (isParseFailure(read) || !isObject(read.value)) return;
      const item = read.value;
      const id = typeof item.id === 'string' || typeof item.id === 'number' ? item.id : null;
      facts?.read(item, id);
      if (!errors) return;
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
