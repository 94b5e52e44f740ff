import type { CodeInfo, Dmc12CodeInfo } from '../types.js';

/** The 21 DMC-12 `error_code`s (spec/dmc12-errors.txt "The full code set (21)"). */
export type Dmc12Code =
  | 'VEHICLE_NOT_FOUND'
  | 'VEHICLE_UNAVAILABLE'
  | 'QUOTE_NOT_FOUND'
  | 'QUOTE_EXPIRED'
  | 'QUOTE_STATE'
  | 'RESERVATION_NOT_FOUND'
  | 'RESERVATION_EXPIRED'
  | 'RESERVATION_STATE'
  | 'RESERVATION_CONFLICT'
  | 'RESERVATION_LIMIT'
  | 'OFFER_NOT_FOUND'
  | 'OFFER_EXPIRED'
  | 'OFFER_STATE'
  | 'CONSENT_REQUIRED'
  | 'CONSENT_INVALID'
  | 'NOT_AUTHORIZED'
  | 'VALIDATION_FAILED'
  | 'RATE_LIMITED'
  | 'NOT_CONFIGURED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'INTERNAL_ERROR';

const SET = 'DMC-12 "Error taxonomy" page, "The full code set (21)"';
const BRANCH = 'DMC-12 "Error taxonomy" page, "Recommended client branching"';
const SURFACE = 'Surface to the operator with error_id + trace_id; do not retry as-is.';

function entry(
  code: Dmc12Code,
  retryable: boolean,
  meaning: string,
  clientAction: string,
  extraLegacy: readonly string[] = [],
  specSection: string = SET,
  defaultLegacyError: string = code.toLowerCase(),
): Dmc12CodeInfo {
  // The legacy `error` strings seen in DMC-12's own examples are the code in lower case
  // (reservation_expired, rate_limited); the extras are strings the repo pairs with a code.
  return {
    code,
    protocol: 'dmc12',
    meaning,
    jsonrpcCode: null,
    retryable,
    clientAction,
    specSection,
    legacyErrors: Object.freeze([code.toLowerCase(), ...extraLegacy]),
    defaultLegacyError,
  };
}

/**
 * The DMC-12 code table, keyed by `error_code`. `retryable` is fixed by the code (only
 * RATE_LIMITED, UPSTREAM_UNAVAILABLE and INTERNAL_ERROR are true; dmc12-error.schema.json enforces
 * it with if/then). `legacyErrors` lists the known legacy `error` strings for the code:
 * `vin_already_reserved` (capabilities/reservation.md), `vehicle_not_available`
 * (capabilities/quote.md, pairing inferred), `email_send_failed` (docs/guide/deal-handoff.html).
 * `defaultLegacyError` is the documented string where the code has one meaning
 * (`vin_already_reserved`, `vehicle_not_available`); `email_send_failed` names only the SMTP
 * case of UPSTREAM_UNAVAILABLE, so that code keeps `upstream_unavailable`.
 */
export const DMC12_CODES: Readonly<Record<Dmc12Code, Dmc12CodeInfo>> = Object.freeze({
  VEHICLE_NOT_FOUND: entry('VEHICLE_NOT_FOUND', false, 'VIN not in inventory.', 'Pick another VIN from a fresh search_inventory.'),
  VEHICLE_UNAVAILABLE: entry(
    'VEHICLE_UNAVAILABLE',
    false,
    "Vehicle status isn't available (sold / pending / reserved).",
    'Pick another VIN.',
    ['vehicle_not_available'],
    SET,
    'vehicle_not_available',
  ),
  QUOTE_NOT_FOUND: entry('QUOTE_NOT_FOUND', false, 'Unknown quote_id.', 'Re-quote: request a new quote.'),
  QUOTE_EXPIRED: entry('QUOTE_EXPIRED', false, 'Quote past its 30-minute TTL.', 'Re-quote, then re-reserve.', [], BRANCH),
  QUOTE_STATE: entry('QUOTE_STATE', false, 'Quote already converted or closed.', SURFACE),
  RESERVATION_NOT_FOUND: entry('RESERVATION_NOT_FOUND', false, 'Unknown reservation_token.', 'Re-quote and re-reserve.'),
  RESERVATION_EXPIRED: entry(
    'RESERVATION_EXPIRED',
    false,
    'Hold past its 30-minute TTL at lock time.',
    'Re-quote, then re-reserve.',
    [],
    BRANCH,
  ),
  RESERVATION_STATE: entry('RESERVATION_STATE', false, 'Reservation not active (released / expired / converted).', SURFACE),
  RESERVATION_CONFLICT: entry(
    'RESERVATION_CONFLICT',
    false,
    'VIN already has an active hold.',
    'Pick another VIN.',
    ['vin_already_reserved'],
    BRANCH,
    'vin_already_reserved',
  ),
  RESERVATION_LIMIT: entry(
    'RESERVATION_LIMIT',
    false,
    'Daily reservation budget exhausted.',
    'Stop reserving today; surface to the operator to request a higher tier.',
  ),
  OFFER_NOT_FOUND: entry('OFFER_NOT_FOUND', false, 'Negotiation (off at MM): unknown offer.', SURFACE),
  OFFER_EXPIRED: entry('OFFER_EXPIRED', false, 'Negotiation (off at MM): offer/thread lapsed.', SURFACE),
  OFFER_STATE: entry('OFFER_STATE', false, 'Negotiation (off at MM): offer not in an actionable state.', SURFACE),
  CONSENT_REQUIRED: entry(
    'CONSENT_REQUIRED',
    false,
    'Consent missing (taxonomy member; the schema gate surfaces as VALIDATION_FAILED today).',
    'Collect customer consent, then resend.',
  ),
  CONSENT_INVALID: entry(
    'CONSENT_INVALID',
    false,
    'Hand-off: supplied consent.expires_at is in the past.',
    'Refresh consent, then resend.',
    [],
    BRANCH,
  ),
  NOT_AUTHORIZED: entry(
    'NOT_AUTHORIZED',
    false,
    'Missing scope, or the resource is owned by another agent.',
    'Check scopes and resource ownership (scope intersection / token owner).',
    [],
    BRANCH,
  ),
  VALIDATION_FAILED: entry(
    'VALIDATION_FAILED',
    false,
    'Input failed schema validation (VIN shape, E.164 phone, email, lengths, missing consent).',
    'Fix the payload; do not retry as-is.',
    [],
    BRANCH,
  ),
  RATE_LIMITED: entry('RATE_LIMITED', true, 'RPM or daily budget exceeded.', 'Back off and retry (~1 s → 2 s → 4 s with jitter, 3–5 attempts).', [], BRANCH),
  NOT_CONFIGURED: entry(
    'NOT_CONFIGURED',
    false,
    'A required server-side config (e.g. hand-off destination, fee schedule) is unset.',
    SURFACE,
  ),
  UPSTREAM_UNAVAILABLE: entry(
    'UPSTREAM_UNAVAILABLE',
    true,
    'A dependency failed (e.g. SMTP send).',
    'Back off and retry (~1 s → 2 s → 4 s with jitter, 3–5 attempts).',
    ['email_send_failed'],
    BRANCH,
  ),
  INTERNAL_ERROR: entry(
    'INTERNAL_ERROR',
    true,
    'Unexpected server fault.',
    'Back off and retry; if it persists, surface to the operator with error_id + trace_id.',
    [],
    BRANCH,
  ),
} satisfies Record<Dmc12Code, Dmc12CodeInfo>);

