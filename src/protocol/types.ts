import type { ErrorProtocol, Violation } from './error-event.js';

/**
 * One entry of a code table (AAP, A2A, JSON-RPC, DMC-12). Data only; see `codes/*.ts`.
 */
export interface CodeInfo {
  /** The code exactly as the spec spells it (`RATE_LIMITED`, `EXTENSION_SUPPORT_REQUIRED`, `-32700`). */
  code: string;
  protocol: ErrorProtocol;
  /** One-line meaning, from the spec. */
  meaning: string;
  /** JSON-RPC code (for AAP: the 2.0 form; see `AapCodeInfo.releasedJsonrpcCode`). Null for DMC-12 result errors. */
  jsonrpcCode: number | null;
  /** Retryable default (AAP: a default the dealer may override; DMC-12: fixed by the code). */
  retryable: boolean;
  /** Recommended client action in one line (fix the payload, re-quote, pick another VIN, back off…). */
  clientAction: string;
  /** Where the spec says so (`spec/aap-errors.txt "Error code reference"`). */
  specSection: string;
}

/** Wire form of an error envelope as parsed. */
export type WireForm =
  | 'aap-2.0' // error.data array with ErrorInfo + typed aap.error
  | 'aap-released' // v1.0–1.3: bare aap.error object in error.data
  | 'errorinfo-only' // error.data array with an ErrorInfo but no typed payload
  | 'a2a' // A2A protocol error (own shape)
  | 'jsonrpc' // plain {code, message}
  | 'dmc12' // error inside a successful DMC-12 result
  | 'dmc12-legacy' // DMC-12 legacy `error` string only
  | 'task-failed'; // skill failure hidden as a failed task in a successful result

/** The normalised error of one JSON-RPC call, as `parseResponse` returns it. */
export interface ParsedError {
  protocol: ErrorProtocol;
  form: WireForm;
  /** Domain code (AAP / DMC-12 code, A2A reason) or the JSON-RPC code as a string. */
  code: string;
  /** JSON-RPC error code; null for errors inside a successful result. */
  jsonrpcCode: number | null;
  /**
   * Null when the envelope lost it; never defaulted from a table — except DMC-12, where the code
   * fixes it (spec/dmc12-errors.txt: "retryable is true only for the three transient classes").
   */
  retryable: boolean | null;
  errorId: string | null;
  /** Milliseconds; from `retry_after_ms` or `retry_after_seconds` × 1000. */
  retryAfterMs: number | null;
  /** From validation details; locations are the raw JSON pointers (sanitised by the audit layer). */
  violations: Violation[];
  /** DMC-12 `_metadata.trace_id` (`trc_…`). */
  upstreamTraceId: string | null;
  /** DMC-12 legacy `error` string, byte-for-byte. */
  legacyError?: string | null;
}

/** One call's outcome in a response body. `id` is the JSON-RPC id as sent (1 and "1" differ). */
export interface CallOutcome {
  id: string | number | null;
  ok: boolean;
  error?: ParsedError;
}

/** An AAP `aap.error` code entry: `jsonrpcCode` is the 2.0 form's, `releasedJsonrpcCode` v1.0–1.3's. */
export interface AapCodeInfo extends CodeInfo {
  protocol: 'aap';
  jsonrpcCode: number;
  /** JSON-RPC code of the released form (v1.0–1.3): RATE_LIMITED -32002, UNSUPPORTED_SKILL -32601. */
  releasedJsonrpcCode: number;
  /** True for codes no current contract defines (v0.1's AUTH_REQUIRED); parsed, never built. */
  legacy: boolean;
  /** True for validation codes, whose `details.errors[]` lists every failing field. */
  validation: boolean;
}

/** An A2A protocol error (-32001 … -32009); `code` is the google.rpc.ErrorInfo `reason`. */
export interface A2AErrorInfo extends CodeInfo {
  protocol: 'a2a';
  jsonrpcCode: number;
  /** The A2A error name (`ExtensionSupportRequiredError`). */
  errorName: string;
}

/** A DMC-12 `error_code` entry; `retryable` is fixed by the code, not a default. */
export interface Dmc12CodeInfo extends CodeInfo {
  protocol: 'dmc12';
  jsonrpcCode: null;
  /** Known legacy `error` strings that map to this code (byte-for-byte, as servers send them). */
  legacyErrors: readonly string[];
  /**
   * The legacy `error` string `buildDmc12Error` writes when none is given: the one DMC-12's
   * reference examples give for the code (`vin_already_reserved` for RESERVATION_CONFLICT), else
   * the code in lower case.
   */
  defaultLegacyError: string;
}
