/**
 * The exchange (DESIGN §2): one per observed HTTP request. The taps only collect — the request
 * body without reading the stream (taps/request-tap.ts), the response bytes (taps/response-tap.ts)
 * — and this object runs the pure stages over what they collected: each answer is completed as it
 * passes (complete.ts; the only edit of bytes on the wire), and when the response is done the
 * calls are paired with their answers (pair.ts), each becomes one record (record.ts), and the
 * records go to the sinks (sinks/index.ts). Its state lives here; the host's request and response
 * carry nothing of ours. Nothing here throws into the host.
 */
import { ROOT_CONTEXT, context as otelContext } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestCall } from '../../protocol/parse-request.js';
import { HEADER_TRACERESPONSE } from '../attributes.js';
import { isAgentCardPath } from '../endpoint-forms.js';
import type { CallRecord, CappedErrors, TriageCore } from '../internal-types.js';
import type { CallState } from './exchange-utils.js';
import { runSinks } from '../sinks/index.js';
import { adoptServerSpan, spanIds, startCallSpan, traceresponseFor, validSpanIn } from '../sinks/span.js';
import { releaseStore } from '../taps/aap-error-hook.js';
import type { ExchangeErrors } from '../taps/aap-error-hook.js';
import { RequestBodyTap } from '../taps/request-tap.js';
import { tapResponse } from '../taps/response-tap.js';
import type { ResponseTapHandlers } from '../taps/response-tap.js';
import { complete, completeBody } from './complete.js';
import type { CompleteContext, ReplyTarget } from './complete.js';
import { SseAnswers, callStates, callState, clientOf, countCapped, headerAttempt, learnCard, requestPath } from './exchange-utils.js';
import { requestOrigin } from './origin.js';
import { pair } from './pair.js';
import type { Answer } from './pair.js';
import { record } from './record.js';
import { ReplyFacts, metaParent, requestConventionFacts } from '../genai-conventions.js';

/** The ids of no span (no valid context): shared, never mutated. */
const NO_IDS: { readonly traceId: string | null; readonly spanId: string | null } = Object.freeze({ traceId: null, spanId: null });

export class Exchange implements ResponseTapHandlers {
  private readonly startedAt = Date.now();
  private parent: Context;
  private readonly body: RequestBodyTap;
  private calls: CallState[] | null = null;
  /** The first call per JSON-RPC id of a batch: pairing an answer stays linear in the batch size. */
  private byId: Map<string | number | null, CallState> | null = null;
  /** The request body was a JSON array (a batch). */
  private batch = false;
  /** Answers in body order (JSON), or per call from SSE frames. */
  private answers: Answer[] = [];
  private sse: SseAnswers | null = null;
  private finished = false;
  /** The valid span of `parent` (the HTTP server span), once the calls are classified; a single call is recorded on it (DESIGN §4). */
  private parentSpan: Span | null;
  /** `parentSpan`'s ids, read (and checked) once: every call of the exchange shares its trace. */
  private parentIds = NO_IDS;
  /** The span the `traceresponse` header names. */
  private traceSpan: Span | undefined;
  /** What the GenAI conventions read of the replies (opt-in only, else null). */
  private readonly facts: ReplyFacts | null;
  /** The reply target {@link replyTarget} fills. */
  private target: ReplyTarget | null = null;

  /**
   * @param errors the exchange's AapError store (the front runs the host's handler inside it)
   * @param serverSpan the active span, already checked valid by the caller, else null
   */
  constructor(
    readonly core: TriageCore,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly errors: ExchangeErrors | null,
    serverSpan: Span | null,
  ) {
    this.parent = otelContext.active();
    this.parentSpan = serverSpan;
    this.body = new RequestBodyTap(req, core.settings.maxBodyBytes);
    this.facts = core.settings.genAiConventions ? new ReplyFacts((id) => this.requestOf(this.callFor(id))) : null;
    // The exchange is the tap's handler object: no per-request closure or listener.
    tapResponse(res, core.settings.maxBodyBytes, this);
  }

