import type { AapCodeInfo } from '../types.js';

/**
 * The 12 AAP `aap.error` codes (spec/aap-errors.txt "Error code reference"), plus v0.1's
 * AUTH_REQUIRED as a legacy entry (present in aap-schemas/v0.1/error.schema.json, dropped in v0.2).
 *
 * `jsonrpcCode` is the 2.0 contract's recommended JSON-RPC code (-32000, -32004, -32602, -32603);
 * `releasedJsonrpcCode` is the released v1.0–1.3 form's, which differs for RATE_LIMITED (-32002)
 * and UNSUPPORTED_SKILL (-32601). `retryable` is the table default; the dealer may override it
 * per instance and the buyer must honour the value on the wire.
 */
export type AapCode =
  | 'UNSUPPORTED_SKILL'
  | 'SCHEMA_VALIDATION_FAILED'
  | 'MISSING_REQUIRED_FIELD'
  | 'INVALID_CONDITION'
  | 'VEHICLE_NOT_FOUND'
  | 'VEHICLE_UNAVAILABLE'
  | 'CONTACT_CONSENT_REQUIRED'
  | 'INVALID_CONSENT'
  | 'APPOINTMENT_TIME_UNAVAILABLE'
  | 'IDEMPOTENCY_CONFLICT'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'AUTH_REQUIRED';

const TABLE = 'AAP "Errors" page, "Error code reference"';
const perCode = (code: string): string => `${TABLE}; "Per-code semantics: ${code}"`;

