/**
 * Conformance checker: which spec rules a response envelope breaks. Each rule is data — a stable
 * id, where it comes from, the sentence it enforces — plus a small check over one call.
 */
import { A2A_ERROR_DOMAIN, A2A_EXTENSIONS_HEADER, ERROR_INFO_TYPE_URL } from './codes/a2a-codes.js';
import { AAP_CODES, AAP_ERROR_DOMAIN, AAP_ERROR_TYPE_URL, isAapCode } from './codes/aap-codes.js';
import { DMC12_CODES, isDmc12Code } from './codes/dmc12-codes.js';
import { containsStackTrace, isRfc3339 } from './builders/common.js';
import { type JsonObject, errorText, isObject, own, ownObject, ownString } from './extract.js';
import { type BodyLimits, readJsonBody } from './json-body.js';
import { isResponseObject, parseResultError, readId } from './parse-response.js';

/** One broken rule. */
export interface ConformanceViolation {
  /** Stable rule id (`aap.errorinfo-leads`); the audit `conformance` column stores these. */
  rule: string;
  /** What is wrong here, then the spec sentence. */
  message: string;
}

/** What a rule looks at, prepared once per call (internal to the checks; exported for typing). */
export interface CallView {
  response: JsonObject;
  error: JsonObject | null;
  jsonrpcCode: unknown;
  /** 'aap-2.0' | 'aap-released' | other */
  aapForm: '2.0' | 'released' | null;
  dataArray: unknown[] | null;
  payload: JsonObject | null;
  aapInfo: JsonObject | null;
  dmc12: JsonObject | null;
  taskFailed: boolean;
  family: 'aap' | 'dmc12' | undefined;
}

/** A conformance rule: data (id, source, quote) and its check (returns a problem, or null). */
export interface ConformanceRule {
  id: string;
  /** Where the rule is stated. */
  source: string;
  /** The sentence it enforces, verbatim. */
  quote: string;
  check: (v: CallView) => string | null;
}

const AAP = 'spec/aap-errors.txt';
const DMC = 'spec/dmc12-errors.txt';
const VALIDATION_CODES = new Set(Object.values(AAP_CODES).filter((c) => c.validation).map((c) => c.code));

const isErrorInfo = (e: unknown): e is JsonObject => own(e, '@type') === ERROR_INFO_TYPE_URL;