  /** Classifies the request (once). */
  private ensureCalls(): CallState[] {
    if (this.calls) return this.calls;
    // Observed from a diagnostics channel, the exchange starts before the HTTP instrumentation
    // enters its server span; by the first header commit the handler runs inside it.
    if (!this.parentSpan) {
      this.parentSpan = validSpanIn(this.parent) ?? null;
      if (!this.parentSpan) {
        this.parent = otelContext.active();
        this.parentSpan = validSpanIn(this.parent) ?? null;
      }
    }
    if (this.parentSpan) {
      const sc = this.parentSpan.spanContext();
      this.parentIds = { traceId: sc.traceId, spanId: sc.spanId };
    }
    const body = this.body.body();
    this.batch = Array.isArray(body);
    const s = this.core.settings;
    const { calls, byId } = callStates(body, s.knownMethods, !this.batch && this.parentSpan !== null, s.genAiConventions ? metaParent : null);
    this.calls = calls;
    this.byId = byId;
    return calls;
  }

  /** The call's span, started (at the exchange's start) when first asked for; a single call's is the HTTP server span. */
  private spanOf(c: CallState): Span {
    c.span ??=
      c.onServerSpan && this.parentSpan
        ? adoptServerSpan(this.parentSpan, c.method, c.original, c.call?.id)
        : c.remote
          ? // MCP: the `params._meta` context is the parent, the ambient (HTTP) span a link.
            startCallSpan(this.core.tracer, c.remote, c.method, c.original, c.call?.id, this.startedAt, this.parentSpan ? [{ context: this.parentSpan.spanContext() }] : undefined)
          : startCallSpan(this.core.tracer, this.parentSpan ? this.parent : ROOT_CONTEXT, c.method, c.original, c.call?.id, this.startedAt);
    return c.span;
  }

  /** The trace id a call's answer may carry (DMC-12 `trc_…`); null past the audit cap, where no span is started. */
  private traceIdOf(c: CallState | undefined): string | null {
    if (this.parentSpan && !c?.remote) return this.parentIds.traceId;
    if (c && c.index >= this.core.settings.maxAuditedCallsPerExchange) return null;
    return spanIds(c ? this.spanOf(c) : this.traceSpan).traceId;
  }

  /** The call a reply with `id` answers: by id in a batch, the only call otherwise. */
  private callFor(id: string | number | null): CallState | undefined {
    const calls = this.ensureCalls();
    return this.byId ? this.byId.get(id) : calls[0];
  }

  /** The request call `complete` reads for a reply with `id` (the only one when a one-call batch's id does not match). */
  private requestOf(c: CallState | undefined): RequestCall | null {
    const calls = this.ensureCalls();
    return c ? c.call : calls.length === 1 ? (calls[0] as CallState).call : null;
  }

  /**
   * What completing the reply with `id` needs: its call, trace id and whether it is audited. One
   * object per exchange, filled anew for each reply (completeBody reads it before asking again):
   * a batch of 10 000 replies allocates none.
   */
  private replyTarget(id: string | number | null): ReplyTarget {
    const c = this.callFor(id);
    const t = (this.target ??= { call: null, traceId: null, audited: true });
    t.call = this.requestOf(c);
    t.traceId = this.traceIdOf(c);
    t.audited = c === undefined || c.index < this.core.settings.maxAuditedCallsPerExchange;
    return t;
  }

  /** ResponseTapHandlers: right before headers are committed: the `traceresponse` header. */
  beforeHeaders(_contentType: string): Record<string, string> | null {
    try {
      const calls = this.ensureCalls();
      if (!this.parentSpan && calls.length === 0 && this.req.method === 'POST') {
        // An unreadable body (truncated JSON, wrong Content-Type): its one answer gets this span. If
        // no JSON-RPC answer comes, the span is never ended, so never exported.
        calls.push(callState(null, 0, this.core.settings.knownMethods));
      }
      const first = calls[0];
      this.traceSpan = this.parentSpan ?? (first ? this.spanOf(first) : undefined);
      const value = traceresponseFor(this.traceSpan, this.traceSpan === this.parentSpan && this.parentSpan !== null);
      return value ? { [HEADER_TRACERESPONSE]: value } : null;
    } catch (err) {
      this.core.safe.fail('observer', err);
      return null;
    }
  }

