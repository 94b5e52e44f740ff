/**
 * `aap-triage/protocol`: the protocol knowledge every other part reads. Code tables as data,
 * envelope builders and parsers for each wire form, the conformance checker, and the names and
 * retry numbers both the server side and the client share. No I/O.
 */
import { loadIdRandomness } from './error-id.js';

export type { ErrorEvent, ErrorProtocol, EventOrigin, RetryFlag, TrafficSample, Violation } from './error-event.js';
export { PROBE_PRODUCT, RETRY_FLAGS } from './error-event.js';
export type { A2AErrorInfo, AapCodeInfo, CallOutcome, CodeInfo, Dmc12CodeInfo, ParsedError, WireForm } from './types.js';
export * from './codes/index.js';
export { ERROR_ID_PATTERN, mintErrorId } from './error-id.js';
// error-id.ts takes node:crypto on the first id; taken with this entry, a host's first error
// does not pay for loading it (issue 31 "Start-up").
loadIdRandomness();
export {
  A2A_RPC_METHODS,
  AAP_SKILLS,
  DMC12_RPC_METHODS,
  DMC12_TOOLS,
  KNOWN_RPC_METHODS,
  KNOWN_SKILLS,
  SKILL_OTHER,
  allowListedSkill,
  type AapSkill,
  type Dmc12Tool,
} from './skills.js';
export * from './telemetry-names.js';
export {
  BACKOFF,
  BACKOFF_BASE_MS,
  BACKOFF_JITTER_FLOOR,
  BACKOFF_MAX_MS,
  BACKOFF_MULTIPLIER,
  MAX_ATTEMPTS_CAP,
  RETRY_WINDOW_MS,
  backoffCeilingMs,
  backoffFloorMs,
} from './retry.js';
export type { BackoffShape } from './retry.js';
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  decodeBody,
  isParseFailure,
  readJsonBody,
  type BodyLimits,
  type ParseFailure,
  type ParseFailureCode,
} from './json-body.js';
export { readRetryable, retryAfterMs, violationsFromBadRequest, violationsFromErrors } from './extract.js';
export {
  DMC12_UNMAPPED_LEGACY,
  MALFORMED_ERROR_MEMBER,
  parseAapPayload,
  parseCall,
  parseDmc12Data,
  parseErrorMember,
  parseResponse,
  parseResultError,
  TASK_FAILURE_STATES,
  type CallFamily,
  type ParseResponseOptions,
} from './parse-response.js';
export { locateAapPayload, locateDmc12Data, type LocatedAapPayload, type LocatedDmc12Data } from './locate.js';
export { parseSseResponse, SseReader, DEFAULT_MAX_SSE_EVENT_CHARS, type ParseSseOptions, type SseEvent } from './parse-sse.js';
export {
  A2A_METHODS,
  classifyCall,
  classifyRequest,
  matchBatch,
  type BatchMatch,
  type MatchedCall,
  type RequestCall,
} from './parse-request.js';
export {
  buildAapError,
  type AapErrorMember,
  type AapForm,
  type AapValidationError,
  type BuildAapErrorOptions,
} from './builders/aap.js';
export {
  buildA2AError,
  buildExtensionRequiredError,
  type A2AErrorMember,
  type BuildA2AErrorOptions,
  type BuildExtensionRequiredOptions,
} from './builders/a2a.js';
export { buildDmc12Error, type BuildDmc12ErrorOptions, type Dmc12ErrorResult } from './builders/dmc12.js';
export { buildJsonRpcError, errorResponse, successResponse, type JsonRpcErrorMember } from './builders/jsonrpc.js';
export { containsDraftIdentifier, containsStackTrace, isRfc3339, stripStackTrace, toCreatedAt } from './builders/common.js';
export { AapError, isAapError, toAapErrorMember, type AapErrorOptions } from './aap-error.js';
export * from './value-patterns.js';
export {
  CONFORMANCE_RULES,
  checkConformance,
  conformanceRuleIds,
  type CallView,
  type CheckConformanceOptions,
  type ConformanceLevel,
  type ConformanceRule,
  type ConformanceViolation,
} from './conformance.js';
export type { CallContext } from './conformance-view.js';
export {
  AAP_ERROR_2_0_SCHEMA,
  AAP_ERROR_DATA_2_0_SCHEMA,
  AAP_ERROR_RELEASED_SCHEMA,
  BAD_REQUEST_SCHEMA,
  ERROR_INFO_SCHEMA,
} from './schemas.js';