/** The rules, in report order. Ids are stable; new rules get new ids. */
export const CONFORMANCE_RULES: readonly ConformanceRule[] = Object.freeze([
  {
    id: 'jsonrpc.envelope',
    source: 'JSON-RPC 2.0 §5',
    quote: 'Either the result member or error member MUST be included, but both members MUST NOT be included.',
    check: (v) => {
      if (own(v.response, 'jsonrpc') !== '2.0') return 'jsonrpc member is not "2.0"';
      if (Object.hasOwn(v.response, 'result') && Object.hasOwn(v.response, 'error')) return 'both result and error are present';
      if (Object.hasOwn(v.response, 'error')) {
        if (!v.error) return 'error member is not an object';
        if (typeof v.jsonrpcCode !== 'number' || !Number.isInteger(v.jsonrpcCode)) return 'error.code is not an integer';
        if (typeof own(v.error, 'message') !== 'string') return 'error.message is not a string';
      }
      return null;
    },
  },
  {
    id: 'a2a.data-entries-typed',
    source: `${AAP} "A2A protocol-level errors" (A2A §9.5)`,
    quote: 'per A2A §9.5, error.data is an array of detail objects and each one MUST carry an @type key.',
    check: (v) => {
      if (!v.dataArray) return null;
      const i = v.dataArray.findIndex((e) => !isObject(e) || typeof e['@type'] !== 'string');
      return i >= 0 ? `error.data[${i}] has no @type` : null;
    },
  },
  {
    id: 'aap.errorinfo-leads',
    source: `${AAP} "Errors"`,
    quote:
      'The array MUST lead with a google.rpc.ErrorInfo carrying reason = the AAP code, domain = autoagentprotocol.org, and string-valued metadata for code, error_id, retryable and created_at.',
    check: (v) => {
      if (v.aapForm !== '2.0') return null;
      const first = v.dataArray?.[0];
      if (!isErrorInfo(first)) return 'error.data[0] is not a google.rpc.ErrorInfo';
      if (own(first, 'domain') !== AAP_ERROR_DOMAIN) return `error.data[0].domain is not ${AAP_ERROR_DOMAIN}`;
      const code = ownString(v.payload, 'code');
      if (code !== null && own(first, 'reason') !== code) return 'ErrorInfo.reason differs from the aap.error code';
      const meta = ownObject(first, 'metadata');
      const missing = ['code', 'error_id', 'retryable', 'created_at'].filter((k) => !Object.hasOwn(meta ?? {}, k));
      return missing.length > 0 ? `ErrorInfo.metadata lacks ${missing.join(', ')}` : null;
    },
  },
  {
    id: 'aap.errorinfo-metadata-strings',
    source: `${AAP} "Errors"`,
    quote: 'ErrorInfo.metadata is a map<string,string>, so every value is a JSON string ("false", not false).',
    check: (v) => {
      for (const info of (v.dataArray ?? []).filter(isErrorInfo)) {
        const meta = own(info, 'metadata');
        if (meta === undefined) continue;
        if (!isObject(meta)) return 'ErrorInfo.metadata is not an object';
        const bad = Object.keys(meta).filter((k) => typeof meta[k] !== 'string');
        if (bad.length > 0) return `ErrorInfo.metadata values not strings: ${bad.join(', ')}`;
      }
      return null;
    },
  },
  {
    id: 'aap.errorinfo-metadata-code',
    source: `${AAP} "Errors"`,
    quote: 'Duplicate the AAP code into metadata.code: an SDK may expose only the metadata and discard reason.',
    check: (v) => {
      if (!v.aapInfo) return null;
      const code = own(ownObject(v.aapInfo, 'metadata'), 'code');
      return code === own(v.aapInfo, 'reason') ? null : 'ErrorInfo.metadata.code does not equal reason';
    },
  },
  {
    id: 'aap.errorinfo-metadata-matches',
    source: `${AAP} "Errors"`,
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
    source: `${AAP} "What dealer agents MUST and MUST NOT do"`,
    quote:
      'Dealer agents MUST return skill-level errors using this schema (typed aap.error payload), not free-text messages.',
    check: (v) => {
      if (v.payload) return null;
      if (v.aapInfo) return 'AAP ErrorInfo without the @type-tagged aap.error payload';
      if (v.taskFailed) return 'skill failure hidden as a failed task without an aap.error payload';
      if (v.family === 'aap' && v.jsonrpcCode === -32000 && own(v.error, 'data') === undefined) {
        return 'server error (-32000) on an AAP call without an aap.error payload';
      }
      return null;
    },
  },
  {
    id: 'aap.payload-shape',
    source: `${AAP} "Error payload shape"`,
    quote: 'type const yes Always aap.error.',
    check: (v) => {
      if (!v.payload) return null;
      if (own(v.payload, 'type') !== 'aap.error') return 'aap.error payload type is not "aap.error"';
      if (v.aapForm === '2.0' && own(v.payload, '@type') !== AAP_ERROR_TYPE_URL) return `@type is not ${AAP_ERROR_TYPE_URL}`;
      const code = own(v.payload, 'code');
      if (!isAapCode(code) || AAP_CODES[code].legacy) return `code ${JSON.stringify(code)} is not one of the 12 AAP codes`;
      if (typeof own(v.payload, 'message') !== 'string') return 'message is not a string';
      return null;
    },
  },
  {
    id: 'aap.jsonrpc-code',
    source: `${AAP} "Error code reference"`,
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
    source: `${AAP} "What dealer agents MUST and MUST NOT do"`,
    quote: 'Dealer agents MUST set retryable truthfully. Buyer agents follow this signal to decide whether to retry.',
    check: (v) =>
      v.payload && typeof own(v.payload, 'retryable') !== 'boolean' ? 'aap.error retryable is not a boolean' : null,
  },
  {
    id: 'aap.error-id-present',
    source: `${AAP} "Error payload shape"`,
    quote: 'error_id string yes Unique identifier for this error instance (UUID recommended), suitable for support correlation.',
    check: (v) => {
      if (!v.payload) return null;
      const id = own(v.payload, 'error_id');
      return typeof id === 'string' && id.length > 0 ? null : 'aap.error has no error_id';
    },
  },
  {
    id: 'aap.created-at-valid',
    source: `${AAP} "Error payload shape"`,
    quote: 'created_at date-time yes When the error was generated by the dealer agent.',
    check: (v) =>
      v.payload && !isRfc3339(own(v.payload, 'created_at')) ? 'created_at is missing or not an RFC 3339 date-time with a time zone' : null,
  },
  {
    id: 'aap.validation-details',
    source: `${AAP} "Per-code semantics: SCHEMA_VALIDATION_FAILED"`,
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
    id: 'aap.no-stack-trace',
    source: `${AAP} "What dealer agents MUST and MUST NOT do"`,
    quote: 'Dealer agents MUST NOT leak internal stack traces in message.',
    check: (v) => {
      const texts = [own(v.error, 'message'), own(v.payload, 'message'), own(v.dmc12, 'message')];
      return texts.some((t) => typeof t === 'string' && containsStackTrace(t)) ? 'a message contains a stack trace' : null;
    },
  },
  {
    id: 'a2a.extension-required-message',
    source: `${AAP} "The activation error MUST carry recovery instructions"`,
    quote:
      'a dealer agent returning -32008 MUST include both the exact required extension URI and the literal header name A2A-Extensions in the human-readable error.message.',
    check: (v) => {
      if (v.jsonrpcCode !== -32008) return null;
      const message = ownString(v.error, 'message') ?? '';
      const uri = extensionUriOf(v);
      if (!message.includes(A2A_EXTENSIONS_HEADER)) return 'error.message lacks the literal header name A2A-Extensions';
      if (uri === null ? !/https?:\/\/\S+/.test(message) : !message.includes(uri)) return 'error.message lacks the exact extension URI';
      return null;
    },
  },
  {
    id: 'a2a.extension-required-detail',
    source: `${AAP} "The activation error MUST carry recovery instructions"`,
    quote:
      'It MUST also include a google.rpc.ErrorInfo detail with domain: "a2a-protocol.org", reason: "EXTENSION_SUPPORT_REQUIRED", and string-valued metadata.extensionUri and metadata.requiredHeader.',
    check: (v) => {
      if (v.jsonrpcCode !== -32008) return null;
      const info = extensionInfoOf(v);
      if (!info) return 'no ErrorInfo with domain a2a-protocol.org and reason EXTENSION_SUPPORT_REQUIRED';
      const meta = ownObject(info, 'metadata');
      if (typeof own(meta, 'extensionUri') !== 'string') return 'ErrorInfo.metadata.extensionUri missing';
      if (own(meta, 'requiredHeader') !== A2A_EXTENSIONS_HEADER) return 'ErrorInfo.metadata.requiredHeader is not "A2A-Extensions"';
      return null;
    },
  },
  {
    id: 'a2a.extension-required-same-uri',
    source: `${AAP} "The activation error MUST carry recovery instructions"`,
    quote: 'The message and metadata MUST name the same extension URI.',
    check: (v) => {
      const uri = extensionUriOf(v);
      if (v.jsonrpcCode !== -32008 || uri === null) return null;
      const inMessage = (ownString(v.error, 'message') ?? '').match(/https?:\/\/[^\s"'<>]+/g) ?? [];
      const clean = inMessage.map((u) => u.replace(/[.,;:)]+$/, ''));
      // A message naming no URI at all is a2a.extension-required-message's finding, not this rule's.
      return clean.every((u) => u === uri) ? null : 'error.message and metadata.extensionUri name different URIs';
    },
  },
  {
    id: 'dmc12.taxonomy-fields',
    source: `${DMC} "Error taxonomy"`,
    quote: 'As of DMC-12 v0.3 every error payload carries a stable error_code, a retryable flag, and a correlation error_id',
    check: (v) => {
      if (!v.dmc12) return null;
      const missing = ['error_code', 'retryable', 'error_id'].filter((k) => !Object.hasOwn(v.dmc12!, k));
      if (missing.length > 0) return `DMC-12 error lacks ${missing.join(', ')}`;
      if (!isDmc12Code(own(v.dmc12, 'error_code'))) return `error_code ${JSON.stringify(own(v.dmc12, 'error_code'))} is not one of the 21 codes`;
      return typeof own(v.dmc12, 'error') === 'string' ? null : 'legacy error string missing';
    },
  },
  {
    id: 'dmc12.retryable-fixed',
    source: `${DMC} "The full code set (21)"`,
    quote: 'retryable is true only for the three transient classes.',
    check: (v) => {
      const code = own(v.dmc12, 'error_code');
      if (!v.dmc12 || !Object.hasOwn(v.dmc12, 'retryable')) return null;
      const r = own(v.dmc12, 'retryable');
      if (typeof r !== 'boolean') return 'retryable is not a boolean';
      return isDmc12Code(code) && DMC12_CODES[code].retryable !== r ? `retryable ${r} contradicts ${code}` : null;
    },
  },
  {
    id: 'dmc12.error-id-format',
    source: `${DMC} "The envelope"`,
    quote: 'error_id ↔ audit row error_id correlates 1:1 to an audit_log row; _metadata.trace_id correlates the whole call.',
    check: (v) => {
      if (!v.dmc12 || !Object.hasOwn(v.dmc12, 'error_id')) return null;
      const id = own(v.dmc12, 'error_id');
      return typeof id === 'string' && /^err_[0-9a-f]{32}$/.test(id) ? null : 'error_id is not err_ + 32 lowercase hex';
    },
  },
] satisfies ConformanceRule[]);

function extensionInfoOf(v: CallView): JsonObject | undefined {
  return (v.dataArray ?? [])
    .filter(isErrorInfo)
    .find((i) => own(i, 'domain') === A2A_ERROR_DOMAIN && own(i, 'reason') === 'EXTENSION_SUPPORT_REQUIRED');
}

function extensionUriOf(v: CallView): string | null {
  return ownString(ownObject(extensionInfoOf(v), 'metadata'), 'extensionUri');
}

function viewOf(response: JsonObject, family?: 'aap' | 'dmc12'): CallView {
  const error = ownObject(response, 'error');
  const data = own(error, 'data');
  const dataArray = Array.isArray(data) ? data : null;
  let payload: JsonObject | null = null;
  let aapForm: CallView['aapForm'] = null;
  if (dataArray) {
    payload = (dataArray.find((e) => own(e, '@type') === AAP_ERROR_TYPE_URL) as JsonObject | undefined) ?? null;
  } else if (isObject(data) && (own(data, 'type') === 'aap.error' || isAapCode(own(data, 'code')))) {
    payload = data;
    aapForm = 'released';
  }
  const aapInfo = (dataArray?.filter(isErrorInfo).find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) as JsonObject | undefined) ?? null;
  if (dataArray && (payload || aapInfo)) aapForm = '2.0';
  const result = own(response, 'result');
  const resultData = ownObject(result, 'data');
  const dmc12 =
    resultData && (Object.hasOwn(resultData, 'error_code') || typeof own(resultData, 'error') === 'string')
      ? resultData
      : isObject(data) && Object.hasOwn(data, 'error_code')
        ? data
        : null;
  const hidden = error ? null : parseResultError(result);
  return {
    response,
    error,
    jsonrpcCode: own(error, 'code'),
    aapForm,
    dataArray,
    payload,
    aapInfo,
    dmc12,
    taskFailed: hidden?.form === 'task-failed' && hidden.protocol !== 'aap',
    family,
  };
}

