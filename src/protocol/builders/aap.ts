/**
 * AAP skill-error envelopes, both wire forms (spec/aap-errors.txt "Error payload shape",
 * "Example error payloads"; released v1.0–1.3 object form).
 */
import { AAP_CODES, AAP_ERROR_DOMAIN, AAP_ERROR_TYPE_URL, type AapCode } from '../codes/aap-codes.js';
import { BAD_REQUEST_TYPE_URL, ERROR_INFO_TYPE_URL } from '../codes/a2a-codes.js';
import { mintErrorId } from '../error-id.js';
import { isObject, retryAfterMs } from '../extract.js';
import { checkErrorId, checkMessage, jsonCopy, toCreatedAt } from './common.js';

/** AAP wire form: the 2.0 array led by ErrorInfo, or the released (v1.0–1.3) bare object. */
export type AapForm = '2.0' | 'released';

/** One validation problem in `details.errors[]` (JSON Schema 2020-12 output unit). */
export interface AapValidationError {
  /** JSON Pointer to the failing field (`/filters/year_min`). */
  instanceLocation: string;
  /** The violated constraint (`type`, `required`, `additionalProperties`, `enum`, …). */
  keyword: string;
  /** Human-readable message for that field. */
  error: string;
}

/** Options of `buildAapError`. */
export interface BuildAapErrorOptions {
  /** Wire form. */
  form: AapForm;
  /** `aap.error` message: human-readable, may reach the end user. A stack trace is refused. */
  message: string;
  /**
   * Code-specific details. Validation codes need `errors: AapValidationError[]` listing every
   * failing field; RATE_LIMITED should carry `retry_after_ms` (or `retry_after_seconds`).
   */
  details?: Record<string, unknown>;
  /** Error id; minted (`err_` + 32 hex of a UUIDv7) when absent. */
  errorId?: string;
  /** Overrides the code's retryable default (the spec allows per-instance overrides). */
  retryable?: boolean;
  /** When the error happened; default now. Emitted as RFC 3339 UTC. */
  createdAt?: Date | string | number;
  /** JSON-RPC `error.message`; defaults to `message`. A stack trace is refused. */
  jsonrpcMessage?: string;
}

/** The JSON-RPC `error` member of an AAP skill error. */
export interface AapErrorMember {
  code: number;
  message: string;
  /** 2.0: `[ErrorInfo, BadRequest?, aap.error]`; released: the bare `aap.error` object. */
  data: Record<string, unknown> | Array<Record<string, unknown>>;
}

/**
 * Builds the JSON-RPC `error` member for an AAP skill error.
 *
 * - `form: '2.0'`: `error.data` is an array: a google.rpc.ErrorInfo (`reason` = code, `domain` =
 *   autoagentprotocol.org, string metadata `code`, `error_id`, `retryable` "true"/"false",
 *   `created_at`), then for validation codes a google.rpc.BadRequest with one fieldViolation per
 *   `details.errors` entry, then the `@type`-tagged `aap.error`. JSON-RPC code from the 2.0 table.
 * - `form: 'released'`: `error.data` is the bare `aap.error` (no `@type`), with the released
 *   JSON-RPC code (RATE_LIMITED -32002, UNSUPPORTED_SKILL -32601).
 *
 * Throws TypeError (naming the option) for an unknown or legacy code, a message containing a stack
 * trace or a draft identifier, a validation code without a complete `details.errors[]`,
 * RATE_LIMITED without `details.retry_after_ms` / `retry_after_seconds`, non-JSON details, a bad
 * `createdAt` or `errorId`: what it builds passes `checkConformance`. Spec: spec/aap-errors.txt
 * "Error payload shape".
 */
export function buildAapError(code: AapCode, options: BuildAapErrorOptions): AapErrorMember {
  if (typeof code !== 'string' || !Object.hasOwn(AAP_CODES, code)) {
    throw new TypeError(`code: unknown AAP error code ${JSON.stringify(code)}`);
  }
  const info = AAP_CODES[code];
  if (info.legacy) throw new TypeError(`code: ${code} is a legacy v0.1 code; no current contract defines it`);
  const opts: Partial<BuildAapErrorOptions> = isObject(options) ? options : {};
  if (opts.form !== '2.0' && opts.form !== 'released') throw new TypeError("form must be '2.0' or 'released'");
  const message = checkMessage(opts.message, 'message')!;
  const jsonrpcMessage = checkMessage(opts.jsonrpcMessage, 'jsonrpcMessage', false) ?? message;
  const errorId = opts.errorId === undefined ? mintErrorId() : checkErrorId(opts.errorId);
  if (opts.retryable !== undefined && typeof opts.retryable !== 'boolean') throw new TypeError('retryable must be a boolean');
  const retryable = opts.retryable ?? info.retryable;
  const createdAt = toCreatedAt(opts.createdAt);
  let details: Record<string, unknown> | undefined;
  if (opts.details !== undefined) {
    if (!isObject(opts.details)) throw new TypeError('details must be an object');
    details = jsonCopy(opts.details, 'details');
  }
  const errors = checkValidationDetails(code, info.validation, details);
  if (code === 'RATE_LIMITED' && retryAfterMs(details) === null) {
    throw new TypeError(
      'details.retry_after_ms (or details.retry_after_seconds), a non-negative number, is needed for RATE_LIMITED ' +
        '(spec: "Dealer agents SHOULD include details.retry_after_ms (or details.retry_after_seconds)")',
    );
  }

  const payload: Record<string, unknown> = {
    type: 'aap.error',
    error_id: errorId,
    code,
    message,
    retryable,
    ...(details !== undefined ? { details } : {}),
    created_at: createdAt,
  };
  if (opts.form === 'released') {
    return { code: info.releasedJsonrpcCode, message: jsonrpcMessage, data: payload };
  }
  const data: Array<Record<string, unknown>> = [
    {
      '@type': ERROR_INFO_TYPE_URL,
      reason: code,
      domain: AAP_ERROR_DOMAIN,
      metadata: { code, error_id: errorId, retryable: retryable ? 'true' : 'false', created_at: createdAt },
    },
  ];
  if (errors.length > 0) {
    data.push({
      '@type': BAD_REQUEST_TYPE_URL,
      fieldViolations: errors.map((e) => ({ field: e.instanceLocation, description: `${e.keyword}: ${e.error}` })),
    });
  }
  data.push({ '@type': AAP_ERROR_TYPE_URL, ...payload });
  return { code: info.jsonrpcCode, message: jsonrpcMessage, data };
}

function checkValidationDetails(
  code: string,
  isValidation: boolean,
  details: Record<string, unknown> | undefined,
): AapValidationError[] {
  const errors = details?.errors;
  if (!isValidation) return [];
  if (!Array.isArray(errors) || errors.length === 0) {
    throw new TypeError(`details.errors must list every failing field for ${code} (spec: "details.errors[] MUST list all failing fields at once")`);
  }
  errors.forEach((e: unknown, i) => {
    if (
      !isObject(e) ||
      typeof e.instanceLocation !== 'string' ||
      typeof e.keyword !== 'string' ||
      typeof e.error !== 'string'
    ) {
      throw new TypeError(`details.errors[${i}] needs string instanceLocation, keyword and error`);
    }
    checkMessage(e.error, `details.errors[${i}].error`);
  });
  return errors as AapValidationError[];
}
