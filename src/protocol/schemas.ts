/**
 * The project's own JSON Schemas (draft 2020-12) of the AAP error payload in both wire forms and
 * of the google.rpc detail objects the 2.0 array carries. They follow the public schemas
 * (reference/aap-schemas/v1.3/error.schema.json for the released form,
 * reference/aap-schemas/latest-2.0-draft/error.schema.json for 2.0) and are stricter where the
 * spec page is: `details` is an object (spec "Error payload shape": "details object no"), `error_id`
 * is non-empty, and `format: "date-time"` is checked strictly (`isRfc3339`: no 30 February, no
 * five-digit years, a time zone with a colon). Data only; `conformance-schema.ts` compiles them.
 * Their `$id`s are URNs of this project, never the spec's draft host.
 */
import { AAP_CODES, AAP_ERROR_TYPE_URL } from './codes/aap-codes.js';
import { BAD_REQUEST_TYPE_URL, ERROR_INFO_TYPE_URL } from './codes/a2a-codes.js';

const CURRENT_AAP_CODES = Object.values(AAP_CODES)
  .filter((c) => !c.legacy)
  .map((c) => c.code);

const PAYLOAD_PROPERTIES = {
  type: { const: 'aap.error' },
  error_id: { type: 'string', minLength: 1 },
  code: { type: 'string', enum: CURRENT_AAP_CODES },
  message: { type: 'string' },
  retryable: { type: 'boolean' },
  details: { type: 'object' },
  created_at: { type: 'string', format: 'date-time' },
} as const;

const PAYLOAD_REQUIRED = ['type', 'error_id', 'code', 'message', 'retryable', 'created_at'] as const;

/** The released (v1.0–1.3) `aap.error` object: the bare `error.data` of a released endpoint. */
export const AAP_ERROR_RELEASED_SCHEMA = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:aap-triage:schema:aap-error:released',
  title: 'AAP error payload, released form (v1.0–1.3)',
  type: 'object',
  properties: PAYLOAD_PROPERTIES,
  required: PAYLOAD_REQUIRED,
  additionalProperties: false,
});

/** The 2.0 `aap.error` entry of the `error.data` array, tagged with `@type`. */
export const AAP_ERROR_2_0_SCHEMA = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:aap-triage:schema:aap-error:2.0',
  title: 'AAP error payload, 2.0 form (entry of error.data)',
  type: 'object',
  properties: { '@type': { const: AAP_ERROR_TYPE_URL }, ...PAYLOAD_PROPERTIES },
  required: ['@type', ...PAYLOAD_REQUIRED],
  additionalProperties: false,
});

/** google.rpc.ErrorInfo as ProtoJSON: `metadata` is map<string,string>. */
export const ERROR_INFO_SCHEMA = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:aap-triage:schema:google.rpc.ErrorInfo',
  title: 'google.rpc.ErrorInfo (ProtoJSON)',
  type: 'object',
  properties: {
    '@type': { const: ERROR_INFO_TYPE_URL },
    reason: { type: 'string', minLength: 1 },
    domain: { type: 'string', minLength: 1 },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['@type', 'reason', 'domain'],
  additionalProperties: false,
});

/** google.rpc.BadRequest as ProtoJSON (`fieldViolations[]` of field + description). */
export const BAD_REQUEST_SCHEMA = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:aap-triage:schema:google.rpc.BadRequest',
  title: 'google.rpc.BadRequest (ProtoJSON)',
  type: 'object',
  properties: {
    '@type': { const: BAD_REQUEST_TYPE_URL },
    fieldViolations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          field: { type: 'string' },
          description: { type: 'string' },
          reason: { type: 'string' },
          localizedMessage: { type: 'object' },
        },
        required: ['field', 'description'],
        additionalProperties: false,
      },
    },
  },
  required: ['@type', 'fieldViolations'],
  additionalProperties: false,
});

/**
 * The 2.0 `error.data` array: a leading ErrorInfo, then any entries, each with an `@type`; the
 * ones whose `@type` the spec names are checked against their schema, the others are left alone
 * (spec: "Dealer agents MAY append further well-known A2A detail objects").
 */
export const AAP_ERROR_DATA_2_0_SCHEMA = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:aap-triage:schema:aap-error-data:2.0',
  title: 'AAP 2.0 error.data array',
  type: 'array',
  minItems: 1,
  prefixItems: [{ $ref: ERROR_INFO_SCHEMA.$id }],
  items: {
    type: 'object',
    required: ['@type'],
    properties: { '@type': { type: 'string' } },
    allOf: [
      { if: { properties: { '@type': { const: ERROR_INFO_TYPE_URL } } }, then: { $ref: ERROR_INFO_SCHEMA.$id } },
      { if: { properties: { '@type': { const: BAD_REQUEST_TYPE_URL } } }, then: { $ref: BAD_REQUEST_SCHEMA.$id } },
      { if: { properties: { '@type': { const: AAP_ERROR_TYPE_URL } } }, then: { $ref: AAP_ERROR_2_0_SCHEMA.$id } },
    ],
  },
});
