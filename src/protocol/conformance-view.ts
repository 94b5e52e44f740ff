/**
 * What a conformance rule looks at: one response object read once into a `CallView`, and the
 * types every rule module shares. Internal to the checker (the types are exported for typing).
 */
import { A2A_ERROR_DOMAIN, ERROR_INFO_TYPE_URL } from './codes/a2a-codes.js';
import { AAP_CODES, AAP_ERROR_DOMAIN, isAapCode } from './codes/aap-codes.js';
import { type JsonObject, own, ownObject, ownString } from './extract.js';
import { locateAapPayload, locateDmc12Data } from './locate.js';
import { parseResultError } from './parse-response.js';

/** How binding a rule is: the spec's keyword (MUST covers required fields and "Always" constants). */
export type ConformanceLevel = 'MUST' | 'MUST NOT' | 'SHOULD';

/** What the checker knows about the exchange beyond the response body (all optional). */
export interface CallContext {
  /** The call's protocol family when known (enables "-32000 without payload on an AAP call"). */
  family?: 'aap' | 'dmc12';
  /** HTTP status the body came with (enables the DMC-12 "HTTP 200 … except auth failures … HTTP 401" rule). */
  httpStatus?: number;
  /** The AAP error form the endpoint serves (released ≤ 1.3, or 2.0); enables `aap.form-matches-endpoint`. */
  form?: '2.0' | 'released';
}

/** What a rule looks at, prepared once per call (internal to the checks; exported for typing). */
export interface CallView {
  response: JsonObject;
  error: JsonObject | null;
  jsonrpcCode: unknown;
  /** The AAP wire form the error uses, when it carries AAP content. */
  aapForm: '2.0' | 'released' | null;
  dataArray: unknown[] | null;
  /** The aap.error payload (2.0: the entry with the AAP `@type`; released: `error.data`). */
  payload: JsonObject | null;
  /** The AAP ErrorInfo: domain autoagentprotocol.org, else one whose reason is an AAP code. */
  aapInfo: JsonObject | null;
  /** The DMC-12 error object (`result.data`, or an `error.data` with `error_code`). */
  dmc12: JsonObject | null;
  /** True when `dmc12` came in a JSON-RPC `error` member rather than a successful result. */
  dmc12InError: boolean;
  taskFailed: boolean;
  family: 'aap' | 'dmc12' | undefined;
  httpStatus: number | undefined;
  endpointForm: '2.0' | 'released' | undefined;
}

/**
 * A conformance rule: data (id, level, source, quote) and its check, which returns what is wrong
 * with one call, or null. A rule about the body as a whole (an empty batch) has `checkBody`
 * instead; its `check` always returns null.
 */
export interface ConformanceRule {
  /** Stable id (`aap.errorinfo-leads`); the audit `conformance` column stores these. */
  id: string;
  /** MUST, MUST NOT or SHOULD, as the sentence says. */
  level: ConformanceLevel;
  /** Where the rule is stated. */
  source: string;
  /** The sentence it enforces, verbatim. */
  quote: string;
  check: (v: CallView) => string | null;
  checkBody?: (body: unknown) => string | null;
}

export const AAP_SPEC = 'AAP "Errors" page';
export const DMC_SPEC = 'DMC-12 "Error taxonomy" page';

/** The 12 current AAP codes (legacy v0.1 AUTH_REQUIRED excluded). */
export const isCurrentAapCode = (code: unknown): boolean => isAapCode(code) && !AAP_CODES[code].legacy;

export const isErrorInfo = (e: unknown): e is JsonObject => own(e, '@type') === ERROR_INFO_TYPE_URL;

/** The ErrorInfo entries of the view's `error.data` array. */
export const errorInfos = (v: CallView): JsonObject[] => (v.dataArray ?? []).filter(isErrorInfo);

/** The -32008 ErrorInfo (domain a2a-protocol.org, reason EXTENSION_SUPPORT_REQUIRED), if any. */
export function extensionInfoOf(v: CallView): JsonObject | undefined {
  return errorInfos(v).find((i) => own(i, 'domain') === A2A_ERROR_DOMAIN && own(i, 'reason') === 'EXTENSION_SUPPORT_REQUIRED');
}

/** `metadata.extensionUri` of the -32008 ErrorInfo; null when absent or not a string. */
export function extensionUriOf(v: CallView): string | null {
  return ownString(ownObject(extensionInfoOf(v), 'metadata'), 'extensionUri');
}

/** Reads one response object into the view every rule shares. */
export function viewOf(response: JsonObject, context: CallContext = {}): CallView {
  const error = ownObject(response, 'error');
  const data = own(error, 'data');
  const dataArray = Array.isArray(data) ? data : null;
  const located = locateAapPayload(error);
  const payload = located?.payload ?? null;
  const infos = dataArray?.filter(isErrorInfo) ?? [];
  const aapInfo =
    infos.find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) ?? infos.find((i) => isAapCode(own(i, 'reason'))) ?? null;
  const aapForm: CallView['aapForm'] = located?.form ?? (dataArray && aapInfo ? '2.0' : null);
  const result = own(response, 'result');
  const dmc12 = locateDmc12Data(response);
  const hidden = error ? null : parseResultError(result);
  return {
    response,
    error,
    jsonrpcCode: own(error, 'code'),
    aapForm,
    dataArray,
    payload,
    aapInfo,
    dmc12: dmc12?.data ?? null,
    dmc12InError: dmc12?.inError ?? false,
    taskFailed: hidden?.form === 'task-failed' && hidden.protocol !== 'aap',
    family: context.family,
    httpStatus: typeof context.httpStatus === 'number' ? context.httpStatus : undefined,
    endpointForm: context.form === '2.0' || context.form === 'released' ? context.form : undefined,
  };
}