/** The AAP code table, keyed by code. Frozen data. */
export const AAP_CODES: Readonly<Record<AapCode, AapCodeInfo>> = Object.freeze({
  UNSUPPORTED_SKILL: {
    code: 'UNSUPPORTED_SKILL',
    protocol: 'aap',
    meaning: 'The agent does not implement this skill.',
    jsonrpcCode: -32004,
    releasedJsonrpcCode: -32601,
    retryable: false,
    clientAction: "Check the agent card's declared skills; call a skill this dealer implements, do not retry.",
    specSection: perCode('UNSUPPORTED_SKILL'),
    legacy: false,
    validation: false,
  },
  SCHEMA_VALIDATION_FAILED: {
    code: 'SCHEMA_VALIDATION_FAILED',
    protocol: 'aap',
    meaning: 'Request body fails JSON Schema validation.',
    jsonrpcCode: -32602,
    releasedJsonrpcCode: -32602,
    retryable: false,
    clientAction: 'Fix the payload using every entry of details.errors[], then resend once; do not retry as-is.',
    specSection: perCode('SCHEMA_VALIDATION_FAILED'),
    legacy: false,
    validation: true,
  },
  MISSING_REQUIRED_FIELD: {
    code: 'MISSING_REQUIRED_FIELD',
    protocol: 'aap',
    meaning: 'A specifically required field is absent.',
    jsonrpcCode: -32602,
    releasedJsonrpcCode: -32602,
    retryable: false,
    clientAction: 'Fix the payload: add the missing required field, then resend; do not retry as-is.',
    specSection: perCode('MISSING_REQUIRED_FIELD'),
    legacy: false,
    validation: true,
  },
  INVALID_CONDITION: {
    code: 'INVALID_CONDITION',
    protocol: 'aap',
    meaning: 'A condition value is from the wrong vocabulary for its context (vehicle_of_interest vs trade_in).',
    jsonrpcCode: -32602,
    releasedJsonrpcCode: -32602,
    retryable: false,
    clientAction: 'Fix the payload: vehicle_of_interest.condition in new|used|cpo, trade_in.condition in excellent|good|fair|poor.',
    specSection: perCode('INVALID_CONDITION'),
    legacy: false,
    validation: true,
  },
  VEHICLE_NOT_FOUND: {
    code: 'VEHICLE_NOT_FOUND',
    protocol: 'aap',
    meaning: 'The supplied vin / stock / vehicle_id does not match any listing.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Re-run inventory.search and pick a listed vehicle; do not retry the same identifiers.',
    specSection: perCode('VEHICLE_NOT_FOUND'),
    legacy: false,
    validation: false,
  },
  VEHICLE_UNAVAILABLE: {
    code: 'VEHICLE_UNAVAILABLE',
    protocol: 'aap',
    meaning: 'The vehicle exists but its status is no longer available | intransit | pending.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Recompute search results, surface the change to the user and pick another vehicle.',
    specSection: perCode('VEHICLE_UNAVAILABLE'),
    legacy: false,
    validation: false,
  },
  CONTACT_CONSENT_REQUIRED: {
    code: 'CONTACT_CONSENT_REQUIRED',
    protocol: 'aap',
    meaning: 'Customer info present without consent, or follow-up channel not in consent.allowed_channels.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Collect consent (scope lead_submission) covering the follow-up channel, then resend.',
    specSection: perCode('CONTACT_CONSENT_REQUIRED'),
    legacy: false,
    validation: false,
  },
  INVALID_CONSENT: {
    code: 'INVALID_CONSENT',
    protocol: 'aap',
    meaning: 'Consent is present but malformed, expired, or its scope does not cover the called skill.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Refresh consent (scope exactly ["lead_submission"], granted_at not in the future, non-empty text).',
    specSection: perCode('INVALID_CONSENT'),
    legacy: false,
    validation: false,
  },
  APPOINTMENT_TIME_UNAVAILABLE: {
    code: 'APPOINTMENT_TIME_UNAVAILABLE',
    protocol: 'aap',
    meaning: 'The requested appointment_at cannot be honored and the dealer has no proposed alternatives.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Ask the user for another appointment time and resend.',
    specSection: perCode('APPOINTMENT_TIME_UNAVAILABLE'),
    legacy: false,
    validation: false,
  },
  IDEMPOTENCY_CONFLICT: {
    code: 'IDEMPOTENCY_CONFLICT',
    protocol: 'aap',
    meaning: 'An idempotency_key was reused with a different request payload.',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Use a fresh idempotency_key for a genuinely new request; never reuse one with a changed payload.',
    specSection: perCode('IDEMPOTENCY_CONFLICT'),
    legacy: false,
    validation: false,
  },
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    protocol: 'aap',
    meaning: "Client has exceeded the dealer's rate limit.",
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32002,
    retryable: true,
    clientAction: 'Back off and retry, honouring details.retry_after_ms / retry_after_seconds.',
    specSection: perCode('RATE_LIMITED'),
    legacy: false,
    validation: false,
  },
  INTERNAL_ERROR: {
    code: 'INTERNAL_ERROR',
    protocol: 'aap',
    meaning: 'Unhandled dealer-side error.',
    jsonrpcCode: -32603,
    releasedJsonrpcCode: -32603,
    retryable: true,
    clientAction: 'Back off and retry with exponential backoff; if it persists, surface to the operator with error_id.',
    specSection: perCode('INTERNAL_ERROR'),
    legacy: false,
    validation: false,
  },
  AUTH_REQUIRED: {
    code: 'AUTH_REQUIRED',
    protocol: 'aap',
    meaning: 'Legacy v0.1 code: the call needed authentication (removed in v0.2; auth is now transport-level).',
    jsonrpcCode: -32000,
    releasedJsonrpcCode: -32000,
    retryable: false,
    clientAction: 'Check credentials and scopes; the dealer runs a v0.1 contract, surface to the operator.',
    specSection: 'AAP v0.1 error schema (error.schema.json), "code" enum (legacy)',
    legacy: true,
    validation: false,
  },
} satisfies Record<AapCode, AapCodeInfo>);

/** Type guard: `code` is a key of `AAP_CODES` (including the legacy AUTH_REQUIRED). */
export function isAapCode(code: unknown): code is AapCode {
  return typeof code === 'string' && Object.hasOwn(AAP_CODES, code);
}

/** The `@type` of the typed AAP payload inside the 2.0 `error.data` array (version-free by design). */
export const AAP_ERROR_TYPE_URL = 'https://autoagentprotocol.org/extensions/aap/error';
/**
 * Host of the spec's illustrative draft identifiers (`https://draft.autoagentprotocol.invalid/…`):
 * "Draft extension identifiers below are illustrative and MUST NOT be deployed" (spec/aap-errors.txt
 * "Errors"). Builders refuse it; the checker flags it on the wire (`aap.no-draft-identifiers`).
 */
export const AAP_DRAFT_HOST = 'draft.autoagentprotocol.invalid';
/** ErrorInfo `domain` for AAP skill errors (2.0 form). */
export const AAP_ERROR_DOMAIN = 'autoagentprotocol.org';
