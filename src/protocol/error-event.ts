/**
 * The one normalised record of an error a dealer agent sent (DESIGN §2, §5).
 *
 * Built once from the wire by the instrumentation's classifier; the span, metric, log, retry
 * tracker and audit writer all read it and none of them re-parses an envelope. Field names are
 * the audit store's column names (DESIGN §5), so `aap-triage search --json` prints exactly these.
 *
 * Every field is PII-free by construction: a code, a number, a time, an id the server minted, a
 * keyed pseudonym (already HMAC'd when the event is built), or a sanitised JSON pointer. Never a
 * value the caller sent and never a message text.
 */
export interface ErrorEvent {
  /** `err_` + 32 lowercase hex, the id the caller received (minted time-ordered when absent). */
  error_id: string;
  /** When the response was sent, epoch milliseconds. */
  occurred_at: number;
  /** W3C trace id (32 lowercase hex) of the server span; null without a valid span context. */
  trace_id: string | null;
  /** W3C span id (16 lowercase hex) of the server span; null without a valid span context. */
  span_id: string | null;
  /** DMC-12 `result._metadata.trace_id` (`trc_…`), when present. */
  upstream_trace_id: string | null;
  /** `service.name` of the dealer agent that answered. */
  service: string;
  /** Protocol family of the error. */
  protocol: ErrorProtocol;
  /** Wire form / version: AAP `2.0` | `released`; A2A `1.0`; DMC-12 `v0.3` | `legacy`; JSON-RPC `2.0`. */
  protocol_version: string | null;
  /** JSON-RPC method as allow-listed (`_OTHER` for unknown methods). */
  rpc_method: string;
  /** AAP skill (`inventory.search`) or DMC-12 tool (`create_reservation`), when known. */
  skill: string | null;
  /** Domain code: AAP / DMC-12 code, A2A reason, or the JSON-RPC code as a string. */
  code: string;
  /** DMC-12 legacy `error` string, only when it matches `^[a-z0-9_]{1,64}$`. */
  legacy_error: string | null;
  /** Numeric JSON-RPC error code; null for DMC-12 errors inside a successful result. */
  jsonrpc_code: number | null;
  /** HTTP status of the response. */
  http_status: number | null;
  /** `retryable` as the wire said it; null when the envelope lost it (never defaulted). */
  retryable: boolean | null;
  /** Retry hint in milliseconds (`retry_after_ms`, or `retry_after_seconds` × 1000). */
  retry_after_ms: number | null;
  /** Keyed pseudonym of the caller's credential. */
  client: string | null;
  /** Keyed pseudonym of the canonicalised call (method, skill/tool, params; no JSON-RPC id, no messageId). */
  fingerprint: string | null;
  /** Keyed pseudonym of the request's `idempotency_key`. */
  idempotency: string | null;
  /** Keyed pseudonym of the customer's normalised email or phone. */
  subject: string | null;
  /** 1 for a first attempt, n for the (n-1)th retry (DESIGN §6). */
  attempt: number;
  /** Retry flags: `retried_non_retryable`, `ignored_retry_after`, `no_backoff`. */
  retry_flags: RetryFlag[];
  /** Validation problems: sanitised JSON pointer + JSON Schema keyword. */
  violations: Violation[];
  /** Ids of the conformance rules the envelope breaks. */
  conformance: string[];
  /** Server-side duration of the call, milliseconds. */
  duration_ms: number | null;
  /** Id of the pseudonymisation key used for client/fingerprint/idempotency/subject. */
  key_id: string | null;
  /**
   * The second subject pseudonym when the request held both an email (`subject`) and a phone
   * (`subject_alt`), so erasure by either finds the row. Absent or null otherwise.
   */
  subject_alt?: string | null;
  /**
   * Who sent the call when it was not a buyer: `probe` for `aap-triage probe` (it names itself
   * `aap-triage-probe/<version>` in User-Agent; src/instrument/exchange/origin.ts). Absent or null for
   * ordinary traffic. Views leave probe rows out unless asked (docs/probe.md).
   */
  origin?: EventOrigin | null;
  /**
   * The dealer service's own deployed version (issue 29): its OpenTelemetry resource's
   * `service.version`, else the `serviceVersion` option; never a caller's value. Bounded by
   * `SAFE_SERVICE_VERSION` (value-patterns.ts). Absent or null when the dealer names none.
   */
  service_version?: string | null;
  /**
   * Issue group key (src/audit/issue-key.ts). Computed by the audit store from the other fields
   * when the row is written (whatever the event carried); present on rows read back.
   */
  issue_key?: string | null;
}

/** Where a call came from when it was not a buyer's: `probe` = `aap-triage probe` (docs/probe.md). */
export type EventOrigin = 'probe';

/**
 * The product token `aap-triage probe` sends as its User-Agent, `aap-triage-probe/<version>`
 * (RFC 9110 §10.1.5), by which the instrumentation knows a probe call.
 */
export const PROBE_PRODUCT = 'aap-triage-probe';

/** Protocol family (DESIGN §1). */
export type ErrorProtocol = 'aap' | 'a2a' | 'dmc12' | 'jsonrpc';

/** Retry flags (DESIGN §6). */
export type RetryFlag = 'retried_non_retryable' | 'ignored_retry_after' | 'no_backoff';

/** All retry flags, in display order. */
export const RETRY_FLAGS: readonly RetryFlag[] = ['retried_non_retryable', 'ignored_retry_after', 'no_backoff'];

/** One validation problem: where (JSON pointer) and which JSON Schema keyword failed. */
export interface Violation {
  location: string;
  keyword: string;
}

/**
 * Per-minute request counters, the denominator for rates and storms (DESIGN §5 `traffic`).
 * Rows with the same key are added together by the store.
 */
export interface TrafficSample {
  /** Start of the minute, epoch milliseconds (a multiple of 60 000). */
  minute: number;
  service: string;
  /** Skill or tool; empty string when unknown (part of the primary key, so never null). */
  skill: string;
  /** Client pseudonym; empty string when the caller sent no credential. */
  client: string;
  /** Every JSON-RPC call, first attempts and retries. */
  requests: number;
  /** Calls answered with an error. */
  errors: number;
  /** Calls whose attempt was > 1. */
  retries: number;
}
