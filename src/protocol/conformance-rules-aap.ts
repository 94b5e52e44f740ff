/** Conformance rules for AAP skill errors (spec/aap-errors.txt), both wire forms. */
import { AAP_CODES, AAP_ERROR_DOMAIN, AAP_ERROR_TYPE_URL, isAapCode } from './codes/aap-codes.js';
import { containsDraftIdentifier, containsStackTrace, isRfc3339 } from './builders/common.js';
import { own, ownObject, ownString, retryAfterMs } from './extract.js';
import { data20SchemaProblems, releasedSchemaProblems } from './conformance-schema.js';
import { AAP_SPEC as AAP, type CallView, type ConformanceRule, errorInfos, isCurrentAapCode } from './conformance-view.js';

const VALIDATION_CODES = new Set(Object.values(AAP_CODES).filter((c) => c.validation).map((c) => c.code));
const MUSTS = `${AAP}, "What dealer agents MUST and MUST NOT do"`;
const SHAPE = `${AAP}, "Error payload shape"`;

/** The human-readable texts of a call a stack trace must not reach. */
function messageTexts(v: CallView): unknown[] {
  const texts: unknown[] = [own(v.error, 'message'), own(v.payload, 'message'), own(v.dmc12, 'message')];
  const errors = own(ownObject(v.payload, 'details'), 'errors');
  if (Array.isArray(errors)) for (const e of errors.slice(0, 1000)) texts.push(own(e, 'error'));
  for (const entry of (v.dataArray ?? []).slice(0, 100)) {
    const violations = own(entry, 'fieldViolations');
    if (Array.isArray(violations)) for (const f of violations.slice(0, 1000)) texts.push(own(f, 'description'));
  }
  return texts;
}

