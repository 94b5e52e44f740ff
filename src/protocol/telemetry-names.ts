/**
 * The telemetry and header names both sides spell (DESIGN §4): span attributes, metric names
 * with their units, the metric-label allow-lists, and the HTTP headers the client sends and the
 * server answers with. They live in protocol because DESIGN §3 lets `client` import only
 * `protocol`, and a name the server emits and the client mirrors must be written once. The
 * instrumentation's `attributes.ts` re-exports these under the same export names.
 *
 * Stable names come from `@opentelemetry/semantic-conventions` (`SEMCONV_VERSION`). The two
 * JSON-RPC names still experimental in that version are copied here, as contrib's `semconv.ts`
 * files do, so an incubating-entry-point change cannot break the build; their doc text is semconv's.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  METRIC_RPC_CLIENT_CALL_DURATION,
  METRIC_RPC_SERVER_CALL_DURATION,
} from '@opentelemetry/semantic-conventions';

export { ATTR_ERROR_TYPE, ATTR_NETWORK_PROTOCOL_NAME, ATTR_NETWORK_PROTOCOL_VERSION, ATTR_NETWORK_TRANSPORT, ATTR_RPC_METHOD, ATTR_RPC_METHOD_ORIGINAL, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME };

/** The OpenTelemetry semantic-conventions version these names follow (DESIGN §4). */
export const SEMCONV_VERSION = '1.45.0' as const;

