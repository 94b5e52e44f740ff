/**
 * Client-side spans, metrics and the give-up log line (DESIGN §4, mirrored under `rpc.client.*` /
 * `aap.client.*`). Every metric label is copied from an allow-list (`CLIENT_METRIC_ATTRIBUTES`);
 * ids go on spans and the log line only; no message text and no request value anywhere.
 * Internal: `createAapFetch` and `withRetries` build one each.
 */
import { INVALID_SPAN_CONTEXT, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Counter, Histogram, Span, Tracer } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import type * as PinoModule from 'pino';
import type { Logger } from 'pino';
import {
  allowListedSkill,
  ATTR_AAP_ERROR_CODE,
  ATTR_AAP_ERROR_ID,
  ATTR_AAP_ERROR_RETRYABLE,
  ATTR_AAP_PROTOCOL,
  ATTR_AAP_REQUEST_ATTEMPT,
  ATTR_AAP_SKILL,
  ATTR_AAP_UPSTREAM_TRACE_ID,
  ATTR_ERROR_TYPE,
  ATTR_JSONRPC_PROTOCOL_VERSION,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  CLIENT_INSTRUMENTATION_SCOPE,
  CLIENT_METRIC_ATTRIBUTES,
  CLIENT_METRICS,
  KNOWN_RPC_METHODS,
  KNOWN_SKILLS,
  RPC_METHOD_OTHER,
  RPC_SYSTEM_NAME_VALUE_JSONRPC,
} from '../protocol/index.js';
import { safeCode, safeErrorId, safeJsonRpcCode, safeMethodOriginal, safeRequestId, safeUpstreamTraceId } from '../protocol/value-patterns.js';
import type { DealerAgentError } from './dealer-error.js';
import type { CallInfo } from './request-info.js';
import type { StopReason } from './attempt.js';
import type { ClientTelemetryOptions } from './types.js';

/** Instruments and logger of one adapter instance. */
export interface ClientTelemetry {
  tracer: Tracer;
  duration: Histogram;
  errors: Counter;
  retries: Counter;
  logger: Logger | null;
  /** Skill and tool names reported by name in `aap.skill`; any other is `_OTHER`. */
  knownSkills: ReadonlySet<string>;
}

const DEFAULT_KNOWN_SKILLS: ReadonlySet<string> = new Set(KNOWN_SKILLS);
/** `rpc.method` allow-list: protocol's, the same list the server side reports by name. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(KNOWN_RPC_METHODS);

/** The `knownSkills` option as a set. @throws TypeError when it is not an array of strings. */
function knownSkillsOption(value: unknown): ReadonlySet<string> {
  if (value === undefined) return DEFAULT_KNOWN_SKILLS;
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) {
    throw new TypeError('aap-triage/client: option "knownSkills" must be an array of strings');
  }
  return new Set(value as string[]);
}

let defaultLogger: Logger | undefined;

function getDefaultLogger(): Logger {
  // One stderr logger per process: a library must not write to the host's stdout. pino is
  // loaded here, not at import (issue 13); it is CommonJS, so `require` is synchronous.
  if (!defaultLogger) {
    const { pino } = createRequire(import.meta.url)('pino') as typeof PinoModule;
    defaultLogger = pino({ name: CLIENT_INSTRUMENTATION_SCOPE, level: 'warn' }, pino.destination(2));
  }
  return defaultLogger;
}

/**
 * Creates the tracer, instruments and logger from the options (global providers by default).
 * @throws TypeError when `knownSkills` is not an array of strings.
 */
export function createClientTelemetry(options: ClientTelemetryOptions = {}): ClientTelemetry {
  const knownSkills = knownSkillsOption(options.knownSkills);
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
  const meter = meterProvider.getMeter(CLIENT_INSTRUMENTATION_SCOPE);
  const m = CLIENT_METRICS;
  return {
    tracer: tracerProvider.getTracer(CLIENT_INSTRUMENTATION_SCOPE),
    duration: meter.createHistogram(m.callDuration.name, {
      unit: m.callDuration.unit,
      description: m.callDuration.description,
      advice: { explicitBucketBoundaries: [...m.callDuration.buckets] },
    }),
    errors: meter.createCounter(m.errors.name, { unit: m.errors.unit, description: m.errors.description }),
    retries: meter.createCounter(m.retries.name, { unit: m.retries.unit, description: m.retries.description }),
    logger: options.logger === false ? null : (options.logger ?? getDefaultLogger()),
    knownSkills,
  };
}