/** AAP rules, in report order. */
export const AAP_RULES: readonly ConformanceRule[] = [
  {
    id: 'aap.no-draft-identifiers',
    level: 'MUST NOT',
    source: AAP,
    quote: 'Draft extension identifiers below are illustrative and MUST NOT be deployed',
    check: (v) => {
      if (!v.error) return null;
      let text: string;
      try {
        text = JSON.stringify(v.error);
      } catch {
        return null;
      }
      return containsDraftIdentifier(text) ? 'the error names a draft identifier (draft.autoagentprotocol.invalid)' : null;
    },
  },
  {
    id: 'aap.errorinfo-leads',
    level: 'MUST',
    source: AAP,
    quote:
      'The array MUST lead with a google.rpc.ErrorInfo carrying reason = the AAP code, domain = autoagentprotocol.org, and string-valued metadata for code, error_id, retryable and created_at.',
    check: (v) => {
      if (v.aapForm !== '2.0') return null;
      const first = v.dataArray?.[0];
      if (own(first, '@type') !== 'type.googleapis.com/google.rpc.ErrorInfo') return 'error.data[0] is not a google.rpc.ErrorInfo';
      if (own(first, 'domain') !== AAP_ERROR_DOMAIN) return `error.data[0].domain is not ${AAP_ERROR_DOMAIN}`;
      const code = ownString(v.payload, 'code');
      if (code !== null && own(first, 'reason') !== code) return 'ErrorInfo.reason differs from the aap.error code';
      const meta = ownObject(first, 'metadata');
      const missing = ['code', 'error_id', 'retryable', 'created_at'].filter((k) => !Object.hasOwn(meta ?? {}, k));
      return missing.length > 0 ? `ErrorInfo.metadata lacks ${missing.join(', ')}` : null;
    },
  },
  {
    id: 'aap.errorinfo-reason-known',
    level: 'MUST',
    source: AAP,
    quote: 'reason = the AAP code, domain = autoagentprotocol.org',
    check: (v) => {
      const bad = errorInfos(v).find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN && !isCurrentAapCode(own(i, 'reason')));
      return bad ? `ErrorInfo reason ${JSON.stringify(own(bad, 'reason'))} under domain ${AAP_ERROR_DOMAIN} is not one of the 12 AAP codes` : null;
    },
  },
  {
    id: 'aap.errorinfo-domain',
    level: 'MUST',
    source: AAP,
    quote: 'reason = the AAP code, domain = autoagentprotocol.org',
    check: (v) => {
      const bad = errorInfos(v).find((i) => isAapCode(own(i, 'reason')) && own(i, 'domain') !== AAP_ERROR_DOMAIN);
      return bad ? `ErrorInfo with AAP reason ${String(own(bad, 'reason'))} has domain ${JSON.stringify(own(bad, 'domain'))}, not ${AAP_ERROR_DOMAIN}` : null;
    },
  },
  {
    id: 'aap.errorinfo-metadata-strings',
    level: 'MUST',
    source: AAP,
    quote: 'ErrorInfo.metadata is a map<string,string>, so every value is a JSON string ("false", not false).',
    check: (v) => {
      for (const info of errorInfos(v)) {
        const meta = own(info, 'metadata');
        if (meta === undefined) continue;
        if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return 'ErrorInfo.metadata is not an object';
        const m = meta as Record<string, unknown>;
        const bad = Object.keys(m).filter((k) => typeof m[k] !== 'string');
        if (bad.length > 0) return `ErrorInfo.metadata values not strings: ${bad.join(', ')}`;
      }
      return null;
    },
  },
  {
    id: 'aap.errorinfo-retryable-literal',
    level: 'MUST',
    source: AAP,
    quote: 'every value is a JSON string ("false", not false).',
    check: (v) => {
      const meta = ownObject(v.aapInfo, 'metadata');
      if (!meta || !Object.hasOwn(meta, 'retryable')) return null;
      const r = meta.retryable;
      return typeof r !== 'string' || r === 'true' || r === 'false' ? null : `ErrorInfo.metadata.retryable ${JSON.stringify(r)} is not exactly "true" or "false"`;
    },
  },
  {
    id: 'aap.errorinfo-metadata-code',
    level: 'MUST',
    source: AAP,
    quote: 'Duplicate the AAP code into metadata.code: an SDK may expose only the metadata and discard reason.',
    check: (v) => {
      if (!v.aapInfo) return null;
      const code = own(ownObject(v.aapInfo, 'metadata'), 'code');
      return code === own(v.aapInfo, 'reason') ? null : 'ErrorInfo.metadata.code does not equal reason';
    },
  },
  {
    id: 'aap.errorinfo-metadata-matches',
    level: 'MUST',
    source: AAP,
    quote: 'string-valued metadata for code, error_id, retryable and created_at.',
    check: (v) => {
      if (!v.aapInfo || !v.payload) return null;
      const meta = ownObject(v.aapInfo, 'metadata');
      const diff: string[] = [];
      if (own(meta, 'error_id') !== own(v.payload, 'error_id')) diff.push('error_id');
      if (own(meta, 'retryable') !== String(own(v.payload, 'retryable'))) diff.push('retryable');
      if (own(meta, 'created_at') !== own(v.payload, 'created_at')) diff.push('created_at');
      return diff.length > 0 ? `ErrorInfo.metadata disagrees with the aap.error on ${diff.join(', ')}` : null;
    },
  },
  {
    id: 'aap.typed-payload-present',
    level: 'MUST',
    source: MUSTS,
    quote: 'Dealer agents MUST return skill-level errors using this schema (typed aap.error payload), not free-text messages.',
    check: (v) => {
      if (v.payload) return null;
      if (v.aapInfo) return 'AAP ErrorInfo without the @type-tagged aap.error payload';
      if (v.taskFailed) return 'skill failure hidden as a failed or rejected task without an aap.error payload';
      if (v.family === 'aap' && v.jsonrpcCode === -32000 && own(v.error, 'data') === undefined) {
        return 'server error (-32000) on an AAP call without an aap.error payload';
      }
      return null;
    },
  },
  {
    id: 'aap.schema-released',
    level: 'MUST',
    source: `${MUSTS}; the released form's schema (AAP_ERROR_RELEASED_SCHEMA, after the AAP v1.3 error schema https://autoagentprotocol.org/v1.3/schemas/error.schema.json)`,
    quote: 'Dealer agents MUST return skill-level errors using this schema (typed aap.error payload), not free-text messages.',
    check: (v) => {
      if (v.aapForm !== 'released' || !v.payload) return null;
      const problems = releasedSchemaProblems(v.payload);
      return problems === null ? null : `error.data fails the released aap.error schema: ${problems}`;
    },
  },
  {
    id: 'aap.schema-v2',
    level: 'MUST',
    source: `${MUSTS}; the 2.0 schemas (AAP_ERROR_DATA_2_0_SCHEMA, after the AAP 2.0 draft's error schema)`,
    quote: 'Dealer agents MUST return skill-level errors using this schema (typed aap.error payload), not free-text messages.',
    check: (v) => {
      if (v.aapForm !== '2.0' || !v.dataArray) return null;
      const problems = data20SchemaProblems(v.dataArray);
      return problems === null ? null : `error.data fails the 2.0 schemas: ${problems}`;
    },
  },
  {
    id: 'aap.form-matches-endpoint',
    level: 'MUST',
    source: AAP,
    quote: 'Existing v1.3 endpoints retain their released error shape and activation behavior; see migration guidance.',
    check: (v) =>
      v.endpointForm !== undefined && v.aapForm !== null && v.aapForm !== v.endpointForm
        ? `a ${v.endpointForm} endpoint sent the ${v.aapForm} error form`
        : null,
  },
  {
    id: 'aap.payload-shape',
    level: 'MUST',
    source: SHAPE,
    quote: 'type const yes Always aap.error.',
    check: (v) => {
      if (!v.payload) return null;
      if (own(v.payload, 'type') !== 'aap.error') return 'aap.error payload type is not "aap.error"';
      if (v.aapForm === '2.0' && own(v.payload, '@type') !== AAP_ERROR_TYPE_URL) return `@type is not ${AAP_ERROR_TYPE_URL}`;
      const code = own(v.payload, 'code');
      if (!isCurrentAapCode(code)) return `code ${JSON.stringify(code)} is not one of the 12 AAP codes`;
      if (typeof own(v.payload, 'message') !== 'string') return 'message is not a string';
      return null;
    },
  },
  {
    id: 'aap.jsonrpc-code',
    level: 'MUST',
    source: `${AAP}, "Error code reference"`,
    quote: 'The 12 codes, their meaning, recommended JSON-RPC code, and retryable default.',
    check: (v) => {
      // Without the typed payload, the ErrorInfo reason names the code.
      const code = v.payload ? own(v.payload, 'code') : own(v.aapInfo, 'reason');
      if (!isAapCode(code)) return null;
      const info = AAP_CODES[code];
      const want = v.aapForm === 'released' ? info.releasedJsonrpcCode : info.jsonrpcCode;
      return v.jsonrpcCode === want ? null : `JSON-RPC code ${String(v.jsonrpcCode)} is not ${want} for ${code} (${v.aapForm} form)`;
    },
  },
  {
    id: 'aap.retryable-boolean',
    level: 'MUST',
    source: MUSTS,
    quote: 'Dealer agents MUST set retryable truthfully. Buyer agents follow this signal to decide whether to retry.',
    check: (v) => (v.payload && typeof own(v.payload, 'retryable') !== 'boolean' ? 'aap.error retryable is not a boolean' : null),
  },
  {
    id: 'aap.error-id-present',
    level: 'MUST',
    source: SHAPE,
    quote: 'error_id string yes Unique identifier for this error instance (UUID recommended), suitable for support correlation.',
    check: (v) => {
      if (!v.payload) return null;
      const id = own(v.payload, 'error_id');
      return typeof id === 'string' && id.length > 0 ? null : 'aap.error has no error_id';
    },
  },
  {
    id: 'aap.created-at-valid',
    level: 'MUST',
    source: SHAPE,
    quote: 'created_at date-time yes When the error was generated by the dealer agent.',
    check: (v) =>
      v.payload && !isRfc3339(own(v.payload, 'created_at')) ? 'created_at is missing or not an RFC 3339 date-time with a time zone' : null,
  },
  {
    id: 'aap.details-object',
    level: 'MUST',
    source: SHAPE,
    quote: 'details object no Code-specific details.',
    check: (v) => {
      if (!v.payload || !Object.hasOwn(v.payload, 'details')) return null;
      const d = v.payload.details;
      return d !== null && typeof d === 'object' && !Array.isArray(d) ? null : 'details is not an object';
    },
  },
  {
    id: 'aap.validation-details',
    level: 'MUST',
    source: `${AAP}, "Per-code semantics: SCHEMA_VALIDATION_FAILED"`,
    quote:
      'details.errors[] MUST list all failing fields at once — each with its instanceLocation, keyword, and error — so the buyer agent can correct the entire payload in a single retry.',
    check: (v) => {
      const code = ownString(v.payload, 'code');
      if (code === null || !VALIDATION_CODES.has(code)) return null;
      const errors = own(ownObject(v.payload, 'details'), 'errors');
      if (!Array.isArray(errors) || errors.length === 0) return `${code} without details.errors[]`;
      const i = errors.findIndex(
        (e) => typeof own(e, 'instanceLocation') !== 'string' || typeof own(e, 'keyword') !== 'string' || typeof own(e, 'error') !== 'string',
      );
      return i >= 0 ? `details.errors[${i}] lacks instanceLocation, keyword or error` : null;
    },
  },
  {
    id: 'aap.rate-limited-retry-after',
    level: 'SHOULD',
    source: `${AAP}, "Per-code semantics: RATE_LIMITED"`,
    quote: 'Dealer agents SHOULD include details.retry_after_ms (or details.retry_after_seconds) so the buyer agent can back off appropriately.',
    check: (v) =>
      own(v.payload, 'code') === 'RATE_LIMITED' && retryAfterMs(own(v.payload, 'details')) === null
        ? 'RATE_LIMITED without details.retry_after_ms or details.retry_after_seconds'
        : null,
  },
  {
    id: 'aap.no-stack-trace',
    level: 'MUST NOT',
    source: MUSTS,
    quote: 'Dealer agents MUST NOT leak internal stack traces in message.',
    check: (v) =>
      messageTexts(v).some((t) => typeof t === 'string' && containsStackTrace(t)) ? 'a message contains a stack trace' : null,
  },
];
