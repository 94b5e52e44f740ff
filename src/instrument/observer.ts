/**
 * The exchange observer (DESIGN §2): one per HTTP request. It is fed the request body (without
 * reading the stream, request-tap.ts) and the response bytes (response-tap.ts), classifies each
 * JSON-RPC call with `src/protocol`, completes error responses (rewrite.ts), builds one
 * `ErrorEvent` per error and hands every call to the sinks: span, metrics, log line, retry
 * tracker, traffic counters and audit sink. Its state lives in this object; the host's request and
 * response carry only a symbol-keyed reference to their tap. Nothing here throws into the host:
 * every step runs under the triage's SafeCaller.
 */
import { ROOT_CONTEXT, context as otelContext } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorEvent, ErrorProtocol, RetryFlag } from '../protocol/error-event.js';
import type { CallOutcome, ParsedError, WireForm } from '../protocol/index.js';
import { releaseStore } from './aap-error-hook.js';
import type { ExchangeErrors } from './aap-error-hook.js';
import { HEADER_ATTEMPT, HEADER_TRACERESPONSE, RPC_METHOD_OTHER } from './attributes.js';
import type { CallReport, TriageCore } from './internal-types.js';
import { logError } from './log.js';
import { boundedDomainCode, boundedStatusCode, errorTypeOf } from './telemetry-codes.js';
import { recordCall } from './metrics.js';
import { TASK_FAILURE_STATES, classifyCall, decodeBody, isParseFailure, mintErrorId, readJsonBody } from '../protocol/index.js';
import { checkEventValues, safeCode, safeJsonRpcCode, safeMethodOriginal } from '../protocol/value-patterns.js';
import type { RequestCall } from '../protocol/index.js';
import { RequestBodyTap } from './request-tap.js';
import { tapResponse } from './response-tap.js';
import { callKey, idempotencyKey } from './call-key.js';
import type { Attempt } from './retry-tracker.js';
import { requestOrigin } from './origin.js';
import type { ResponseTapHandlers } from './response-tap.js';
import { isAgentCardPath } from './endpoint-forms.js';
import { ERROR_ID_REUSED } from './error-id-memory.js';
import { spliceBody } from './json-splice.js';
import { rewriteItem } from './rewrite.js';
import type { RewriteContext } from './rewrite.js';
import { adoptServerSpan, finishCallSpan, spanIds, startCallSpan, traceresponseFor, validSpanIn } from './span.js';
import { SseReader } from '../protocol/index.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One call of the exchange and what became of it. */
interface CallState {
  call: RequestCall | null;
  /** Started when first needed (at its call's start time): calls past the cap never get one. */
  span: Span | null;
  /** The span is the HTTP server span (a single call, DESIGN §4): set, never ended, here. */
  onServerSpan: boolean;
  method: string;
  /** `rpc.method_original` when the method is not allow-listed and passes its pattern. */
  original: string | null;
  /** Position among the exchange's calls: those at `maxAuditedCalls` and past it are counted, not audited. */
  index: number;
  outcome: CallOutcome | null;
  conformance: string[];
}

const idKey = (id: string | number | null): string => (id === null ? 'null' : `${typeof id}:${String(id)}`);

const FORM_VERSION: Readonly<Record<WireForm, string>> = {
  'aap-2.0': '2.0',
  'aap-released': 'released',
  'errorinfo-only': '2.0',
  a2a: '1.0',
  jsonrpc: '2.0',
  dmc12: 'v0.3',
  'dmc12-legacy': 'legacy',
  'task-failed': '1.0',
};

/**
 * Whether a response body can hold an error: an `"error…` member (JSON-RPC `error`, DMC-12
 * `error` / `error_code`) or a failed or rejected task state. False means every call in it succeeded.
 */