/** Schema URL of {@link SEMCONV_VERSION}, carried by the tracer, meter and logger scopes. */
export const SEMCONV_SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}` as const;

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

/**
 * `rpc.method` value for a method outside the allow-list (`KNOWN_RPC_METHODS` by default); the
 * original goes to `rpc.method_original`, span only (semconv 1.45).
 */
export const RPC_METHOD_OTHER = '_OTHER' as const;

// aap-triage's own names, under `aap.` (DESIGN §4).
/** Protocol family of the call: `aap` | `a2a` | `dmc12` | `jsonrpc`. */
export const ATTR_AAP_PROTOCOL = 'aap.protocol' as const;
/** AAP skill (`inventory.search`) or DMC-12 tool (`search_inventory`), allow-listed by `KNOWN_SKILLS` (else `_OTHER`). */
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
/** Conformance rule ids the response breaks, as a string array (span only; plural, as semconv names arrays). */
export const ATTR_AAP_CONFORMANCE_RULES = 'aap.conformance.rules' as const;

/** Value of `aap.retry.flag` for a plain retry that broke no rule. */
export const RETRY_FLAG_NONE = 'none' as const;

// Metrics (DESIGN §4): server names; the client mirrors them under `rpc.client.*` / `aap.client.*`.
/** `rpc.server.call.duration` (semconv 1.45), seconds, histogram. */
export const METRIC_RPC_SERVER_CALL_DURATION_NAME = METRIC_RPC_SERVER_CALL_DURATION;
/** Calls the server answered with an error, `{error}`. */
export const METRIC_AAP_SERVER_ERRORS = 'aap.server.errors' as const;
/** Calls recognised as retries, `{retry}`. */
export const METRIC_AAP_SERVER_RETRIES = 'aap.server.retries' as const;
/** Attempt number of each call, `{attempt}`, histogram with buckets 1..5. */
export const METRIC_AAP_SERVER_REQUEST_ATTEMPTS = 'aap.server.request.attempts' as const;
/** Error envelopes breaking a conformance rule, `{violation}`. */
export const METRIC_AAP_CONFORMANCE_VIOLATIONS = 'aap.conformance.violations' as const;
/** Audit records by outcome, `{record}`. */
export const METRIC_AAP_AUDIT_RECORDS = 'aap.audit.records' as const;
/** Audit records waiting to be written, `{record}` (an up-down counter: it rises and falls). */
export const METRIC_AAP_AUDIT_QUEUE_SIZE = 'aap.audit.queue.size' as const;
/** `rpc.client.call.duration` (semconv 1.45), seconds, histogram: one attempt as the buyer saw it. */
export const METRIC_RPC_CLIENT_CALL_DURATION_NAME = METRIC_RPC_CLIENT_CALL_DURATION;
/** Calls a dealer answered with an error, as the buyer saw them, `{error}`. */
export const METRIC_AAP_CLIENT_ERRORS = 'aap.client.errors' as const;
/** Retries the buyer sent, `{retry}`. */
export const METRIC_AAP_CLIENT_RETRIES = 'aap.client.retries' as const;

// GenAI conventions (opt-in, issue 29): open-telemetry/semantic-conventions-genai
// `docs/gen-ai/a2a.md` (A2A server span) and `docs/gen-ai/mcp.md` (MCP server span and metric),
// both Development status. Copied as strings, like the JSON-RPC names above.
/** The opt-in token of `OTEL_SEMCONV_STABILITY_OPT_IN` that turns them on. */
export const SEMCONV_OPT_IN_GEN_AI = 'gen_ai_latest_experimental' as const;
/** Logical A2A operation name (`SendMessage`, also for 0.3's `message/send`). @experimental */
export const ATTR_A2A_METHOD_NAME = 'a2a.method.name' as const;
/** `messageId` of the request's message. @experimental */
export const ATTR_A2A_MESSAGE_ID = 'a2a.message.id' as const;
/** `referenceTaskIds` of the request's message, string[]. @experimental */
export const ATTR_A2A_MESSAGE_REFERENCE_TASK_IDS = 'a2a.message.reference_task_ids' as const;
/** Task id the request or response is scoped to. @experimental */
export const ATTR_A2A_TASK_ID = 'a2a.task.id' as const;
/** Task state of the response (`TASK_STATE_*`). @experimental */
export const ATTR_A2A_TASK_STATE = 'a2a.task.state' as const;
/** The request's `tenant`. @experimental */
export const ATTR_A2A_TENANT = 'a2a.tenant' as const;
/** A2A protocol version of the call (`1.0`, `0.3`). @experimental */
export const ATTR_A2A_PROTOCOL_VERSION = 'a2a.protocol.version' as const;
/** Agent Card `name` of the local agent. @experimental */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name' as const;
/** Agent Card `description` of the local agent. @experimental */
export const ATTR_GEN_AI_AGENT_DESCRIPTION = 'gen_ai.agent.description' as const;
/** Agent Card `version` of the local agent. @experimental */
export const ATTR_GEN_AI_AGENT_VERSION = 'gen_ai.agent.version' as const;
/** A2A `contextId`. @experimental */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id' as const;
/** `execute_tool` on a `tools/call` span. @experimental */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name' as const;
/** The tool of a `tools/call`. @experimental */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name' as const;
/** MCP method (`tools/call`). @experimental */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name' as const;
/** MCP protocol version (`MCP-Protocol-Version` header, `2025-06-18`). @experimental */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version' as const;
/** MCP session (`Mcp-Session-Id` header). @experimental */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id' as const;
/** The JSON-RPC error code of the response (the MCP page's name; semconv 1.45's RPC spans say `rpc.status_code`). @experimental */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code' as const;
/** `gen_ai.operation.name` of a tool call. */
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool' as const;
/** `mcp.server.operation.duration`, seconds, histogram. @experimental */
export const METRIC_MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration' as const;

/** One metric instrument's identity: name, UCUM unit, description, optional explicit buckets. */
export interface MetricSpec {
  name: string;
  unit: string;
  description: string;
  buckets?: number[];
}

/** semconv's recommended RPC duration histogram buckets, seconds (server and client alike). */
const RPC_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Every instrument the server side creates (client side: `CLIENT_METRICS`). */
export const METRICS = {
  callDuration: {
    name: METRIC_RPC_SERVER_CALL_DURATION_NAME,
    unit: 's',
    description: 'Duration of JSON-RPC calls as the server answered them, seconds.',
    buckets: [...RPC_DURATION_BUCKETS_S],
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

/** The MCP page's instrument, created only with the GenAI opt-in (its buckets are the page's, seconds). */
export const MCP_METRICS = {
  operationDuration: {
    name: METRIC_MCP_SERVER_OPERATION_DURATION,
    unit: 's',
    description: 'MCP request duration as observed on the receiver from the time it was received until the result is sent.',
    buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
  },
} as const satisfies Record<string, MetricSpec>;

/** Every instrument the client side (`aap-triage/client`) creates: the server's, mirrored. */
export const CLIENT_METRICS = {
  callDuration: {
    name: METRIC_RPC_CLIENT_CALL_DURATION_NAME,
    unit: 's',
    description: 'Duration of JSON-RPC calls as the buyer agent saw them (one attempt), seconds.',
    buckets: [...RPC_DURATION_BUCKETS_S],
  },
  errors: {
    name: METRIC_AAP_CLIENT_ERRORS,
    unit: '{error}',
    description: 'JSON-RPC calls a dealer agent answered with an error (incl. HTTP-200 errors and DMC-12 result errors).',
  },
  retries: {
    name: METRIC_AAP_CLIENT_RETRIES,
    unit: '{retry}',
    description: 'Retries the buyer agent sent after a retryable error.',
  },
} as const satisfies Record<string, MetricSpec>;

/**
 * Server metric-label allow-lists: the only span fields copied to a metric (the undici
 * `recordRequestDuration` pattern). Never ids, clients, messages or VINs.
 */
export const METRIC_ATTRIBUTES = {
  callDuration: [ATTR_RPC_SYSTEM_NAME, ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE, ATTR_RPC_STATUS_CODE],
  errors: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE, ATTR_AAP_ERROR_CODE, ATTR_AAP_ERROR_RETRYABLE],
  retries: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_AAP_RETRY_FLAG],
  attempts: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL],
  conformance: [ATTR_AAP_PROTOCOL, ATTR_AAP_CONFORMANCE_RULE],
} as const;

/** Labels of `mcp.server.operation.duration` (opt-in): the MCP page's, less the ones we do not set (see docs/instrumentation.md). */
export const MCP_METRIC_ATTRIBUTES = [
  ATTR_MCP_METHOD_NAME,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
] as const;

/**
 * Client metric-label allow-lists. Duration and errors match the server's; a client retry is
 * labelled by the code that caused it (the client has no retry flags).
 */
export const CLIENT_METRIC_ATTRIBUTES = {
  callDuration: METRIC_ATTRIBUTES.callDuration,
  errors: METRIC_ATTRIBUTES.errors,
  retries: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_AAP_ERROR_CODE],
} as const;

// HTTP headers.
/** W3C Trace Context Level 2 response header: `00-<trace-id>-<span-id>-<flags>`. */
export const HEADER_TRACERESPONSE = 'traceresponse' as const;
/**
 * Attempt number the client sends (`aap-triage/client` sends it) and the server's retry tracker
 * reads; a positive integer, 1 for a first attempt.
 */
export const HEADER_ATTEMPT = 'aap-attempt' as const;
/** A2A extension activation header (A2A §3.3.4, AAP activation error). */
export const HEADER_A2A_EXTENSIONS = 'A2A-Extensions' as const;

/** Instrumentation scope name of the server side's tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'aap-triage' as const;
/** Instrumentation scope name of the client side's tracer, meter and logger. */
export const CLIENT_INSTRUMENTATION_SCOPE = 'aap-triage/client' as const;