function pick(attributes: Attributes, allow: readonly string[]): Attributes {
  const out: Attributes = {};
  for (const key of allow) {
    const v = attributes[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/**
 * Span attributes known before the response: system, method (allow-listed), id, skill
 * (allow-listed by `knownSkills`: a caller can name any tool, and `aap.skill` is a metric label,
 * so an unknown name is `_OTHER` on the span and the metrics alike, as on the server side),
 * attempt.
 */
export function requestAttributes(call: CallInfo | undefined, attempt: number | null, knownSkills: ReadonlySet<string>): Attributes {
  const attrs: Attributes = {
    [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_JSONRPC,
    [ATTR_JSONRPC_PROTOCOL_VERSION]: '2.0',
  };
  const method = call?.method ?? null;
  if (method !== null && KNOWN_METHODS.has(method)) {
    attrs[ATTR_RPC_METHOD] = method;
  } else {
    attrs[ATTR_RPC_METHOD] = RPC_METHOD_OTHER;
    const original = safeMethodOriginal(method);
    if (original !== null) attrs[ATTR_RPC_METHOD_ORIGINAL] = original;
  }
  // Only small numbers and short safe tokens (src/protocol/value-patterns.ts), never an email.
  const id = safeRequestId(call?.id);
  if (id !== null) attrs[ATTR_JSONRPC_REQUEST_ID] = id;
  const skill = call?.skill ? allowListedSkill(call.skill, knownSkills) : null;
  if (skill !== null) attrs[ATTR_AAP_SKILL] = skill;
  if (attempt !== null) attrs[ATTR_AAP_REQUEST_ATTEMPT] = attempt;
  return attrs;
}

/**
 * Starts the CLIENT span of one call, named after the allow-listed `rpc.method`. A tracer that
 * throws yields a non-recording span instead (the request must go out regardless).
 */
export function startCallSpan(t: ClientTelemetry, attrs: Attributes): Span {
  try {
    return t.tracer.startSpan(String(attrs[ATTR_RPC_METHOD]), { kind: SpanKind.CLIENT, attributes: attrs });
  } catch {
    return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  }
}

/** Error attributes of a dealer error, as the server side sets them (DESIGN §4). */
export function errorAttributes(error: DealerAgentError): Attributes {
  // A dealer's reply is caller-influenced text: each value passes its pattern or is left out.
  const code = safeCode(error.code);
  const attrs: Attributes = {
    [ATTR_AAP_PROTOCOL]: error.protocol,
    [ATTR_ERROR_TYPE]: code,
    [ATTR_AAP_ERROR_CODE]: code,
  };
  const jsonrpcCode = safeJsonRpcCode(error.jsonrpcCode);
  if (jsonrpcCode !== null) attrs[ATTR_RPC_STATUS_CODE] = String(jsonrpcCode);
  if (error.retryable !== null) attrs[ATTR_AAP_ERROR_RETRYABLE] = error.retryable;
  const errorId = safeErrorId(error.errorId);
  if (errorId !== null) attrs[ATTR_AAP_ERROR_ID] = errorId;
  const upstream = safeUpstreamTraceId(error.upstreamTraceId);
  if (upstream !== null) attrs[ATTR_AAP_UPSTREAM_TRACE_ID] = upstream;
  return attrs;
}

/**
 * Ends a call span and records its duration (seconds) and, on error, one `aap.client.errors`.
 * `failure` is a dealer error, a transport-level error type string (`fetch_failed`, `http_502`),
 * or null for success.
 */
export function endCall(
  t: ClientTelemetry,
  span: Span,
  attrs: Attributes,
  durationMs: number,
  failure: DealerAgentError | string | null,
): void {
  try {
    recordEnd(t, span, attrs, durationMs, failure);
  } catch {
    // A broken span or meter must not turn into an error for the caller.
  }
}

function recordEnd(
  t: ClientTelemetry,
  span: Span,
  attrs: Attributes,
  durationMs: number,
  failure: DealerAgentError | string | null,
): void {
  const all: Attributes = { ...attrs };
  if (failure === null) {
    span.setStatus({ code: SpanStatusCode.UNSET });
  } else if (typeof failure === 'string') {
    all[ATTR_ERROR_TYPE] = failure;
    span.setAttribute(ATTR_ERROR_TYPE, failure);
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    Object.assign(all, errorAttributes(failure));
    span.setAttributes(errorAttributes(failure));
    span.setStatus({ code: SpanStatusCode.ERROR, message: safeCode(failure.code) });
    t.errors.add(1, pick(all, CLIENT_METRIC_ATTRIBUTES.errors));
  }
  span.end();
  t.duration.record(durationMs / 1000, pick(all, CLIENT_METRIC_ATTRIBUTES.callDuration));
}

/** Counts one retry about to be sent after `error`. */
export function countRetry(t: ClientTelemetry, error: DealerAgentError | null): void {
  const attrs: Attributes = {};
  if (error !== null) {
    Object.assign(attrs, requestAttributes({ id: null, method: error.rpcMethod, skill: error.skill }, null, t.knownSkills));
    attrs[ATTR_AAP_PROTOCOL] = error.protocol;
    attrs[ATTR_AAP_ERROR_CODE] = safeCode(error.code);
  }
  try {
    t.retries.add(1, pick(attrs, CLIENT_METRIC_ATTRIBUTES.retries));
  } catch {
    // Same as endCall: telemetry never changes the retry loop.
  }
}

/**
 * The one log line per given-up call, at warn: codes, counts and ids only (allow-listed fields;
 * never the dealer's message, which may echo request values, and never a request value).
 */
export function logGiveUp(t: ClientTelemetry, error: DealerAgentError, reason: StopReason): void {
  if (t.logger === null) return;
  try {
    t.logger.warn(
      {
        event: 'aap.client.gave_up',
        code: safeCode(error.code),
        protocol: error.protocol,
        jsonrpc_code: safeJsonRpcCode(error.jsonrpcCode),
        retryable: error.retryable,
        method: error.rpcMethod,
        skill: error.skill,
        attempts: error.attempts.length,
        stop_reason: reason,
        error_ids: error.attempts.map((a) => safeErrorId(a.errorId)),
        trace_ids: error.attempts.map((a) => a.traceId),
      },
      'dealer agent call given up',
    );
  } catch {
    // A broken log destination must not turn into a different error for the caller.
  }
}
