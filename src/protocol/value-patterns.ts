/**
 * The patterns a value from the wire must pass before it is stored or exported (DESIGN §4, §5;
 * issue 16 "Caller-controlled values"). A dealer's reply and a buyer's request are both
 * caller-influenced text: an error id, a trace id, a code, a JSON-RPC id or method may carry an
 * email, a phone or a VIN. Every checker here returns the value only when it is from a bounded
 * set or matches its pattern, else a replacement (`_OTHER`, a minted id) or null. One place, as
 * data, read by the instrumentation (spans, metrics, logs) and the audit store alike.
 */
import { A2A_ERRORS, TASK_FAILED_INFO, TASK_REJECTED_INFO } from './codes/a2a-codes.js';
import { AAP_CODES } from './codes/aap-codes.js';
import { DMC12_CODES, DMC12_JSONRPC_ERRORS } from './codes/dmc12-codes.js';
import { JSONRPC_ERRORS } from './codes/jsonrpc-codes.js';
import type { ErrorEvent, Violation } from './error-event.js';
import { mintErrorId } from './error-id.js';

/** What a value outside its bounded set becomes (semconv's `_OTHER`). */
export const VALUE_OTHER = '_OTHER';

/**
 * The id body both `err_` and `trc_` ids may have: 16–64 hex digits (a UUID without dashes, what
 * we and DMC-12 mint), a UUID with dashes, or a 26-character ULID (Crockford base32, upper case).
 * None of these alphabets holds an `@`, a `.`, a `+` or a 17-character VIN; 16+ hex digits are
 * longer than any E.164 phone number.
 */
const ID_BODY = '(?:[0-9a-fA-F]{16,64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9A-HJKMNP-TV-Z]{26})';

/** A wire `error_id` kept as it came (`err_` + {@link ID_BODY}); anything else is minted anew. */
export const SAFE_ERROR_ID = new RegExp(`^err_${ID_BODY}$`);

/** A DMC-12 `_metadata.trace_id` kept as it came (`trc_` + {@link ID_BODY}); anything else is null. */
export const SAFE_UPSTREAM_TRACE_ID = new RegExp(`^trc_${ID_BODY}$`);

/** DMC-12 legacy `error` string: a machine token (DESIGN §5 `legacy_error`). */
export const SAFE_LEGACY_ERROR = /^[a-z0-9_]{1,64}$/;

/**
 * `rpc.method_original` (span only): a method-like name, bounded in length and alphabet. An email,
 * a sentence or a path with spaces is omitted.
 */
export const SAFE_METHOD_ORIGINAL = /^[A-Za-z][A-Za-z0-9_./-]{0,63}$/;

/**
 * `jsonrpc.request.id` as a string token: at most 64 of `[A-Za-z0-9_.:-]`, and without a run of 7 or more
 * digits (a phone number). A UUID passes; an email does not.
 */
const SAFE_REQUEST_ID_TOKEN = /^[A-Za-z0-9_.:-]{1,64}$/;
const DIGIT_RUN = /\d{7}/;
/** Largest magnitude of a numeric JSON-RPC id kept: below 10^7, so it cannot be a phone number. */
const MAX_REQUEST_ID_NUMBER = 9_999_999;

/** JSON-Schema keywords (2020-12 core, applicator, validation, format, content, unevaluated; draft-07 names). */
export const JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref', '$dynamicRef', '$defs', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
  'dependentSchemas', 'prefixItems', 'items', 'additionalItems', 'contains', 'properties',
  'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedItems',
  'unevaluatedProperties', 'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum',
  'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required',
  'dependentRequired', 'dependencies', 'format', 'contentEncoding', 'contentMediaType',
  'contentSchema', 'false',
  // What the extractors write when the wire named no keyword (src/protocol/extract.ts).
  'unknown',
]);

/** Codes the parsers produce that are not in a code table (parse-response.ts, observer). */
const PARSER_CODES: readonly string[] = ['MALFORMED_ERROR_MEMBER', 'UNMAPPED_LEGACY_ERROR', TASK_FAILED_INFO.code, TASK_REJECTED_INFO.code];

/** Every code in the code tables (AAP, A2A reasons, JSON-RPC, DMC-12), plus the parsers' own. */
export const KNOWN_ERROR_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(AAP_CODES),
  ...Object.keys(A2A_ERRORS),
  ...Object.values(A2A_ERRORS).map((i) => String(i.jsonrpcCode)),
  ...Object.keys(JSONRPC_ERRORS),
  ...Object.keys(DMC12_CODES),
  ...Object.keys(DMC12_JSONRPC_ERRORS),
  ...PARSER_CODES,
]);

