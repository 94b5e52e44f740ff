/**
 * `AapError`: what dealer skill code throws for a skill-level failure. The instrumentation turns
 * whatever @a2a-js/sdk made of it into the conformant envelope with `toAapErrorMember`.
 */
import { AAP_CODES, type AapCode } from './codes/aap-codes.js';
import { mintErrorId } from './error-id.js';
import { type AapErrorMember, type AapForm, buildAapError } from './builders/aap.js';
import { checkErrorId, checkMessage, jsonCopy, toCreatedAt } from './builders/common.js';
import { AAP_ERROR_CREATED } from './aap-error-created.js';

const BRAND = Symbol.for('aap-triage.AapError');

/** Options of the `AapError` constructor. */
export interface AapErrorOptions {
  /** Code-specific details (validation codes: `errors[]` with every failing field). */
  details?: Record<string, unknown>;
  /** Overrides the code's retryable default. */
  retryable?: boolean;
  /** Error id; minted (`err_` + 32 hex of a UUIDv7) when absent. */
  errorId?: string;
  /** When the error happened; default: construction time. */
  createdAt?: Date | string | number;
  /** The underlying cause (kept on `Error.cause`, never put on the wire). */
  cause?: unknown;
}

/**
 * A typed AAP skill error (spec/aap-errors.txt "Error payload shape").
 *
 * `message` (the Error message, for logs) is `"<code>: <aapMessage>"`; `aapMessage` is what goes
 * on the wire. The constructor throws TypeError for an unknown or legacy code, a non-boolean
 * retryable, or an `aapMessage` containing a stack trace. Validation details are checked when the
 * envelope is built (`toAapErrorMember`).
 *
 * Printed (`util.inspect`, `console.error`, `String(err)`, `JSON.stringify`), it shows only its
 * code, error id and message; `details` and the cause stay off every log.
 */
export class AapError extends Error {
  /** The AAP code (`VEHICLE_NOT_FOUND`). */
  readonly code: AapCode;
  /** The human-readable `aap.error.message` sent to the buyer. */
  readonly aapMessage: string;
  /** Code-specific details (a JSON copy of what was passed). */
  readonly details: Record<string, unknown> | undefined;
  /** The value sent on the wire: the option, else the code's default. */
  readonly retryable: boolean;
  /** The `error_id` sent on the wire. */
  readonly errorId: string;
  /** `created_at`, RFC 3339 UTC. */
  readonly createdAt: string;

  constructor(code: AapCode, aapMessage: string, opts?: AapErrorOptions) {
    const options: AapErrorOptions = opts ?? {};
    if (typeof code !== 'string' || !Object.hasOwn(AAP_CODES, code) || AAP_CODES[code].legacy) {
      throw new TypeError(`code: unknown AAP error code ${JSON.stringify(code)}`);
    }
    checkMessage(aapMessage, 'aapMessage');
    super(`${code}: ${aapMessage}`, options.cause !== undefined ? { cause: options.cause } : undefined);
    if (options.retryable !== undefined && typeof options.retryable !== 'boolean') {
      throw new TypeError('retryable must be a boolean');
    }
    this.name = 'AapError';
    this.code = code;
    this.aapMessage = aapMessage;
    this.details = options.details === undefined ? undefined : jsonCopy(options.details, 'details');
    this.retryable = options.retryable ?? AAP_CODES[code].retryable;
    this.errorId = options.errorId === undefined ? mintErrorId() : checkErrorId(options.errorId);
    this.createdAt = toCreatedAt(options.createdAt);
    Object.defineProperty(this, BRAND, { value: true });
    // Details may hold what the customer sent (a validation echo, a note): kept for the envelope
    // builder, but not enumerable, so a logger's error serialiser never walks into them.
    Object.defineProperty(this, 'details', { enumerable: false });
    // Lets an instrumentation that is handling the current request correlate this instance with
    // what the server sends for it (aap-triage's server instrumentation installs the hook). Kept
    // as a global symbol so protocol stays import-free and does no I/O.
    const created = (globalThis as unknown as Record<symbol, unknown>)[AAP_ERROR_CREATED];
    if (typeof created === 'function') (created as (error: AapError) => void)(this);
  }
}

/** What `util.inspect`, `console.error`, template strings and `JSON.stringify` show of an `AapError`. */
function aapErrorText(error: AapError): string {
  return `AapError [${error.code}] ${error.errorId}: ${error.aapMessage}`;
}

Object.defineProperties(AapError.prototype, {
  /**
   * Only the code, error id and message: @a2a-js/sdk prints a thrown error with `console.error`,
   * and the default inspection would print `details`, the cause and every own property (issue 16).
   */
  [Symbol.for('nodejs.util.inspect.custom')]: {
    value(this: AapError): string {
      return aapErrorText(this);
    },
  },
  toString: {
    value(this: AapError): string {
      return aapErrorText(this);
    },
  },
  /** `{ name, code, error_id, message }` for `JSON.stringify`. */
  toJSON: {
    value(this: AapError): { name: string; code: string; error_id: string; message: string } {
      return { name: 'AapError', code: this.code, error_id: this.errorId, message: this.aapMessage };
    },
  },
});

/** True for an `AapError`, also one created by another copy of this package. */
export function isAapError(value: unknown): value is AapError {
  return typeof value === 'object' && value !== null && (value instanceof AapError || BRAND in value);
}

/**
 * The JSON-RPC `error` member for an `AapError` in the given wire form (see `buildAapError`).
 * Throws TypeError when the error's details break the builder's rules (validation codes without
 * a complete `details.errors[]`).
 */
export function toAapErrorMember(error: AapError, form: AapForm, jsonrpcMessage?: string): AapErrorMember {
  return buildAapError(error.code, {
    form,
    message: error.aapMessage,
    ...(error.details !== undefined ? { details: error.details } : {}),
    errorId: error.errorId,
    retryable: error.retryable,
    createdAt: error.createdAt,
    ...(jsonrpcMessage !== undefined ? { jsonrpcMessage } : {}),
  });
}
