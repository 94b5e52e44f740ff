/**
 * Telemetry names and header names the client side emits (DESIGN §4: the client mirrors the
 * server's names under `rpc.client.*` / `aap.client.*`).
 *
 * Why a copy: `src/instrument/attributes.ts` is the one file that spells the server's names, but
 * DESIGN §3 lets `client` import only `protocol`. Until those shared names move to a
 * protocol-level module (requested of the lead: `src/protocol/telemetry-names.ts` and
 * `src/protocol/headers.ts`), the few the client needs are copied here with the same values; a
 * test in `test/client/telemetry.test.ts` pins them so they cannot drift silently.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  METRIC_RPC_CLIENT_CALL_DURATION,
} from '@opentelemetry/semantic-conventions';

export { ATTR_ERROR_TYPE, ATTR_RPC_METHOD, ATTR_RPC_METHOD_ORIGINAL, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME };

/** @experimental semconv 1.45 `jsonrpc.request.id` (string form of the request id). */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id' as const;
/** @experimental semconv 1.45 `jsonrpc.protocol.version`. */
export const ATTR_JSONRPC_PROTOCOL_VERSION = 'jsonrpc.protocol.version' as const;
/** `rpc.system.name` value for JSON-RPC. */
export const RPC_SYSTEM_NAME_VALUE_JSONRPC = 'jsonrpc' as const;
/** `rpc.method` value for a method outside the allow-list. */
export const RPC_METHOD_OTHER = '_OTHER' as const;

// aap-triage's own names (same values as src/instrument/attributes.ts).
export const ATTR_AAP_PROTOCOL = 'aap.protocol' as const;
export const ATTR_AAP_SKILL = 'aap.skill' as const;
export const ATTR_AAP_ERROR_CODE = 'aap.error.code' as const;
export const ATTR_AAP_ERROR_RETRYABLE = 'aap.error.retryable' as const;
export const ATTR_AAP_ERROR_ID = 'aap.error.id' as const;
export const ATTR_AAP_REQUEST_ATTEMPT = 'aap.request.attempt' as const;
export const ATTR_AAP_UPSTREAM_TRACE_ID = 'aap.upstream_trace_id' as const;
/** Client-only: why the retry loop stopped (`max-attempts`, `budget-exhausted`, …); span event only. */
export const ATTR_AAP_RETRY_STOP_REASON = 'aap.retry.stop_reason' as const;

/**
 * JSON-RPC methods that become `rpc.method` as they are; anything else is `_OTHER` (the
 * original stays on the span as `rpc.method_original`). A2A v1.0 methods plus DMC-12/MCP's.
 */
export const KNOWN_RPC_METHODS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'ListTasks',
  'SubscribeToTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'tools/call',
  'tools/list',
  'initialize',
]);

/** Metric names, units, descriptions and buckets of the client side. */
export const CLIENT_METRICS = {
  callDuration: {
    name: METRIC_RPC_CLIENT_CALL_DURATION,
    unit: 's',
    description: 'Duration of JSON-RPC calls as the buyer agent saw them (one attempt), seconds.',
    // semconv's recommended RPC duration buckets, seconds (same as the server side).
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  },
  errors: {
    name: 'aap.client.errors',
    unit: '{error}',
    description: 'JSON-RPC calls a dealer agent answered with an error (incl. HTTP-200 errors and DMC-12 result errors).',
  },
  retries: {
    name: 'aap.client.retries',
    unit: '{retry}',
    description: 'Retries the buyer agent sent after a retryable error.',
  },
} as const;

/** Metric attribute allow-lists: nothing else becomes a label (never ids, messages or values). */
export const CLIENT_METRIC_ATTRIBUTES = {
  callDuration: [ATTR_RPC_SYSTEM_NAME, ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE],
  errors: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_ERROR_TYPE, ATTR_AAP_ERROR_CODE, ATTR_AAP_ERROR_RETRYABLE],
  retries: [ATTR_RPC_METHOD, ATTR_AAP_PROTOCOL, ATTR_AAP_SKILL, ATTR_AAP_ERROR_CODE],
} as const;

/** W3C Trace Context Level 2 response header: `00-<trace-id>-<span-id>-<flags>`. */
export const HEADER_TRACERESPONSE = 'traceresponse' as const;
/**
 * Attempt number the client sends; the server's retry tracker reads it (same value as
 * `HEADER_ATTEMPT` in src/instrument/attributes.ts). A positive integer, 1 for a first attempt.
 */
export const HEADER_ATTEMPT = 'aap-attempt' as const;

/** Instrumentation scope of the client's tracer, meter and logger. */
export const CLIENT_INSTRUMENTATION_SCOPE = 'aap-triage/client' as const;
