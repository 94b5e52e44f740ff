/**
 * The protocol functions and names the client uses, in one place (DESIGN §3: `client` imports
 * only `protocol`). Request classification, batch pairing and envelope parsing are all protocol's;
 * the client never interprets an envelope itself. Telemetry and header names are protocol's too,
 * shared with the server side (`src/protocol/telemetry-names.ts`), so the two cannot drift.
 */
export {
  allowListedSkill,
  BACKOFF_BASE_MS,
  BACKOFF_JITTER_TOLERANCE,
  BACKOFF_MULTIPLIER,
  classifyRequest,
  DEFAULT_MAX_BYTES,
  isParseFailure,
  KNOWN_RPC_METHODS,
  KNOWN_SKILLS,
  matchBatch,
  parseResponse,
  readJsonBody,
} from '../protocol/index.js';
export type { CallOutcome, ParseFailure, RequestCall } from '../protocol/index.js';
export {
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
  HEADER_ATTEMPT,
  HEADER_TRACERESPONSE,
  RPC_METHOD_OTHER,
  RPC_SYSTEM_NAME_VALUE_JSONRPC,
} from '../protocol/index.js';
