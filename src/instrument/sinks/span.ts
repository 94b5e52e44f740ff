/**
 * The span of one JSON-RPC call (DESIGN §4): kind SERVER, named after the allow-listed method,
 * attributes copied from an explicit allow-list of the call report, status ERROR on every error
 * (with no message: message texts never leave the host), UNSET on success. With the GenAI opt-in
 * (genai-conventions.ts) an A2A or `tools/call` span is renamed and gets that page's attributes.
 */
import { SpanKind, SpanStatusCode, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span, Tracer } from '@opentelemetry/api';
import {
  ATTR_AAP_CONFORMANCE_RULES,
  ATTR_AAP_ERROR_CODE,
  ATTR_AAP_ERROR_ID,
  ATTR_AAP_ERROR_RETRYABLE,
  ATTR_AAP_PROTOCOL,
  ATTR_AAP_REQUEST_ATTEMPT,
  ATTR_AAP_RETRY_FLAGS,
  ATTR_AAP_SKILL,
  ATTR_AAP_UPSTREAM_TRACE_ID,
  ATTR_ERROR_TYPE,
  ATTR_JSONRPC_PROTOCOL_VERSION,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  RPC_METHOD_OTHER,
  RPC_SYSTEM_NAME_VALUE_JSONRPC,
} from '../attributes.js';
import { safeRequestId } from '../../protocol/value-patterns.js';
import type { CallRecord, ExchangeRecords, TriageCore } from '../internal-types.js';

/**
 * Span name of a call: the method, or `jsonrpc` (the `rpc.system.name`) when the method is
 * `_OTHER`, as semconv 1.45 names RPC spans whose method is unknown.
 */
export function callSpanName(method: string): string {
  return method === RPC_METHOD_OTHER ? RPC_SYSTEM_NAME_VALUE_JSONRPC : method;
}

/** The attributes a call's span has from its start: system, method, protocol version, safe id. */
function callStartAttributes(method: string, methodOriginal: string | null, id: string | number | null | undefined): Attributes {
  const attributes: Attributes = {
    [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_JSONRPC,
    [ATTR_RPC_METHOD]: method,
    [ATTR_JSONRPC_PROTOCOL_VERSION]: '2.0',
  };
  if (methodOriginal !== null) attributes[ATTR_RPC_METHOD_ORIGINAL] = methodOriginal;
  // semconv: not captured when the id is null or omitted; a caller's id is kept only when it is a
  // small number or a short safe token (src/protocol/value-patterns.ts), never an email.
  const safeId = safeRequestId(id);
  if (safeId !== null) attributes[ATTR_JSONRPC_REQUEST_ID] = safeId;
  return attributes;
}

/**
 * Starts the span of one call at `startTime` (epoch ms) under `parent` (the HTTP span, if any; a
 * `tools/call`'s `params._meta` context with the GenAI opt-in, the HTTP span then in `links`).
 */
export function startCallSpan(
  tracer: Tracer,
  parent: Context,
  method: string,
  methodOriginal: string | null,
  id: string | number | null | undefined,
  startTime: number,
  links?: Link[],
): Span {
  const options = { kind: SpanKind.SERVER, attributes: callStartAttributes(method, methodOriginal, id), startTime };
  return tracer.startSpan(callSpanName(method), links ? { ...options, links } : options, parent);
}

/**
 * Makes the HTTP server span the span of the exchange's single (non-batch) call (DESIGN §4):
 * renamed like a call span, with the same start attributes. Its owner (the HTTP
 * instrumentation) ends it; {@link finishCallSpan} with `end: false` completes it first.
 */
export function adoptServerSpan(span: Span, method: string, methodOriginal: string | null, id: string | number | null | undefined): Span {
  if (span.isRecording()) span.updateName(callSpanName(method)).setAttributes(callStartAttributes(method, methodOriginal, id));
  return span;
}

/** W3C ids of a span, or nulls when its context is not valid (no SDK): never 32 zeros. */
export function spanIds(span: Span | undefined): { traceId: string | null; spanId: string | null } {
  const sc = span?.spanContext();
  if (!sc || !isSpanContextValid(sc)) return { traceId: null, spanId: null };
  return { traceId: sc.traceId, spanId: sc.spanId };
}

/** The valid span in `ctx`, if any. */
export function validSpanIn(ctx: Context): Span | undefined {
  const span = trace.getSpan(ctx);
  return span && isSpanContextValid(span.spanContext()) ? span : undefined;
}

/**
 * W3C Trace Context Level 2 `traceresponse` value for `span`, or null without a valid context.
 * `valid`: the caller already checked the span's context (the check is two regular expressions).
 */
export function traceresponseFor(span: Span | undefined, valid = false): string | null {
  const sc = span?.spanContext();
  if (!sc || (!valid && !isSpanContextValid(sc))) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Sets the call's attributes and status and ends the span at `endTime` (epoch ms); with `end`
 * false (an adopted HTTP server span, which its owner ends) it only sets them.
 */
export function finishCallSpan(span: Span, r: CallRecord, endTime: number, end = true): void {
  if (!span.isRecording()) {
    if (end) span.end(endTime);
    return;
  }
  const a: Attributes = {
    [ATTR_AAP_PROTOCOL]: r.protocol,
    [ATTR_AAP_REQUEST_ATTEMPT]: r.attempt,
  };
  if (r.skill !== null) a[ATTR_AAP_SKILL] = r.skill;
  if (r.flags.length > 0) a[ATTR_AAP_RETRY_FLAGS] = r.flags;
  const c = r.conventions;
  if (c) {
    // GenAI opt-in (issue 29): the A2A / MCP page's name and attributes, all bounded in record().
    span.updateName(c.spanName);
    Object.assign(a, c.attributes);
  }
  const e = r.event;
  if (r.errorType !== null && e) {
    // Bounded codes only (telemetry-codes.ts): `_OTHER` for a code no table knows.
    if (r.statusCode !== null) a[ATTR_RPC_STATUS_CODE] = r.statusCode;
    if (r.errorType !== null) a[ATTR_ERROR_TYPE] = r.errorType;
    if (r.errorCode !== null) a[ATTR_AAP_ERROR_CODE] = r.errorCode;
    if (r.retryable !== null) a[ATTR_AAP_ERROR_RETRYABLE] = r.retryable;
    a[ATTR_AAP_ERROR_ID] = e.error_id;
    if (e.upstream_trace_id !== null) a[ATTR_AAP_UPSTREAM_TRACE_ID] = e.upstream_trace_id;
    if (r.conformance.length > 0) a[ATTR_AAP_CONFORMANCE_RULES] = r.conformance as string[];
    span.setAttributes(a);
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setAttributes(a);
    // GenAI opt-in: an MCP tool result with `isError: true` (`error.type` `tool_error` is in the
    // conventions' attributes); mcp.md: status ERROR when `error.type` is present.
    if (c?.failed) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  if (end) span.end(endTime);
}

/** The span sink: each audited call's span gets its attributes and status, and ends (unless it is the HTTP server span). */
export function spanSink(_core: TriageCore, x: ExchangeRecords): void {
  for (const r of x.records) if (r.span) finishCallSpan(r.span, r, r.endedAt, r.endsSpan);
}
