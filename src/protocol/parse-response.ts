/**
 * Response parsers: one JSON-RPC response body (single object or batch) → one normalised outcome
 * per call. Implements issue 2 "Parsers" over the wire forms of spec/aap-errors.txt (2.0 array,
 * released object, ErrorInfo-only, A2A protocol errors, plain JSON-RPC) and spec/dmc12-errors.txt
 * (errors inside a successful `result`), plus failed tasks hidden in a success.
 */
import type { CallOutcome, ParsedError, WireForm } from './types.js';
import type { ErrorProtocol } from './error-event.js';
import {
  A2A_ERROR_DOMAIN,
  A2A_ERRORS,
  BAD_REQUEST_TYPE_URL,
  ERROR_INFO_TYPE_URL,
  TASK_FAILED_INFO,
  TASK_REJECTED_INFO,
} from './codes/a2a-codes.js';
import { AAP_ERROR_DOMAIN, AAP_ERROR_TYPE_URL, isAapCode } from './codes/aap-codes.js';
import { DMC12_CODES, dmc12CodeForLegacyError, isDmc12Code } from './codes/dmc12-codes.js';
import { lookupCode } from './codes/index.js';
import {
  type JsonObject,
  errorText,
  isObject,
  own,
  ownObject,
  ownString,
  readRetryable,
  retryAfterMs,
  violationsFromBadRequest,
  violationsFromErrors,
} from './extract.js';
import { type BodyLimits, type ParseFailure, parseFailure, readJsonBody } from './json-body.js';
import { locateAapPayload, locateDmc12Data } from './locate.js';

/** Protocol family of the call, when the caller knows it from the request (see `classifyRequest`). */
export type CallFamily = 'aap' | 'dmc12';

/** Options of `parseResponse`. */
export interface ParseResponseOptions extends BodyLimits {
  /**
   * The protocol family of the request, if known. Disambiguates bare numeric codes: on a DMC-12
   * call a server-defined code (-32000…-32099) is DMC-12's own, so `-32001` comes back as
   * `{ protocol: 'dmc12', code: '-32001' }` (the auth failure, HTTP 401; see
   * `DMC12_JSONRPC_ERRORS`), while an A2A `-32001` is TASK_NOT_FOUND.
   */
  family?: CallFamily;
}

/** Code given to a DMC-12 legacy `error` string that no table entry maps (the string itself is not a code). */
export const DMC12_UNMAPPED_LEGACY = 'UNMAPPED_LEGACY_ERROR';
/** Code given to a response whose `error` member is not an object. */
export const MALFORMED_ERROR_MEMBER = 'MALFORMED_ERROR_MEMBER';

/**
 * Parses a JSON-RPC response body into one `CallOutcome` per call, in body order.
 *
 * `body` is JSON text, UTF-8 bytes (Buffer / Uint8Array) or an already-parsed value. A batch gives
 * one outcome per element that is a response object (has own `result` or `error`); other elements
 * are skipped. Pair outcomes with calls by id using `matchBatch`, never by position.
 *
 * An outcome is `{ id, ok: true }` for success, else `{ id, ok: false, error }` where `error` is
 * the normalised `ParsedError`: AAP payload found by `@type` (unknown `@type` entries ignored),
 * released object form, ErrorInfo-only array, A2A errors, plain `{code, message}`; DMC-12 errors
 * inside `result.data`; a task whose state is failed (form `task-failed`). `retryable` is read
 * strictly and stays null when the wire lost it, except DMC-12, where the code fixes it
 * (dmc12-error.schema.json if/then).
 *
 * Never throws: unreadable bodies give `{ ok: false, parseError: { code, message } }`
 * (`ParseFailureCode`: empty, too-large, invalid-utf8, too-deep, truncated, invalid-json, not-jsonrpc).
 */
export function parseResponse(body: unknown, options: ParseResponseOptions = {}): CallOutcome[] | ParseFailure {
  const read = readJsonBody(body, options);
  if ('parseError' in read) return read;
  return outcomesFromValue(read.value, options.family);
}

/** As `parseResponse`, for a value already read by `readJsonBody`. */
export function outcomesFromValue(value: unknown, family?: CallFamily): CallOutcome[] | ParseFailure {
  try {
    if (Array.isArray(value)) {
      if (value.length === 0) return parseFailure('not-jsonrpc', 'empty batch array');
      const out: CallOutcome[] = [];
      for (const item of value) if (isResponseObject(item)) out.push(parseCall(item, family));
      if (out.length === 0) return parseFailure('not-jsonrpc', 'batch holds no JSON-RPC response objects');
      return out;
    }
    if (isResponseObject(value)) return [parseCall(value, family)];
    return parseFailure('not-jsonrpc', 'body is not a JSON-RPC response (no result or error member)');
  } catch (err) {
    return parseFailure('not-jsonrpc', `unreadable response: ${errorText(err)}`);
  }
}

