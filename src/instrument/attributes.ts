/**
 * Every telemetry name aap-triage emits: span attributes, metric names and units, metric
 * attribute allow-lists, HTTP header names (DESIGN §4). The only file that spells them; the
 * "Telemetry emitted" table in docs/instrumentation.md is written from it.
 *
 * Stable names come from `@opentelemetry/semantic-conventions` (1.45). The two JSON-RPC names
 * that are still experimental in 1.45 are copied here, as contrib's `semconv.ts` files do, so
 * an incubating-entry-point change cannot break the build; their doc text is semconv's.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  METRIC_RPC_SERVER_CALL_DURATION,
} from '@opentelemetry/semantic-conventions';

export { ATTR_ERROR_TYPE, ATTR_RPC_METHOD, ATTR_RPC_METHOD_ORIGINAL, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME };

/**
 * A string representation of the `id` property of the request and its corresponding response.
 * Not captured when the id is null or omitted.
 * @experimental semconv 1.45 `jsonrpc.request.id`
 */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id' as const;

/**
 * Protocol version, as specified in the `jsonrpc` property of the request and its response.
 * @experimental semconv 1.45 `jsonrpc.protocol.version`
 */
export const ATTR_JSONRPC_PROTOCOL_VERSION = 'jsonrpc.protocol.version' as const;

/** `rpc.system.name` value for JSON-RPC (semconv 1.45). */
export const RPC_SYSTEM_NAME_VALUE_JSONRPC = 'jsonrpc' as const;

/** `rpc.method` value for a method outside the allow-list (the original goes to `rpc.method_original`, span only). */
export const RPC_METHOD_OTHER = '_OTHER' as const;

// aap-triage's own names, under `aap.` (DESIGN §4).
/** Protocol family of the call: `aap` | `a2a` | `dmc12` | `jsonrpc`. */
export const ATTR_AAP_PROTOCOL = 'aap.protocol' as const;
/** AAP skill (`inventory.search`) or DMC-12 tool (`search_inventory`). */
export const ATTR_AAP_SKILL = 'aap.skill' as const;
/** Domain error code (AAP / DMC-12 code, A2A reason, or JSON-RPC code as a string). */
export const ATTR_AAP_ERROR_CODE = 'aap.error.code' as const;
/** `retryable` as the wire said it (absent when unknown). */
export const ATTR_AAP_ERROR_RETRYABLE = 'aap.error.retryable' as const;
/** The `error_id` the caller holds (span only, never a metric label). */
export const ATTR_AAP_ERROR_ID = 'aap.error.id' as const;
/** Attempt number of this call, 1 for a first attempt (span only). */
export const ATTR_AAP_REQUEST_ATTEMPT = 'aap.request.attempt' as const;
/** DMC-12 `result._metadata.trace_id` (`trc_…`), span only. */
export const ATTR_AAP_UPSTREAM_TRACE_ID = 'aap.upstream_trace_id' as const;
/** Retry flag (metric label on `aap.server.retries`). */
export const ATTR_AAP_RETRY_FLAG = 'aap.retry.flag' as const;
/** Conformance rule id (metric label on `aap.conformance.violations`). */
export const ATTR_AAP_CONFORMANCE_RULE = 'aap.conformance.rule' as const;
/** Audit record outcome (`written` | `dropped` | `failed`) on `aap.audit.records`. */
export const ATTR_AAP_AUDIT_OUTCOME = 'aap.audit.outcome' as const;
/** Retry flags of the call, as a string array (span only). */
export const ATTR_AAP_RETRY_FLAGS = 'aap.retry.flags' as const;
/** Conformance rule ids the response breaks, as a string array (span only). */
export const ATTR_AAP_CONFORMANCE = 'aap.conformance' as const;

/** Value of `aap.retry.flag` for a plain retry that broke no rule. */
export const RETRY_FLAG_NONE = 'none' as const;