/** An HTTP status standing in for a missing JSON-RPC answer (`HTTP_413`). */
const HTTP_CODE = /^HTTP_[1-5]\d\d$/;
/** JSON-RPC's reserved integer range (-32768 … -32000): the spec's and servers' own codes. */
const RESERVED_JSONRPC = /^-32(?:[0-6]\d\d|7[0-5]\d|76[0-8])$/;

/** `code` when it is in the code tables, an `HTTP_nnn` stand-in or a reserved JSON-RPC code; else `_OTHER`. */
export function safeCode(code: unknown): string {
  if (typeof code !== 'string') return VALUE_OTHER;
  return KNOWN_ERROR_CODES.has(code) || HTTP_CODE.test(code) || RESERVED_JSONRPC.test(code) ? code : VALUE_OTHER;
}

/** The wire error id when it matches {@link SAFE_ERROR_ID}, else null (the caller mints one). */
export function safeErrorId(id: unknown): string | null {
  return typeof id === 'string' && SAFE_ERROR_ID.test(id) ? id : null;
}

/** The upstream trace id when it matches {@link SAFE_UPSTREAM_TRACE_ID}, else null. */
export function safeUpstreamTraceId(id: unknown): string | null {
  return typeof id === 'string' && SAFE_UPSTREAM_TRACE_ID.test(id) ? id : null;
}

/** The legacy DMC-12 `error` string when it matches {@link SAFE_LEGACY_ERROR}, else null. */
export function safeLegacyError(value: unknown): string | null {
  return typeof value === 'string' && SAFE_LEGACY_ERROR.test(value) ? value : null;
}

/** A violation keyword from {@link JSON_SCHEMA_KEYWORDS}, else `_OTHER`. */
export function safeKeyword(keyword: unknown): string {
  return typeof keyword === 'string' && JSON_SCHEMA_KEYWORDS.has(keyword) ? keyword : VALUE_OTHER;
}

/**
 * A deployed version of the dealer service as `service_version` stores it (issue 29): the
 * dealer's own value (its resource's `service.version` or the `serviceVersion` option), still
 * bounded, since it is printed in every view and compared as a release: 1–64 characters of
 * letters, digits and `. _ + - ~`, starting with a letter or digit. Covers SemVer 2.0 with
 * pre-release and build (`1.4.0-rc.1+b.7`), `v`-prefixed tags, dates (`2026.12.02`) and commit ids.
 */
export const SAFE_SERVICE_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$/;

/** A version matching {@link SAFE_SERVICE_VERSION}, else null (left out). */
export function safeServiceVersion(value: unknown): string | null {
  return typeof value === 'string' && SAFE_SERVICE_VERSION.test(value) ? value : null;
}

/** The unknown method's name for `rpc.method_original` when it matches {@link SAFE_METHOD_ORIGINAL}, else null (omitted). */
export function safeMethodOriginal(method: unknown): string | null {
  return typeof method === 'string' && SAFE_METHOD_ORIGINAL.test(method) ? method : null;
}

/**
 * The JSON-RPC id as the `jsonrpc.request.id` attribute: an integer of magnitude below 10^7, a
 * short token (see {@link SAFE_REQUEST_ID_TOKEN}), or `""` (a present, non-null id: semconv
 * leaves out only null and absent ids); anything else is null (omitted).
 */
export function safeRequestId(id: unknown): string | null {
  if (typeof id === 'number') return Number.isInteger(id) && Math.abs(id) <= MAX_REQUEST_ID_NUMBER ? String(id) : null;
  if (typeof id !== 'string') return null;
  if (id === '') return id;
  return SAFE_REQUEST_ID_TOKEN.test(id) && !DIGIT_RUN.test(id) ? id : null;
}

/** A JSON-RPC error code as stored: a 32-bit integer (the spec's type), else null. */
export function safeJsonRpcCode(code: unknown): number | null {
  return typeof code === 'number' && Number.isInteger(code) && code >= -2147483648 && code <= 2147483647 ? code : null;
}

/**
 * Checks, in place, every field of `event` that came from the wire: `error_id` (minted anew when
 * it fails: the wire id is kept nowhere), `upstream_trace_id`, `code`, `legacy_error`,
 * `jsonrpc_code` and each violation's keyword. Returns the same object. Never throws on a
 * well-typed event; pointers are the audit store's to sanitise (they need its schema names).
 */