/** JSON-RPC error codes DMC-12 defines for itself (outside the `data.error` envelope), as strings. */
export type Dmc12JsonRpcCode = '-32001';

/**
 * DMC-12's own JSON-RPC errors, keyed by the code as a string (`'-32001'`). They come back as a
 * JSON-RPC `error` member, not inside a result, so `parseResponse` reports them with protocol
 * `dmc12` and the JSON-RPC code as the code (`lookupCode('dmc12', '-32001')` finds this entry).
 * The auth failure carries no `retryable`; it is not transient, so the entry says false.
 */
export const DMC12_JSONRPC_ERRORS: Readonly<Record<Dmc12JsonRpcCode, CodeInfo>> = Object.freeze({
  '-32001': Object.freeze({
    code: '-32001',
    protocol: 'dmc12',
    meaning: 'Bad, expired or wrong-audience bearer token (DMC-12 auth failure, HTTP 401); not the data.error envelope.',
    jsonrpcCode: -32001,
    retryable: false,
    clientAction: 'Refresh or fix the bearer token; do not retry as is.',
    specSection: 'DMC-12 "Error taxonomy" page, "Auth failures are different"',
  }),
} satisfies Record<Dmc12JsonRpcCode, CodeInfo>);

/** The DMC-12 auth failure entry (JSON-RPC -32001 with HTTP 401); same object as `DMC12_JSONRPC_ERRORS['-32001']`. */
export const DMC12_AUTH_FAILURE: CodeInfo = DMC12_JSONRPC_ERRORS['-32001'];

/** Type guard: `code` is one of the 21 DMC-12 codes. */
export function isDmc12Code(code: unknown): code is Dmc12Code {
  return typeof code === 'string' && Object.hasOwn(DMC12_CODES, code);
}

const LEGACY_TO_CODE: ReadonlyMap<string, Dmc12Code> = new Map(
  Object.values(DMC12_CODES).flatMap((info) => info.legacyErrors.map((s) => [s, info.code as Dmc12Code] as const)),
);

/**
 * The legacy `error` string ↔ `error_code` pairs the DMC-12 reference data documents
 * (reference/dmc12-error-examples.json): the two schema examples (schemas/error.json
 * `examples[0..1]`), `vin_already_reserved` (capabilities/reservation.md), `vehicle_not_available`
 * (capabilities/quote.md, pairing inferred there) and `email_send_failed`
 * (docs/guide/deal-handoff.html). A payload that sends one of these strings with another
 * `error_code` contradicts the reference (conformance rule `dmc12.legacy-matches-code`), and
 * `buildDmc12Error` refuses to build one. Other strings are implementation-defined.
 */
export const DMC12_DOCUMENTED_LEGACY_PAIRS: Readonly<Record<string, Dmc12Code>> = Object.freeze({
  reservation_expired: 'RESERVATION_EXPIRED',
  rate_limited: 'RATE_LIMITED',
  vin_already_reserved: 'RESERVATION_CONFLICT',
  vehicle_not_available: 'VEHICLE_UNAVAILABLE',
  email_send_failed: 'UPSTREAM_UNAVAILABLE',
} satisfies Record<string, Dmc12Code>);

/** The code the reference data pairs with a legacy string, or undefined (own keys only). */
export function documentedDmc12CodeForLegacy(legacyError: string): Dmc12Code | undefined {
  return Object.hasOwn(DMC12_DOCUMENTED_LEGACY_PAIRS, legacyError) ? DMC12_DOCUMENTED_LEGACY_PAIRS[legacyError] : undefined;
}

/**
 * The DMC-12 code a legacy `error` string maps to (`vin_already_reserved` → RESERVATION_CONFLICT),
 * or undefined when the string is unknown. Exact, case-sensitive match.
 */
export function dmc12CodeForLegacyError(legacyError: string): Dmc12Code | undefined {
  return LEGACY_TO_CODE.get(legacyError);
}