  /** The completion settings of this exchange's endpoint. */
  private completeContext(mayRewrite: boolean): CompleteContext {
    const endpoint = this.core.forms.formFor(requestPath(this.req));
    const s = this.core.settings;
    return { store: this.errors, aapForm: endpoint.form, endpointForm: endpoint.known ? endpoint.form : null, requiredExtensionUri: s.requiredExtensionUri, traceId: null, mayRewrite, now: new Date() };
  }

  /** ResponseTapHandlers: the complete JSON body (null over the cap); returns the completed body, or null to send the host's. */
  onBody(host: Buffer | string | null, mode: 'buffer' | 'observe'): string | null {
    try {
      if (!host || host.length === 0) return null;
      // The host's own agent card says which AAP version (error form) its endpoints serve.
      if (this.req.method === 'GET' && isAgentCardPath(requestPath(this.req))) return learnCard(this.core, host);
      return completeBody(host, this.core.settings.maxBodyBytes, this.completeContext(mode === 'buffer'), (id) => this.replyTarget(id), this.answers, this.facts);
    } catch (err) {
      this.core.safe.fail('observer', err);
      return null;
    }
  }

  /** ResponseTapHandlers: one SSE chunk (classified, never rewritten). */
  onSseChunk(chunk: Buffer): void {
    try {
      this.sse ??= new SseAnswers(this.core.settings.maxBodyBytes, (item, id) => complete(item, this.requestOf(this.callFor(id)), this.completeContext(false)), this.facts);
      this.sse.push(chunk);
    } catch (err) {
      this.core.safe.fail('observer', err);
    }
  }

  /** ResponseTapHandlers: a failure inside the tap. */
  onFailure(kind: string, err: unknown): void {
    this.core.safe.fail(kind, err);
  }

  /** ResponseTapHandlers: the response is done: record every call (once). */
  onDone(): void {
    if (this.finished) return;
    this.finished = true;
    try {
      if (this.errors) releaseStore(this.errors);
      this.body.release();
      if (this.sse) this.answers = this.sse.end();
      runSinks(this.core, this.records());
    } catch (err) {
      this.core.safe.fail('observer', err);
    }
  }

  /** Pairs, then records each call; counts the errors past the audit cap. */
  private records() {
    const core = this.core;
    const calls = this.ensureCalls();
    const status = this.res.statusCode;
    const paired = pair(calls, this.answers, { status, batch: this.batch, post: this.req.method === 'POST' });
    const facts = { startedAt: this.startedAt, endedAt: Date.now(), httpStatus: status, client: clientOf(this.core, this.req), attemptHeader: headerAttempt(this.req), origin: requestOrigin(this.req.headers), seen: paired.length > 1 ? new Map() : null, conventionRequest: core.settings.genAiConventions ? requestConventionFacts(this.req.headers, this.req.httpVersion) : null };
    const records: CallRecord[] = [];
    let capped: CappedErrors | null = null;
    for (const p of paired) {
      const c = p.slot ?? callState(null, p.index, this.core.settings.knownMethods);
      const audited = p.index < core.settings.maxAuditedCallsPerExchange;
      const span = audited ? this.spanOf(c) : null;
      const ids = !audited ? NO_IDS : c.onServerSpan ? this.parentIds : spanIds(span ?? undefined);
      const r = record({ call: c.call, method: c.method, index: p.index, answer: p.answer, batchOf: p.batchOf, span, endsSpan: !c.onServerSpan, traceId: ids.traceId, spanId: ids.spanId, response: this.facts?.of(c.call) ?? null }, facts, core);
      records.push(r);
      if (!r.audited && r.errorType !== null) capped = countCapped(capped, r.endedAt);
    }
    const traceId = this.parentSpan ? this.parentIds.traceId : spanIds(this.traceSpan).traceId;
    return { records, capped, traceId };
  }
}

/**
 * Starts observing one exchange. `errors` is the exchange's AapError store; `serverSpan` the
 * active span, already checked valid by the caller (its ids are used as they are), else null.
 * Never throws.
 */
export function observeExchange(core: TriageCore, req: IncomingMessage, res: ServerResponse, errors: ExchangeErrors | null, serverSpan: Span | null = null): void {
  if (!core.active) return;
  core.safe.call('observer', () => new Exchange(core, req, res, errors, serverSpan), undefined);
}