export function checkEventValues(event: ErrorEvent): ErrorEvent {
  event.error_id = safeErrorId(event.error_id) ?? mintErrorId();
  event.upstream_trace_id = safeUpstreamTraceId(event.upstream_trace_id);
  event.code = safeCode(event.code);
  event.legacy_error = safeLegacyError(event.legacy_error);
  event.jsonrpc_code = safeJsonRpcCode(event.jsonrpc_code);
  if (Array.isArray(event.violations)) {
    event.violations = event.violations.map((v: Violation) => ({ location: typeof v?.location === 'string' ? v.location : '', keyword: safeKeyword(v?.keyword) }));
  } else {
    event.violations = [];
  }
  return event;
}

/**
 * An opaque id a caller sent for the GenAI conventions' attributes (`a2a.message.id`,
 * `a2a.task.id`, `gen_ai.conversation.id`, `mcp.session.id`, issue 29): a machine id only — an
 * optional lower-case prefix (`task-`, `ctx_`) then a dashed UUID, a ULID, or 16–64 hex digits
 * with at least one letter (so never a card or phone number). A name, email, phone, VIN or
 * sentence matches none of these (a 17-character upper-case body, a VIN's shape, never passes),
 * and `msg-user-1234` is left out too: a generic token pattern
 * cannot tell an invented id from a customer's name.
 */
export const SAFE_OPAQUE_ID = /^(?![0-9A-HJ-NPR-Z]{17}$)(?:[a-z]{1,16}[-_])?(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9A-HJKMNP-TV-Z]{26}|(?=[0-9]*[a-fA-F])[0-9a-fA-F]{16,64})$/;

/** An A2A `tenant` (`a2a.tenant`): a lower-case routing slug of at most 64 characters, no 7-digit run. */
export const SAFE_TENANT = /^[a-z][a-z0-9._-]{0,63}$/;

/** `mcp.protocol.version` values reported (the MCP revisions): an allow-list, since it is a metric label too. */
export const KNOWN_MCP_PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

/** The id when it matches {@link SAFE_OPAQUE_ID}, else null (omitted). */
export function safeOpaqueId(id: unknown): string | null {
  return typeof id === 'string' && SAFE_OPAQUE_ID.test(id) ? id : null;
}

/** The tenant when it matches {@link SAFE_TENANT} and holds no run of 7 digits, else null (omitted). */
export function safeTenant(tenant: unknown): string | null {
  return typeof tenant === 'string' && SAFE_TENANT.test(tenant) && !DIGIT_RUN.test(tenant) ? tenant : null;
}

/**
 * `a2a.task.state` values by the wire spelling a response carries them in (issue 29): the A2A 1.0
 * `TaskState` name itself (a2a.md's well-known values), or A2A 0.3's kebab-case name, whose
 * `unknown` is 1.0's `TASK_STATE_UNSPECIFIED` (as @a2a-js/sdk's 0.3 compat layer maps it).
 */
export const A2A_TASK_STATES: ReadonlyMap<string, string> = new Map(
  (
    [
      ['SUBMITTED', 'submitted'],
      ['WORKING', 'working'],
      ['INPUT_REQUIRED', 'input-required'],
      ['AUTH_REQUIRED', 'auth-required'],
      ['COMPLETED', 'completed'],
      ['CANCELED', 'canceled'],
      ['FAILED', 'failed'],
      ['REJECTED', 'rejected'],
      ['UNSPECIFIED', 'unknown'],
    ] as const
  ).flatMap(([name, v03]): [string, string][] => [
    [`TASK_STATE_${name}`, `TASK_STATE_${name}`],
    [v03, `TASK_STATE_${name}`],
  ]),
);

/** The `TASK_STATE_*` name of a wire task state in {@link A2A_TASK_STATES}, else null (omitted). */
export function safeTaskState(state: unknown): string | null {
  return typeof state === 'string' ? (A2A_TASK_STATES.get(state) ?? null) : null;
}

/** The MCP protocol version when {@link KNOWN_MCP_PROTOCOL_VERSIONS} has it, else null (omitted). */
export function safeMcpProtocolVersion(v: unknown): string | null {
  return typeof v === 'string' && KNOWN_MCP_PROTOCOL_VERSIONS.has(v) ? v : null;
}