const NEEDLES: readonly string[] = ['"error', ...[...TASK_FAILURE_STATES.keys()].map((state) => `"${state}"`)];
// One scan of the text for all needles (a Buffer search per needle cost ~4 µs on a 700-byte
// reply); bytes are read as latin1, so the ASCII needles match inside any UTF-8 body.
const NEEDLE_RE = new RegExp(NEEDLES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
function mayHoldError(body: Buffer | string): boolean {
  return NEEDLE_RE.test(typeof body === 'string' ? body : body.toString('latin1'));
}

/** Attempt number from the client's `aap-attempt` header (1…100), or null. */
function headerAttempt(req: IncomingMessage): number | null {
  const raw = req.headers[HEADER_ATTEMPT];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (typeof v !== 'string' || !/^\d{1,3}$/.test(v)) return null;
  const n = Number(v);
  return n >= 1 && n <= 100 ? n : null;
}

/** The skill's data object (AAP `message.parts[0].data`, DMC-12 `arguments`). */
function skillData(call: RequestCall): Obj | null {
  const p = call.params;
  if (!isObj(p)) return null;
  if (call.family === 'dmc12') return isObj(p.arguments) && Object.hasOwn(p, 'arguments') ? p.arguments : null;
  const message = Object.hasOwn(p, 'message') ? p.message : undefined;
  const parts = isObj(message) && Object.hasOwn(message, 'parts') ? message.parts : undefined;
  const first = Array.isArray(parts) ? parts[0] : undefined;
  const data = isObj(first) && Object.hasOwn(first, 'data') ? first.data : undefined;
  return isObj(data) ? data : null;
}

function ownString(o: Obj | null, k: string): string | null {
  if (!o || !Object.hasOwn(o, k)) return null;
  const v = o[k];
  return typeof v === 'string' && v.length > 0 && v.length <= 512 ? v : null;
}

/** The request's path without the query; Express's `originalUrl` (a router strips its mount path from `url`). */
function requestPath(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  const raw = typeof url === 'string' ? url : (req.url ?? '/');
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/** Reads the agent card the host served into the endpoint forms. Never throws. */
function learnCard(core: TriageCore, body: Buffer | string): void {
  const read = readJsonBody(body, { maxBytes: core.maxBodyBytes });
  if (!isParseFailure(read)) core.forms.learnCard(read.value);
}

/** What one exchange's calls share while they are reported (see `finish`). */
interface ReportRun {
  /** Attempt per tracker key already recorded in this exchange: calls of one batch are not retries of each other. */
  seen: Map<number, Attempt> | null;
  /** Metric reports of a batch, grouped by labels and values (recorded once with a count). */
  metrics: Map<string, CallReport> | null;
  /** Errors past the cap: how many and their time span (epoch ms). */
  capped: number;
  cappedFrom: number;
  cappedTo: number;
}

export class Exchange implements ResponseTapHandlers {
  private readonly startedAt = Date.now();
  private parent: Context;
  private readonly body: RequestBodyTap;
  private calls: CallState[] | null = null;
  /** The first call per JSON-RPC id (`idKey`): pairing stays linear in the batch size. */
  private byId: Map<string, CallState> | null = null;
  /** The request body was a JSON array (a batch). */
  private batch = false;
  /** SSE responses by id key, index into `responses`. */
  private sseIndex: Map<string, number> | null = null;
  /** Responses in body order (JSON), or collected from SSE frames. */
  private readonly responses: { outcome: CallOutcome; conformance: string[] }[] = [];
  private sse: SseReader | null = null;
  private finished = false;
  private traceSpan: Span | undefined;
  /** The active valid span when the exchange was observed (the caller checked it), else null. */
  private readonly serverSpan: Span | null;
  /** The valid span of `parent` (the HTTP server span), once the calls are classified. */
  private parentSpan: Span | null = null;
  /** `parentSpan`'s ids, read (and checked) once: every call of the exchange shares its trace. */
  private parentIds: { traceId: string | null; spanId: string | null } = NO_IDS;

  constructor(
    readonly core: TriageCore,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly errors: ExchangeErrors | null,
    serverSpan: Span | null,
  ) {
    this.parent = otelContext.active();
    this.serverSpan = serverSpan;
    this.body = new RequestBodyTap(req, core.maxBodyBytes);
    // The exchange is the tap's handler object: no per-request closure or listener. The tap
    // calls `onDone` right after the host's `end` (or at 'close' when the exchange is aborted),
    // while the HTTP instrumentation's server span, which a single call is recorded on, is open.
    tapResponse(res, core.maxBodyBytes, this);
  }

  /** ResponseTapHandlers: the response is done: report every call (once). Never throws. */
  onDone(): void {
    try {
      this.finish();
    } catch (err) {
      this.core.safe.fail('observer', err);
    }
  }

  /** Classifies the request (once) and starts one span per call that expects a reply. */
  private ensureCalls(): CallState[] {
    if (this.calls) return this.calls;
    // Observed from a diagnostics channel, the exchange starts before the HTTP instrumentation
    // enters its server span; by the first header commit the handler runs inside it.
    let parentSpan = this.serverSpan ?? validSpanIn(this.parent);
    if (!parentSpan) {
      this.parent = otelContext.active();
      parentSpan = validSpanIn(this.parent);
    }
    // Checked once: validity is a regex test of both ids.
    this.parentSpan = parentSpan ?? null;
    if (parentSpan) {
      const sc = parentSpan.spanContext();
      this.parentIds = { traceId: sc.traceId, spanId: sc.spanId };
    }
    const calls: CallState[] = [];
    let byId: Map<string, CallState> | null = null;
    const body = this.body.body();
    this.batch = Array.isArray(body);
    if (body !== undefined) {
      // A parsed body (Express, or our own bounded parse) needs no second depth walk: only a
      // few own properties of each call are read.
      const classified = Array.isArray(body) ? (body.length > 0 ? body.map(classifyCall) : null) : isObj(body) ? [classifyCall(body)] : null;
      if (classified) {
        // A single call (not a batch) under the HTTP server span is recorded on that span.
        const onServerSpan = !Array.isArray(body) && this.parentSpan !== null;
        for (const call of classified) {
          if (call.isNotification) continue;
          const state = this.newCall(call, calls.length, onServerSpan);
          calls.push(state);
          // A batch's calls by id; a single call is found without a map (`stateFor`).
          if (call.id !== undefined && Array.isArray(body)) {
            byId ??= new Map();
            const k = idKey(call.id);
            if (!byId.has(k)) byId.set(k, state);
          }
        }
      }
    }
    this.calls = calls;
    this.byId = byId;
    return calls;
  }

  private newCall(call: RequestCall | null, index: number, onServerSpan = false): CallState {
    const raw = call?.method ?? null;
    const known = raw !== null && this.core.knownMethods.has(raw);
    const method = known ? (raw as string) : RPC_METHOD_OTHER;
    const original = known ? null : safeMethodOriginal(raw);
    return { call, span: null, onServerSpan: onServerSpan && this.parentSpan !== null, method, original, index, outcome: null, conformance: [] };
  }

  /**
   * The call's span, started (at the exchange's start time) when first asked for; for a single
   * call under the HTTP server span, that span itself (DESIGN §4).
   */
  private spanOf(c: CallState): Span {
    c.span ??=
      c.onServerSpan && this.parentSpan
        ? adoptServerSpan(this.parentSpan, c.method, c.original, c.call?.id)
        : startCallSpan(this.core.tracer, this.parentContext(), c.method, c.original, c.call?.id, this.startedAt);
    return c.span;
  }

  private parentContext(): Context {
    // No valid span in the active context (no HTTP instrumentation): the call spans are roots.
    return this.parentSpan ? this.parent : ROOT_CONTEXT;
  }

  /** ResponseTapHandlers: right before headers are committed. Never throws. */
  beforeHeaders(_contentType: string): Record<string, string> | null {
    try {
      return this.headersToAdd();
    } catch (err) {
      this.core.safe.fail('observer', err);
      return null;
    }
  }

  /** ResponseTapHandlers: one SSE chunk. Never throws. */
  onSseChunk(chunk: Buffer): void {
    try {
      this.onSse(chunk);
    } catch (err) {
      this.core.safe.fail('observer', err);
    }
  }

  /** ResponseTapHandlers: the complete JSON body (or null over the cap). Never throws. */
  onBody(body: Buffer | string | null, mode: 'buffer' | 'observe'): string | null {
    try {
      return this.completeBody(body, mode);
    } catch (err) {
      this.core.safe.fail('observer', err);
      return null;
    }
  }

  /** ResponseTapHandlers: a failure inside the tap. */
  onFailure(kind: string, err: unknown): void {
    this.core.safe.fail(kind, err);
  }

  private headersToAdd(): Record<string, string> | null {
    const calls = this.ensureCalls();
    const parentSpan = this.parentSpan ?? undefined;
    if (!parentSpan && calls.length === 0 && this.req.method === 'POST') {
      // An unreadable body (truncated JSON, wrong Content-Type): its one answer gets this span. If
      // no JSON-RPC answer comes, the span is never ended, so never exported.
      calls.push(this.newCall(null, 0));
    }
    const first = calls[0];
    this.traceSpan = parentSpan ?? (first ? this.spanOf(first) : undefined);
    const value = traceresponseFor(this.traceSpan, this.traceSpan === parentSpan && parentSpan !== undefined);
    return value ? { [HEADER_TRACERESPONSE]: value } : null;
  }

  /** The call a reply with `id` answers (one id-map lookup in a batch), or undefined. */
  private stateFor(id: string | number | null): CallState | undefined {
    const calls = this.ensureCalls();
    if (this.byId) return this.byId.get(idKey(id));
    const only = this.batch ? undefined : calls[0];
    return only?.call && only.call.id === id ? only : undefined;
  }

  private callFor(id: string | number | null, match: CallState | undefined = this.stateFor(id)): RequestCall | null {
    if (match) return match.call;
    const calls = this.ensureCalls();
    return calls.length === 1 ? (calls[0]?.call ?? null) : null;
  }

  /** Whether the call `match` (a reply's) is within the audit cap (an unknown id: yes). */
  private audits(match: CallState | undefined): boolean {
    return match === undefined || match.index < this.core.maxAuditedCalls;
  }

  private traceIdFor(match: CallState | undefined): string | null {
    // Under the HTTP server span every call shares its trace: no call span needs starting.
    if (this.parentSpan) return this.parentIds.traceId;
    const target = match ?? this.ensureCalls()[0];
    // A call past the audit cap never gets a span: no trace id to hand out for it.
    if (target && target.index >= this.core.maxAuditedCalls) return null;
    return spanIds(target ? this.spanOf(target) : this.traceSpan).traceId;
  }

  private completeBody(host: Buffer | string | null, mode: 'buffer' | 'observe'): string | null {
    if (!host || host.length === 0) return null;
    if (this.req.method === 'GET' && isAgentCardPath(requestPath(this.req))) {
      // The host's own agent card says which AAP version (error form) its endpoints serve.
      learnCard(this.core, host);
      return null;
    }
    // Fast path: a body with no error member and no failed task is all successes; the calls
    // without an outcome are reported as such, and nothing needs parsing or completing.
    if (!mayHoldError(host)) return null;
    // Decoded once: parsed, and spliced into if completed.
    const text = decodeBody(host, this.core.maxBodyBytes);
    if (typeof text !== 'string') return null;
    const read = readJsonBody(text, { maxBytes: this.core.maxBodyBytes });
    if (isParseFailure(read)) return null;
    const value = read.value;
    const items = Array.isArray(value) ? value : [value];
    let changed = false;
    const endpoint = this.core.forms.formFor(requestPath(this.req));
    // One context for the whole body (rewriteItem keeps no reference): no object per item.
    const ctx: RewriteContext = {
      store: this.errors,
      aapForm: endpoint.form,
      endpointForm: endpoint.known ? endpoint.form : null,
      requiredExtensionUri: this.core.requiredExtensionUri,
      traceId: null,
      mayRewrite: mode === 'buffer',
      now: new Date(),
      conformance: true,
    };
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (!isObj(item) || !(Object.hasOwn(item, 'result') || Object.hasOwn(item, 'error'))) continue;
      const id = typeof item.id === 'string' || typeof item.id === 'number' ? item.id : null;
      const match = this.stateFor(id);
      ctx.traceId = this.traceIdFor(match);
      ctx.conformance = this.audits(match);
      const r = rewriteItem(item, this.callFor(id, match), ctx);
      if (r.changed) {
        changed = true;
        items[i] = r.item;
      }
      this.responses.push({ outcome: r.outcome, conformance: r.conformance });
    }
    if (!changed) return null;
    // Splice, not re-serialise: what was not completed keeps the host's bytes (json-splice.ts).
    const spliced = spliceBody(text, Array.isArray(value) ? items : items[0]);
    return spliced === text ? null : spliced;
  }

  private onSse(chunk: Buffer): void {
    if (!this.sse) {
      this.sse = new SseReader((e) => {
        if (!mayHoldError(e.data)) {
          this.sseSuccess(e.data);
          return;
        }
        const read = readJsonBody(e.data, { maxBytes: this.core.maxBodyBytes });
        if (isParseFailure(read) || !isObj(read.value)) return;
        const item = read.value;
        const id = typeof item.id === 'string' || typeof item.id === 'number' ? item.id : null;
        const endpoint = this.core.forms.formFor(requestPath(this.req));
        const r = rewriteItem(item, this.callFor(id), {
          store: this.errors,
          aapForm: endpoint.form,
          endpointForm: endpoint.known ? endpoint.form : null,
          requiredExtensionUri: this.core.requiredExtensionUri,
          traceId: null,
          mayRewrite: false,
          now: new Date(),
        });
        // A stream answers one call with many frames: keep the first error, else one success.
        const key = idKey(r.outcome.id);
        const at = this.sseAt(key);
        const prev = at === undefined ? undefined : this.responses[at];
        if (!prev) this.sseAdd(key, { outcome: r.outcome, conformance: r.conformance });
        else if (prev.outcome.ok && !r.outcome.ok) {
          prev.outcome = r.outcome;
          prev.conformance = r.conformance;
        }
      }, this.core.maxBodyBytes);
    }
    this.sse.push(chunk);
  }

  /** Records a success frame of a stream (its id only; the first frame of a call decides nothing else). */
  private sseSuccess(data: string): void {
    const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(data);
    if (!m) return;
    let id: string | number | null = null;
    try {
      id = JSON.parse(m[1] as string) as string | number;
    } catch {
      return;
    }
    const key = idKey(id);
    if (this.sseAt(key) === undefined) this.sseAdd(key, { outcome: { id, ok: true }, conformance: [] });
  }

  private sseAt(key: string): number | undefined {
    return this.sseIndex?.get(key);
  }

  private sseAdd(key: string, r: { outcome: CallOutcome; conformance: string[] }): void {
    this.sseIndex ??= new Map();
    this.sseIndex.set(key, this.responses.length);
    this.responses.push(r);
  }

  /** Pairs responses with calls by id and reports every call. Runs once, when the response is done. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.errors) releaseStore(this.errors);
    this.body.release();
    this.sse?.end();
    const calls = this.ensureCalls();
    const endedAt = Date.now();
    const status = this.res.statusCode;
    if (this.batch && calls.length > 1 && this.batchFailed(status)) {
      // A transport-level failure of the whole batch (413, 400 without per-call answers, one
      // error object answering the array): one error for the exchange, not one per call.
      const first = calls[0] as CallState;
      const answer = this.responses[0];
      first.outcome = answer ? answer.outcome : null;
      first.conformance = answer ? answer.conformance : [];
      const whole: CallState[] = [first];
      this.reportAll(whole, endedAt, status, calls.length);
      return;
    }
    const only = calls.length === 1 ? calls[0] : undefined;
    if (only && this.responses.length === 1 && only.call && only.call.id === (this.responses[0] as { outcome: CallOutcome }).outcome.id) {
      // The common case: one call, one reply with its id.
      const r = this.responses[0] as { outcome: CallOutcome; conformance: string[] };
      only.outcome = r.outcome;
      only.conformance = r.conformance;
      this.responses.length = 0;
    }
    // Calls by id, each list with a cursor to its first unanswered call: linear even when a
    // hostile batch repeats one id thousands of times.
    const byKey = new Map<string, { list: CallState[]; next: number }>();
    for (const c of this.responses.length === 0 ? [] : calls) {
      if (!c.call) continue;
      const k = idKey(c.call.id);
      const entry = byKey.get(k);
      if (entry) entry.list.push(c);
      else byKey.set(k, { list: [c], next: 0 });
    }
    for (const r of this.responses) {
      const entry = byKey.get(idKey(r.outcome.id));
      let target: CallState | undefined;
      if (entry) {
        while (entry.next < entry.list.length && (entry.list[entry.next] as CallState).outcome !== null) entry.next++;
        target = entry.list[entry.next];
      }
      // A single call answered with id null (parse / invalid-request errors) is that call's answer.
      if (!target && r.outcome.id === null && calls.length === 1 && calls[0]?.outcome === null) target = calls[0];
      if (!target) {
        target = this.newCall(null, calls.length);
        calls.push(target);
      }
      target.outcome = r.outcome;
      target.conformance = r.conformance;
    }
    this.reportAll(calls, endedAt, status, 0);
  }

  /**
   * Whether the exchange's answer failed the batch as a whole: no JSON-RPC answer at all with an
   * HTTP error status, or a single error with id null for a batch of several calls.
   */
  private batchFailed(status: number): boolean {
    if (this.responses.length === 0) return status >= 400;
    if (this.responses.length !== 1) return false;
    const only = (this.responses[0] as { outcome: CallOutcome }).outcome;
    return !only.ok && only.id === null;
  }

  /**
   * Reports `calls` (one by one up to the cap, then counted), then the summary of what the cap
   * left out. `batchOf` (the batch's size, else 0) marks a whole-batch failure's tracker key.
   */
  private reportAll(calls: CallState[], endedAt: number, status: number, batchOf: number): void {
    // Inline guards rather than safe.call closures: this runs for every exchange.
    let credential: string | null | undefined = null;
    try {
      credential = this.core.credential(this.req);
    } catch (err) {
      this.core.safe.fail('credential-hook', err);
    }
    let client: string | null = null;
    if (credential) {
      try {
        client = this.core.clientPseudonym(credential);
      } catch (err) {
        this.core.safe.fail('pseudonymizer', err);
      }
    }
    const attemptHeader = headerAttempt(this.req);
    // A POST whose body could not be read (truncated, over the cap) answered with an HTTP error
    // page and no JSON-RPC reply is still one failed call: its row must not depend on body size.
    const unreadFailed = status >= 400 && this.req.method === 'POST' && this.responses.length === 0;
    if (unreadFailed && calls.length === 0) calls.push(this.newCall(null, 0));
    const many = calls.length > 1;
    const run: ReportRun = { seen: many ? new Map() : null, metrics: many ? new Map() : null, capped: 0, cappedFrom: Infinity, cappedTo: -Infinity };
    for (const c of calls) {
      if (c.call === null && c.outcome === null && !unreadFailed) continue;
      this.report(c, endedAt, status, client, attemptHeader, run, batchOf);
    }
    if (run.metrics && this.core.instruments) {
      const instruments = this.core.instruments;
      for (const r of run.metrics.values()) {
        try {
          recordCall(instruments, r);
        } catch (err) {
          this.core.safe.fail('metrics', err);
        }
      }
    }
    if (run.capped > 0) this.reportCapped(run);
  }

  /** Records a call's metrics now, or (in a batch) adds it to its group. */
  private recordMetrics(run: ReportRun, r: CallReport): void {
    const core = this.core;
    if (run.metrics) {
      const e = r.error;
      const key = metricKey(r.method, r.protocol, r.skill, r.attempt, r.flags, r, e ? e.retryable : undefined, e ? e.conformance : null);
      const group = run.metrics.get(key);
      if (group) group.count = (group.count ?? 1) + 1;
      else run.metrics.set(key, { ...r, count: 1 });
      return;
    }
    if (!core.instruments) return;
    try {
      recordCall(core.instruments, r);
    } catch (err) {
      core.safe.fail('metrics', err);
    }
  }

  /** The one summary of the errors past `maxAuditedCallsPerExchange`: a gap row and a log line. */
  private reportCapped(run: ReportRun): void {
    const core = this.core;
    const traceId = this.parentSpan ? this.parentIds.traceId : spanIds(this.traceSpan).traceId;
    if (core.sink?.recordGap) {
      const sink = core.sink;
      try {
        sink.recordGap?.({ service: core.service, startedAt: run.cappedFrom, endedAt: run.cappedTo, count: run.capped, reason: EXCHANGE_CAP_REASON });
      } catch (err) {
        core.safe.fail('audit-write', err);
      }
    }
    if (core.logger) {
      try {
        core.logger.warn({ not_audited: run.capped, cap: core.maxAuditedCalls, reason: EXCHANGE_CAP_REASON, trace_id: traceId }, CAPPED_LOG_MESSAGE);
      } catch (err) {
        core.safe.fail('log', err);
      }
    }
  }

  private report(c: CallState, endedAt: number, httpStatus: number, client: string | null, attemptHeader: number | null, run: ReportRun, batchOf: number): void {
    const core = this.core;
    const call = c.call;
    const p = core.pseudonymizer;
    let error: ParsedError | null = c.outcome && !c.outcome.ok && c.outcome.error ? c.outcome.error : null;
    if (!error && !c.outcome && httpStatus >= 400) {
      // No JSON-RPC answer at all (e.g. a bare 401 or 500 page): the HTTP status is the error.
      error = {
        protocol: 'jsonrpc',
        form: 'jsonrpc',
        code: `HTTP_${httpStatus}`,
        jsonrpcCode: null,
        retryable: httpStatus >= 500 ? null : false,
        errorId: null,
        retryAfterMs: null,
        violations: [],
        upstreamTraceId: null,
      };
    }
    if (error && call?.family === 'dmc12' && error.protocol !== 'dmc12' && error.jsonrpcCode !== null && error.jsonrpcCode <= -32000 && error.jsonrpcCode >= -32099) {
      // Server-defined codes on a DMC-12 call are DMC-12's own (-32001 is its auth failure, HTTP 401).
      error = { ...error, protocol: 'dmc12' };
    }
    const rawSkill = call?.skill ?? null;
    const skill = rawSkill === null ? null : core.knownSkills.has(rawSkill) ? rawSkill : RPC_METHOD_OTHER;
    // Past the cap a call is counted (traffic, metrics) but gets no span, line, row or tracker
    // entry: the canonical walk and hash are most of a call's cost, and one request must not be
    // able to make the host do unbounded work (issue 16).
    const audited = c.index < core.maxAuditedCalls;
    const data = call && audited ? skillData(call) : null;
    const idemRaw = ownString(data, 'idempotency_key');
    // The tracker keys on a cheap unkeyed hash of the canonical call (call-key.ts); the keyed
    // pseudonyms (HMAC) are computed below for error rows only (DESIGN §6: (client, fingerprint)
    // or (client, idempotency)).
    let trackKey: number | null = null;
    const origin = requestOrigin(this.req.headers); // probe calls: neither tracked nor counted as traffic (origin.ts)
    if (audited && origin === null) {
      try {
        if (idemRaw) trackKey = idempotencyKey(idemRaw, client, batchOf);
        else if (call && call.method !== null) trackKey = callKey(call.method, rawSkill, call.params, client, batchOf);
      } catch (err) {
        core.safe.fail('fingerprint', err);
      }
    }
    // The same call twice in one batch is one attempt, not a retry of itself.
    const again = trackKey !== null ? run.seen?.get(trackKey) : undefined;
    const { attempt, flags } = !audited
      ? { attempt: attemptHeader ?? 1, flags: NO_FLAGS }
      : (again ??
        core.tracker.record(trackKey, this.startedAt, attemptHeader, {
          at: endedAt,
          ok: error === null,
          retryable: error?.retryable ?? null,
          retryAfterMs: error?.retryAfterMs ?? null,
        }));
    if (trackKey !== null && run.seen && !again) run.seen.set(trackKey, { attempt, flags });
    if (origin === null) core.traffic.add(this.startedAt, skill, client, error !== null, attempt > 1);

    const protocol: ErrorProtocol = error?.protocol ?? (call?.family === 'dmc12' ? 'dmc12' : call?.family === 'aap' ? (call.skill ? 'aap' : 'a2a') : 'jsonrpc');
    const { traceId, spanId } = !audited ? NO_IDS : c.onServerSpan ? this.parentIds : spanIds(this.spanOf(c));
    let event: ErrorEvent | null = null;
    if (error && !audited) {
      run.capped++;
      if (endedAt < run.cappedFrom) run.cappedFrom = endedAt;
      if (endedAt > run.cappedTo) run.cappedTo = endedAt;
      // Grouped by labels first: a report (and its event) is built once per group, not per call.
      const code = safeCode(error.code);
      const jsonrpcCode = safeJsonRpcCode(error.jsonrpcCode);
      const labels: CodeLabels = { errorType: errorTypeOf(jsonrpcCode, code), statusCode: boundedStatusCode(jsonrpcCode), errorCode: boundedDomainCode(code) };
      const key = run.metrics ? metricKey(c.method, protocol, skill, attempt, flags, labels, error.retryable, c.conformance) : null;
      const group = key === null ? undefined : run.metrics?.get(key);
      if (group) group.count = (group.count ?? 1) + 1;
      else this.recordMetrics(run, countedReport(c.method, protocol, skill, attempt, flags, (endedAt - this.startedAt) / 1000, error, code, labels, c.conformance));
      return;
    }
    let rowId: string | null = null;
    if (error) {
      const customer = data && Object.hasOwn(data, 'customer') && isObj(data.customer) ? data.customer : null;
      // Both, when the request held both: erasure by either must find the row (issue #17).
      const email = ownString(customer, 'email');
      const phone = ownString(customer, 'phone');
      const subjects = p ? core.safe.call('pseudonymizer', () => [email, phone].map((v) => (v ? p.subject(v) : null)).filter((v): v is string => v !== null), []) : [];
      let fingerprint: string | null = null;
      let idempotency: string | null = null;
      if (p) {
        try {
          if (call && call.method !== null) fingerprint = core.fingerprintOf(call.method, rawSkill, call.params, trackKey !== null && !idemRaw ? trackKey : null);
          if (idemRaw) idempotency = p.idempotency(idemRaw);
        } catch (err) {
          core.safe.fail('pseudonymizer', err);
        }
      }
      event = {
        error_id: error.errorId ?? '',
        occurred_at: endedAt,
        trace_id: traceId,
        span_id: spanId,
        upstream_trace_id: error.upstreamTraceId,
        service: core.service,
        protocol: error.protocol,
        protocol_version: FORM_VERSION[error.form] ?? null,
        rpc_method: c.method,
        skill,
        code: error.code,
        legacy_error: error.legacyError ?? null,
        jsonrpc_code: error.jsonrpcCode,
        http_status: httpStatus,
        retryable: error.retryable,
        retry_after_ms: error.retryAfterMs,
        client,
        fingerprint,
        idempotency,
        subject: subjects[0] ?? null,
        subject_alt: subjects[1] ?? null,
        attempt,
        retry_flags: flags,
        violations: error.violations,
        conformance: c.conformance,
        duration_ms: endedAt - this.startedAt,
        key_id: p?.keyId ?? null,
        origin,
      };
      // Every machine field from the wire passes its pattern before any sink sees it: an error_id
      // that fails is minted anew (issue 16; src/protocol/value-patterns.ts).
      checkEventValues(event as ErrorEvent);
      if (core.errorIds.seen(event.error_id)) {
        // The dealer reused an error_id. Span and log keep the id the caller holds; the audit row
        // (keyed by error_id) gets one of its own so both errors are kept, and says why.
        event.conformance = [...event.conformance, ERROR_ID_REUSED];
        rowId = mintErrorId();
      }
    }
    const report: CallReport = {
      method: c.method,
      protocol,
      skill,
      attempt,
      flags,
      durationS: (endedAt - this.startedAt) / 1000,
      errorType: event ? errorTypeOf(event.jsonrpc_code, event.code) : null,
      statusCode: event ? boundedStatusCode(event.jsonrpc_code) : null,
      errorCode: event ? boundedDomainCode(event.code) : null,
      error: event,
    };
    // Inline try/catch rather than safe.call closures: this runs for every call.
    if (audited) {
      try {
        finishCallSpan(this.spanOf(c), report, endedAt, !c.onServerSpan);
      } catch (err) {
        core.safe.fail('span', err);
      }
    }
    this.recordMetrics(run, report);
    if (event && audited) {
      const ev = event;
      try {
        logError(core, ev, skill, c.method, this.spanOf(c));
      } catch (err) {
        core.safe.fail('log', err);
      }
      if (core.sink) {
        const sink = core.sink;
        try {
          sink.write(rowId === null ? ev : { ...ev, error_id: rowId });
        } catch (err) {
          core.safe.fail('audit-write', err);
        }
      }
    }
  }
}

/**
 * The metrics' view of an error past the cap: its bounded code, retryable and conformance, with
 * nothing minted or pseudonymised (no row, span or line is made from it).
 */
function countedReport(
  method: string,
  protocol: ErrorProtocol,
  skill: string | null,
  attempt: number,
  flags: RetryFlag[],
  durationS: number,
  error: ParsedError,
  code: string,
  labels: CodeLabels,
  conformance: string[],
): CallReport {
  const event: ErrorEvent = {
    error_id: '',
    occurred_at: 0,
    trace_id: null,
    span_id: null,
    upstream_trace_id: null,
    service: '',
    protocol: error.protocol,
    protocol_version: null,
    rpc_method: method,
    skill,
    code,
    legacy_error: null,
    jsonrpc_code: null,
    http_status: null,
    retryable: error.retryable,
    retry_after_ms: null,
    client: null,
    fingerprint: null,
    idempotency: null,
    subject: null,
    subject_alt: null,
    attempt,
    retry_flags: flags,
    violations: [],
    conformance,
    duration_ms: null,
    key_id: null,
  };
  return { method, protocol, skill, attempt, flags, durationS, errorType: labels.errorType, statusCode: labels.statusCode, errorCode: labels.errorCode, error: event };
}

/** The metric group of a call in a batch: everything its labels and recorded values depend on. */
function metricKey(
  method: string,
  protocol: string,
  skill: string | null,
  attempt: number,
  flags: readonly string[],
  codes: CodeLabels,
  retryable: boolean | null | undefined,
  conformance: readonly string[] | null,
): string {
  return `${method}\u0000${protocol}\u0000${skill ?? ''}\u0000${attempt}\u0000${flags.join(',')}\u0000${codes.errorType ?? ''}\u0000${codes.statusCode ?? ''}\u0000${codes.errorCode ?? ''}\u0000${String(retryable)}\u0000${conformance ? conformance.join(',') : ''}`;
}

/** The bounded code labels of a call report (telemetry-codes.ts). */
type CodeLabels = Pick<CallReport, 'errorType' | 'statusCode' | 'errorCode'>;

/** The ids of no span (no valid context): shared, never mutated. */
const NO_IDS: { readonly traceId: string | null; readonly spanId: string | null } = Object.freeze({ traceId: null, spanId: null });

/** The flags of a call past the cap (never tracked): shared, never mutated. */
const NO_FLAGS: RetryFlag[] = Object.freeze([]) as unknown as RetryFlag[];

/** Reason of the gap row that counts the errors past the per-exchange cap. */
export const EXCHANGE_CAP_REASON = 'exchange_cap';
/** Fixed message of the one line that counts them. */
export const CAPPED_LOG_MESSAGE = 'json-rpc errors past the per-exchange cap were counted, not audited one by one';

/**
 * Starts observing one exchange. `errors` is the exchange's AapError store (the caller runs the
 * host's handler inside it). `serverSpan`: the active span, already checked valid by the caller
 * (its ids are used as they are), else null, and the exchange looks for one itself when it
 * classifies the calls. Never throws.
 */
export function observeExchange(core: TriageCore, req: IncomingMessage, res: ServerResponse, errors: ExchangeErrors | null, serverSpan: Span | null = null): void {
  if (!core.active) return;
  core.safe.call(
    'observer',
    () => {
      new Exchange(core, req, res, errors, serverSpan);
    },
    undefined,
  );
}