// Metrics (DESIGN §4). Names, units and descriptions; instruments are created in metrics.ts.
export const METRIC_RPC_SERVER_CALL_DURATION_NAME = METRIC_RPC_SERVER_CALL_DURATION;
export const METRIC_AAP_SERVER_ERRORS = 'aap.server.errors' as const;
export const METRIC_AAP_SERVER_RETRIES = 'aap.server.retries' as const;
export const METRIC_AAP_SERVER_REQUEST_ATTEMPTS = 'aap.server.request.attempts' as const;
export const METRIC_AAP_CONFORMANCE_VIOLATIONS = 'aap.conformance.violations' as const;
export const METRIC_AAP_AUDIT_RECORDS = 'aap.audit.records' as const;
export const METRIC_AAP_AUDIT_QUEUE_SIZE = 'aap.audit.queue.size' as const;

/** One metric instrument's identity: name, UCUM unit, description, optional explicit buckets. */
export interface MetricSpec {
  name: string;
  unit: string;
  description: string;
  buckets?: number[];
}

/** Every instrument the server side creates (client side mirrors these under `rpc.client.*` / `aap.client.*`). */
export const METRICS = {
  callDuration: {
    name: METRIC_RPC_SERVER_CALL_DURATION_NAME,
    unit: 's',
    description: 'Duration of JSON-RPC calls as the server answered them, seconds.',
    // semconv's recommended RPC duration buckets, seconds.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  },
  errors: {
    name: METRIC_AAP_SERVER_ERRORS,
    unit: '{error}',
    description: 'JSON-RPC calls answered with an error (incl. HTTP-200 errors, DMC-12 result errors, failed tasks).',
  },
  retries: {
    name: METRIC_AAP_SERVER_RETRIES,
    unit: '{retry}',
    description: 'Calls recognised as retries of an earlier call, by retry flag.',
  },
  attempts: {
    name: METRIC_AAP_SERVER_REQUEST_ATTEMPTS,
    unit: '{attempt}',
    description: 'Attempt number of each call (1 = first attempt).',
    buckets: [1, 2, 3, 4, 5],
  },
  conformance: {
    name: METRIC_AAP_CONFORMANCE_VIOLATIONS,
    unit: '{violation}',
    description: 'Error envelopes breaking a spec rule, by rule id.',
  },
  auditRecords: {
    name: METRIC_AAP_AUDIT_RECORDS,
    unit: '{record}',
    description: 'Audit records by outcome: written, dropped (queue full) or failed (write error).',
  },
  auditQueue: {
    name: METRIC_AAP_AUDIT_QUEUE_SIZE,
    unit: '{record}',
    description: 'Audit records waiting to be written.',
  },
} as const satisfies Record<string, MetricSpec>;

/**
 * Metric attribute allow-lists: the only span fields copied to a metric (the undici
 * `recordRequestDuration` pattern). Never ids, clients, messages or VINs.
 */
export const METRIC_ATTRIBUTES = {
  callDuration: [ATTR_RPC_SYSTEM_NAME, ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE],
  errors: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE, ATTR_AAP_ERROR_CODE, ATTR_AAP_ERROR_RETRYABLE],
  retries: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_AAP_RETRY_FLAG],
  attempts: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL],
  conformance: [ATTR_AAP_PROTOCOL, ATTR_AAP_CONFORMANCE_RULE],
} as const;

// HTTP headers.
/** W3C Trace Context Level 2 response header: `00-<trace-id>-<span-id>-<flags>`. */
export const HEADER_TRACERESPONSE = 'traceresponse' as const;
/** Attempt number a client sends (`aap-triage/client` sends it); a positive integer. */
export const HEADER_ATTEMPT = 'aap-attempt' as const;
/** A2A extension activation header (A2A §3.3.4, AAP activation error). */
export const HEADER_A2A_EXTENSIONS = 'A2A-Extensions' as const;

/** Instrumentation scope name handed to the tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'aap-triage' as const;

/** Log field names (pino), the allow-list of log.ts. */
export const LOG_FIELDS = [
  'error_id',
  'trace_id',
  'span_id',
  'code',
  'retryable',
  'skill',
  'method',
  'attempt',
  'retry_flags',
] as const;
