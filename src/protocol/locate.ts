/**
 * Where the typed errors sit in a JSON-RPC response, found one way for every reader (the parser,
 * the conformance checker, the probe): the AAP payload of an `error` member, and the DMC-12 error
 * object of a result (or, misplaced, of an `error` member). Pure; never throw.
 */
import { AAP_ERROR_TYPE_URL, isAapCode } from './codes/aap-codes.js';
import { type JsonObject, isObject, own, ownObject } from './extract.js';

/** The typed `aap.error` of an error member and the form it came in. */
export interface LocatedAapPayload {
  payload: JsonObject;
  /** `2.0`: the `@type`-tagged entry of the `error.data` array; `released`: `error.data` itself. */
  form: '2.0' | 'released';
}

/**
 * The AAP payload of a JSON-RPC `error` member: in a 2.0 `error.data` array the entry whose
 * `@type` is the AAP type URL (never by position); else a released `error.data` object with
 * `type: "aap.error"`, the AAP `@type`, or, having lost both, an AAP `code`. Null when none.
 */
export function locateAapPayload(error: unknown): LocatedAapPayload | null {
  const data = own(error, 'data');
  if (Array.isArray(data)) {
    const payload = data.find((e) => own(e, '@type') === AAP_ERROR_TYPE_URL);
    return isObject(payload) ? { payload, form: '2.0' } : null;
  }
  if (!isObject(data)) return null;
  return own(data, 'type') === 'aap.error' || own(data, '@type') === AAP_ERROR_TYPE_URL || isAapCode(own(data, 'code')) ? { payload: data, form: 'released' } : null;
}

/** A DMC-12 error object: `{error, error_code, retryable, error_id, message?}` or its legacy-only form. */
const isDmc12Data = (data: unknown): data is JsonObject => isObject(data) && (Object.hasOwn(data, 'error_code') || typeof data.error === 'string');

/** The DMC-12 error object of a response and where it was. */
export interface LocatedDmc12Data {
  data: JsonObject;
  /** True when it came in a JSON-RPC `error` member instead of `result.data` (DMC-12 forbids that). */
  inError: boolean;
}

/**
 * The DMC-12 error of a response: `result.data` with an `error_code` or a legacy `error` string
 * (spec/dmc12-errors.txt "The envelope"), else an `error.data` object with an `error_code` that
 * is no AAP payload. Null when none.
 */
export function locateDmc12Data(response: unknown): LocatedDmc12Data | null {
  const resultData = ownObject(own(response, 'result'), 'data');
  if (isDmc12Data(resultData)) return { data: resultData, inError: false };
  const error = own(response, 'error');
  const data = own(error, 'data');
  return isObject(data) && Object.hasOwn(data, 'error_code') && locateAapPayload(error) === null ? { data, inError: true } : null;
}