/** `value` is an object with an own `result` or `error` member. */
export function isResponseObject(value: unknown): value is JsonObject {
  return isObject(value) && (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error'));
}

/** The JSON-RPC id as sent (number or string kept distinct); null when absent or of another type. */
export function readId(obj: unknown): string | number | null {
  const id = own(obj, 'id');
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** One response object → its outcome. Never throws on odd shapes. */
export function parseCall(response: JsonObject, family?: CallFamily): CallOutcome {
  const id = readId(response);
  if (Object.hasOwn(response, 'error')) {
    return { id, ok: false, error: parseErrorMember(response.error, family) };
  }
  const hidden = parseResultError(response.result);
  return hidden ? { id, ok: false, error: hidden } : { id, ok: true };
}

function base(protocol: ErrorProtocol, form: WireForm, code: string, jsonrpcCode: number | null): ParsedError {
  return {
    protocol,
    form,
    code,
    jsonrpcCode,
    retryable: null,
    errorId: null,
    retryAfterMs: null,
    violations: [],
    upstreamTraceId: null,
  };
}

function isTyped(entry: unknown, typeUrl: string): entry is JsonObject {
  const t = own(entry, '@type');
  // Accept the short google.rpc name too: some servers drop the type.googleapis.com/ prefix.
  return typeof t === 'string' && (t === typeUrl || (typeUrl.startsWith('type.googleapis.com/') && t === typeUrl.slice(20)));
}

/**
 * Normalises a JSON-RPC `error` member (any wire form). Exposed for callers that hold only the
 * member (an SDK's retained `errorResponse.error`).
 */
export function parseErrorMember(error: unknown, family?: CallFamily): ParsedError {
  if (!isObject(error)) return base('jsonrpc', 'jsonrpc', MALFORMED_ERROR_MEMBER, null);
  const rawCode = own(error, 'code');
  const jsonrpcCode = typeof rawCode === 'number' && Number.isInteger(rawCode) ? rawCode : null;
  const data = own(error, 'data');
  // A released payload that lost its `type` is still recognisable by its AAP code (locateAapPayload).
  const located = locateAapPayload(error);
  if (Array.isArray(data)) return fromDetailArray(data, located?.payload ?? null, jsonrpcCode, family);
  if (located) return fromAapPayload(located.payload, 'aap-released', jsonrpcCode);
  const dmc12 = locateDmc12Data({ error });
  if (dmc12) return fromDmc12Data(dmc12.data, null, jsonrpcCode);
  if (isObject(data)) {
    // Any other object (the DMC-12 auth failure's `{ error_id }`): its error_id is still the one to quote.
    const parsed = plain(jsonrpcCode, family);
    parsed.errorId = ownString(data, 'error_id');
    return parsed;
  }
  return plain(jsonrpcCode, family);
}

function plain(jsonrpcCode: number | null, family?: CallFamily): ParsedError {
  if (jsonrpcCode === null) return base('jsonrpc', 'jsonrpc', MALFORMED_ERROR_MEMBER, null);
  if (family === 'dmc12') {
    // Server-defined codes (-32000…-32099) on a DMC-12 call are DMC-12's own: -32001 is its auth
    // failure with HTTP 401 (dmc12-errors.txt "Auth failures are different"), not A2A's
    // TaskNotFound. Protocol dmc12 with the numeric code lets lookupCode('dmc12', code) find it.
    if (jsonrpcCode <= -32000 && jsonrpcCode >= -32099) return base('dmc12', 'jsonrpc', String(jsonrpcCode), jsonrpcCode);
  } else {
    // -32001…-32009 are A2A's.
    const a2a = jsonrpcCode <= -32001 && jsonrpcCode >= -32009 ? lookupCode('a2a', jsonrpcCode) : undefined;
    if (a2a) return base('a2a', 'a2a', a2a.code, jsonrpcCode);
  }
  return base('jsonrpc', 'jsonrpc', String(jsonrpcCode), jsonrpcCode);
}

function fromDetailArray(data: unknown[], payload: JsonObject | null, jsonrpcCode: number | null, family?: CallFamily): ParsedError {
  const infos = data.filter((e): e is JsonObject => isTyped(e, ERROR_INFO_TYPE_URL));
  // An ErrorInfo carrying an AAP code under a wrong or missing domain (a2a-protocol.org
  // included) is still the AAP code, never an A2A reason of that name.
  const aapInfo = infos.find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) ?? infos.find((i) => isAapCode(ownString(i, 'reason')));
  const badRequest = data.find((e) => isTyped(e, BAD_REQUEST_TYPE_URL));
  const brViolations = violationsFromBadRequest(own(badRequest, 'fieldViolations'));

  if (payload) {
    const parsed = fromAapPayload(payload, 'aap-2.0', jsonrpcCode);
    const meta = ownObject(aapInfo, 'metadata');
    if (parsed.retryable === null) parsed.retryable = readRetryable(own(meta, 'retryable'));
    parsed.errorId ??= ownString(meta, 'error_id');
    parsed.retryAfterMs ??= retryAfterMs(meta);
    if (parsed.violations.length === 0) parsed.violations = brViolations;
    return parsed;
  }
  if (aapInfo) {
    const meta = ownObject(aapInfo, 'metadata');
    const code = ownString(aapInfo, 'reason') ?? ownString(meta, 'code') ?? String(jsonrpcCode);
    const parsed = base('aap', 'errorinfo-only', code, jsonrpcCode);
    parsed.retryable = readRetryable(own(meta, 'retryable'));
    parsed.errorId = ownString(meta, 'error_id');
    parsed.retryAfterMs = retryAfterMs(meta);
    parsed.violations = brViolations;
    return parsed;
  }
  const a2aInfo =
    infos.find((i) => own(i, 'domain') === A2A_ERROR_DOMAIN) ??
    infos.find((i) => Object.hasOwn(A2A_ERRORS, ownString(i, 'reason') ?? ''));
  if (a2aInfo) {
    const reason = ownString(a2aInfo, 'reason');
    // A JSON-RPC standard error (-32700, -32600…-32603) that @a2a-js/sdk tags with an ErrorInfo of
    // its own (reason INVALID_PARAMS, domain a2a-protocol.org) is still that JSON-RPC error: its
    // code is the number, as for the same error without the tag, not an A2A reason outside the table.
    const standard = jsonrpcCode !== null && (jsonrpcCode === -32700 || (jsonrpcCode <= -32600 && jsonrpcCode >= -32603));
    const parsed = standard && !Object.hasOwn(A2A_ERRORS, reason ?? '') ? plain(jsonrpcCode, family) : base('a2a', 'a2a', reason ?? String(jsonrpcCode), jsonrpcCode);
    // A protocol-level error has no typed payload; ErrorInfo.metadata is an open map<string,string>
    // (the spec adds its own keys, extensionUri and requiredHeader), so an error_id a dealer puts
    // there is the one a buyer quotes.
    parsed.errorId = ownString(ownObject(a2aInfo, 'metadata'), 'error_id');
    parsed.violations = brViolations;
    return parsed;
  }
  const parsed = plain(jsonrpcCode, family);
  parsed.violations = brViolations;
  return parsed;
}

/**
 * Normalises a bare typed `aap.error` payload (released `error.data`, or the `@type`-tagged entry
 * of the 2.0 array, or an `aap.error` carried in a failed task). `jsonrpcCode` is the envelope's.
 */
export function parseAapPayload(payload: unknown, form: WireForm = 'aap-released', jsonrpcCode: number | null = null): ParsedError {
  return fromAapPayload(isObject(payload) ? payload : {}, form, jsonrpcCode);
}

function fromAapPayload(payload: JsonObject, form: WireForm, jsonrpcCode: number | null): ParsedError {
  const code = ownString(payload, 'code') ?? (jsonrpcCode !== null ? String(jsonrpcCode) : MALFORMED_ERROR_MEMBER);
  const parsed = base('aap', form, code, jsonrpcCode);
  parsed.retryable = readRetryable(own(payload, 'retryable'));
  parsed.errorId = ownString(payload, 'error_id');
  const details = own(payload, 'details');
  parsed.retryAfterMs = retryAfterMs(details);
  parsed.violations = violationsFromErrors(own(details, 'errors'));
  return parsed;
}

/**
 * Normalises a DMC-12 error object (`result.data`): `error_code` when present (form `dmc12`), else
 * the legacy `error` string mapped through the table (form `dmc12-legacy`). Retryable: the wire
 * value when it is a boolean, else the value the code fixes (a string flag is not trusted, in any
 * case); for an unknown code a "true"/"false" string in any case, else null.
 */
export function parseDmc12Data(data: unknown, metadata: unknown = null, jsonrpcCode: number | null = null): ParsedError {
  return fromDmc12Data(isObject(data) ? data : {}, metadata, jsonrpcCode);
}

function fromDmc12Data(data: JsonObject, metadata: unknown, jsonrpcCode: number | null): ParsedError {
  const errorCode = ownString(data, 'error_code');
  const legacy = ownString(data, 'error');
  const code = errorCode ?? (legacy !== null ? (dmc12CodeForLegacyError(legacy) ?? DMC12_UNMAPPED_LEGACY) : DMC12_UNMAPPED_LEGACY);
  const parsed = base('dmc12', errorCode !== null ? 'dmc12' : 'dmc12-legacy', code, jsonrpcCode);
  parsed.retryable = dmc12Retryable(own(data, 'retryable'), code);
  parsed.errorId = ownString(data, 'error_id');
  parsed.retryAfterMs = retryAfterMs(data) ?? retryAfterMs(own(data, 'details'));
  parsed.violations = violationsFromErrors(own(data, 'errors') ?? own(own(data, 'details'), 'errors'));
  parsed.upstreamTraceId = ownString(metadata, 'trace_id');
  parsed.legacyError = legacy;
  return parsed;
}

/**
 * A DMC-12 `retryable`: a boolean as sent. Anything else (absent, or a string such as "true",
 * "TRUE", "False") reads as the value the code fixes — DMC-12 fixes retryable by code, so a
 * payload from before the taxonomy, or one that quoted the flag, still has one known value,
 * whatever the string's case. For an unknown code, a string is read case-insensitively; else null.
 */
function dmc12Retryable(wire: unknown, code: string): boolean | null {
  if (typeof wire === 'boolean') return wire;
  if (isDmc12Code(code)) return DMC12_CODES[code].retryable;
  return typeof wire === 'string' ? readRetryable(wire.trim().toLowerCase()) : null;
}

/**
 * Task states that end a call in failure, A2A 1.0 enum names then 0.3's, each with the code
 * `parseResponse` gives it (`TASK_FAILED`, `TASK_REJECTED`). The instrumentation's quick "can this
 * body hold an error?" test looks for these same strings.
 */
export const TASK_FAILURE_STATES: ReadonlyMap<string, string> = new Map([
  ['TASK_STATE_FAILED', TASK_FAILED_INFO.code],
  ['failed', TASK_FAILED_INFO.code],
  ['TASK_STATE_REJECTED', TASK_REJECTED_INFO.code],
  ['rejected', TASK_REJECTED_INFO.code],
]);

/**
 * Errors hidden in a successful `result`: a DMC-12 error object in `result.data`, or a task whose
 * state is failed or rejected (form `task-failed`, code `TASK_FAILED` / `TASK_REJECTED`, or the
 * code of an `aap.error` the task carries). Returns null for a genuine success.
 */
export function parseResultError(result: unknown): ParsedError | null {
  if (!isObject(result)) return null;
  const dmc12 = locateDmc12Data({ result });
  if (dmc12) return fromDmc12Data(dmc12.data, own(result, '_metadata'), null);
  // A2A 1.0 wraps the task (`result.task`), 0.3 returns it bare (`kind: "task"`); streaming sends
  // status updates.
  const task = ownObject(result, 'task') ?? ownObject(result, 'statusUpdate') ?? (own(result, 'status') ? result : null);
  const status = ownObject(task, 'status');
  const state = ownString(status, 'state');
  const code = state === null ? undefined : TASK_FAILURE_STATES.get(state);
  if (code === undefined) return null;
  const payload = findAapPayloadInTask(task!);
  if (payload) return fromAapPayload(payload, 'task-failed', null);
  return base('a2a', 'task-failed', code, null);
}

function findAapPayloadInTask(task: JsonObject): JsonObject | null {
  const partLists: unknown[] = [own(ownObject(ownObject(task, 'status'), 'message'), 'parts')];
  const artifacts = own(task, 'artifacts');
  if (Array.isArray(artifacts)) for (const a of artifacts.slice(0, 100)) partLists.push(own(a, 'parts'));
  for (const parts of partLists) {
    if (!Array.isArray(parts)) continue;
    for (const part of parts.slice(0, 100)) {
      const d = own(part, 'data');
      if (isObject(d) && (isTyped(d, AAP_ERROR_TYPE_URL) || ownString(d, 'type') === 'aap.error')) return d;
    }
  }
  return null;
}
