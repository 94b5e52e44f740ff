/**
 * DMC-12 tool errors: the `result` member `{ data, _metadata }` returned inside a successful
 * JSON-RPC response (spec/dmc12-errors.txt "The envelope"; reference dmc12-error.schema.json).
 */
import { DMC12_CODES, type Dmc12Code, documentedDmc12CodeForLegacy } from '../codes/dmc12-codes.js';
import { ERROR_ID_PATTERN, mintErrorId, uuidv7Hex } from '../error-id.js';
import { isObject } from '../extract.js';
import { checkMessage } from './common.js';

/** Options of `buildDmc12Error`. */
export interface BuildDmc12ErrorOptions {
  /** Tool name for `_metadata.tool` (`create_reservation`). Required. */
  tool: string;
  /**
   * Legacy `error` string, kept byte-for-byte; default: the string DMC-12's reference examples
   * give for the code (`vin_already_reserved` for RESERVATION_CONFLICT, `vehicle_not_available`
   * for VEHICLE_UNAVAILABLE), else the code in lower case (`DMC12_CODES[code].defaultLegacyError`).
   */
  legacyError?: string;
  /** Optional human-readable, non-sensitive `message`. A stack trace is refused. */
  message?: string;
  /** `err_` + 32 lowercase hex; minted (UUIDv7) when absent. */
  errorId?: string;
  /** `_metadata.trace_id` (`trc_…`); minted as `trc_` + 32 hex when absent. */
  traceId?: string;
  /** `_metadata.protocol`; default `a2a` (the rail the envelope rides). */
  protocol?: string;
}

/** The `result` member of a DMC-12 tool error. */
export interface Dmc12ErrorResult {
  data: {
    error: string;
    message?: string;
    error_code: Dmc12Code;
    retryable: boolean;
    error_id: string;
  };
  _metadata: { trace_id: string; tool: string; protocol: string };
}

/**
 * Builds the DMC-12 error `result`: `data = {error, message?, error_code, retryable, error_id}`
 * with `retryable` fixed by the code, and `_metadata = {trace_id, tool, protocol}`.
 *
 * Throws TypeError (naming the option) for an unknown code, a missing tool, an `errorId` that is
 * not `err_` + 32 lowercase hex, a `traceId` not starting `trc_`, a message with a stack trace, or a
 * `legacyError` the reference data pairs with another code (`DMC12_DOCUMENTED_LEGACY_PAIRS`).
 */
export function buildDmc12Error(code: Dmc12Code, options: BuildDmc12ErrorOptions): Dmc12ErrorResult {
  if (typeof code !== 'string' || !Object.hasOwn(DMC12_CODES, code)) {
    throw new TypeError(`code: unknown DMC-12 error code ${JSON.stringify(code)}`);
  }
  const opts: Partial<BuildDmc12ErrorOptions> = isObject(options) ? options : {};
  if (typeof opts.tool !== 'string' || !/^[A-Za-z0-9_.:/-]{1,128}$/.test(opts.tool)) {
    throw new TypeError('tool must be the tool name (letters, digits, _ . : / -)');
  }
  if (opts.legacyError !== undefined && (typeof opts.legacyError !== 'string' || opts.legacyError.length === 0)) {
    throw new TypeError('legacyError must be a non-empty string');
  }
  const documented = opts.legacyError === undefined ? undefined : documentedDmc12CodeForLegacy(opts.legacyError);
  if (documented !== undefined && documented !== code) {
    throw new TypeError(`legacyError ${JSON.stringify(opts.legacyError)} is documented as ${documented}, not ${code}`);
  }
  const message = checkMessage(opts.message, 'message', false);
  if (opts.errorId !== undefined && (typeof opts.errorId !== 'string' || !ERROR_ID_PATTERN.test(opts.errorId))) {
    throw new TypeError('errorId must be err_ followed by 32 lowercase hex digits');
  }
  if (opts.traceId !== undefined && (typeof opts.traceId !== 'string' || !/^trc_[\x21-\x7e]{1,124}$/.test(opts.traceId))) {
    throw new TypeError('traceId must start with trc_');
  }
  if (opts.protocol !== undefined && (typeof opts.protocol !== 'string' || opts.protocol.length === 0)) {
    throw new TypeError('protocol must be a non-empty string');
  }
  const info = DMC12_CODES[code];
  return {
    data: {
      error: opts.legacyError ?? info.defaultLegacyError,
      ...(message !== undefined ? { message } : {}),
      error_code: code,
      retryable: info.retryable,
      error_id: opts.errorId ?? mintErrorId(),
    },
    _metadata: {
      trace_id: opts.traceId ?? `trc_${uuidv7Hex()}`,
      tool: opts.tool,
      protocol: opts.protocol ?? 'a2a',
    },
  };
}