/** Options of `checkConformance`. */
export interface CheckConformanceOptions extends BodyLimits {
  /** The call's protocol family when known (enables "-32000 without payload on an AAP call"). */
  family?: 'aap' | 'dmc12';
}

/**
 * Lists the conformance rules a JSON-RPC response breaks (`CONFORMANCE_RULES`), in rule order; an
 * empty list means conformant. `response` is one response object or a batch (text, bytes or
 * parsed); for a batch, each message starts with the call's id. A body that cannot be read gives
 * one `jsonrpc.envelope` violation. Never throws.
 */
export function checkConformance(response: unknown, options: CheckConformanceOptions = {}): ConformanceViolation[] {
  const read = readJsonBody(response, options);
  if ('parseError' in read) return [{ rule: 'jsonrpc.envelope', message: `unreadable body: ${read.parseError.message}` }];
  const batch = Array.isArray(read.value);
  const calls = batch ? (read.value as unknown[]) : [read.value];
  const out: ConformanceViolation[] = [];
  for (const call of calls) {
    let view: CallView;
    let prefix: string;
    try {
      if (!isResponseObject(call)) {
        out.push({ rule: 'jsonrpc.envelope', message: 'not a JSON-RPC response object (no result or error member)' });
        continue;
      }
      prefix = batch ? `id ${JSON.stringify(readId(call))}: ` : '';
      view = viewOf(call, options.family);
    } catch (err) {
      out.push({ rule: 'jsonrpc.envelope', message: `unreadable response object: ${errorText(err)}` });
      continue;
    }
    for (const rule of CONFORMANCE_RULES) {
      let problem: string | null;
      try {
        problem = rule.check(view);
      } catch (err) {
        problem = `check failed: ${errorText(err)}`;
      }
      if (problem !== null) out.push({ rule: rule.id, message: `${prefix}${problem}. Spec: "${rule.quote}"` });
    }
  }
  return out;
}

/** The ids of the broken rules only (what the audit `conformance` column stores). */
export function conformanceRuleIds(response: unknown, options: CheckConformanceOptions = {}): string[] {
  return [...new Set(checkConformance(response, options).map((v) => v.rule))];
}
