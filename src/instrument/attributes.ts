/**
 * The telemetry names the server instrumentation emits (DESIGN §4). The names themselves are
 * spelled once, in `src/protocol/telemetry-names.ts`, because the buyer-side client emits the
 * same ones and may not import this folder; this module re-exports the server's share and adds
 * the log allow-list. The "Telemetry emitted" table in docs/instrumentation.md is written from it.
 */
import { LOG_LINE_FIELDS } from '../audit/columns.js';

export {
  ATTR_AAP_AUDIT_OUTCOME,
  ATTR_AAP_CONFORMANCE_RULES,
  ATTR_AAP_CONFORMANCE_RULE,
  ATTR_AAP_ERROR_CODE,
  ATTR_AAP_ERROR_ID,
  ATTR_AAP_ERROR_RETRYABLE,
  ATTR_AAP_PROTOCOL,
  ATTR_AAP_REQUEST_ATTEMPT,
  ATTR_AAP_RETRY_FLAG,
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
  HEADER_A2A_EXTENSIONS,
  HEADER_ATTEMPT,
  HEADER_TRACERESPONSE,
  INSTRUMENTATION_SCOPE,
  METRIC_AAP_AUDIT_QUEUE_SIZE,
  METRIC_AAP_AUDIT_RECORDS,
  METRIC_AAP_CONFORMANCE_VIOLATIONS,
  METRIC_AAP_SERVER_ERRORS,
  METRIC_AAP_SERVER_REQUEST_ATTEMPTS,
  METRIC_AAP_SERVER_RETRIES,
  METRIC_ATTRIBUTES,
  METRIC_RPC_SERVER_CALL_DURATION_NAME,
  METRICS,
  RETRY_FLAG_NONE,
  RPC_METHOD_OTHER,
  RPC_SYSTEM_NAME_VALUE_JSONRPC,
  SEMCONV_SCHEMA_URL,
  SEMCONV_VERSION,
  type MetricSpec,
} from '../protocol/telemetry-names.js';

/** Log field names (pino), the allow-list of log.ts: the audit column table's `line` columns, in table order. */
export const LOG_FIELDS: readonly string[] = LOG_LINE_FIELDS;
