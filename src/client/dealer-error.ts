/**
 * `DealerAgentError`: one error a dealer agent sent, with everything the envelope carried —
 * kept before any SDK turns it into a lossy exception (aap-errors.txt "SDK error handling":
 * "retain the numeric code, locate the typed AAP detail, and recover all validation and retry
 * information").
 */
import type { ErrorProtocol, ParsedError, Violation, WireForm } from '../protocol/index.js';
import { incidentReport, type BuyerIncidentReport, type IncidentReportOptions } from './incident-report.js';
import { attemptRecordOf, type AttemptRecord, type StopReason } from './attempt.js';

/** Fields a `DealerAgentError` is built from: the protocol parser's `ParsedError` plus what the HTTP exchange adds. */
export interface DealerAgentErrorInit {
  parsed: ParsedError;
  /** The raw JSON-RPC response object of this call (the batch entry for a batch), as received. */
  envelope: unknown;
  /** W3C trace id from the `traceresponse` header (32 hex), or null. */
  w3cTraceId: string | null;
  /** HTTP status of the response. */
  httpStatus: number;
  /** JSON-RPC id of the call, as sent. */
  requestId: string | number | null;
  /** JSON-RPC method of the call (`SendMessage`, `tools/call`), or null when unknown. */
  rpcMethod: string | null;
  /** AAP skill or DMC-12 tool of the call, or null. */
  skill: string | null;
  /** Attempt number the call was sent as, or null outside `withRetries`. */
  attempt: number | null;
  /** The wait the HTTP `Retry-After` header asked for, ms (retry-after.ts); null or absent when none. */
  retryAfterHeaderMs?: number | null;
}

/**
 * An error a dealer agent answered with: a JSON-RPC error (AAP 2.0 array or released object form,
 * A2A protocol error, plain JSON-RPC) or a DMC-12 error inside a successful result.
 *
 * After `withRetries` gives up, `attempts` lists every attempt (code, error_id, trace_id) and
 * `summary()` renders them for the operator (dmc12-errors.txt: "surface to an operator with the
 * error_id + trace_id").
 */
export class DealerAgentError extends Error {
  override readonly name = 'DealerAgentError';
  /** Protocol family: `aap` | `a2a` | `dmc12` | `jsonrpc`. */
  readonly protocol: ErrorProtocol;
  /** Wire form the envelope came in (`aap-2.0`, `aap-released`, `dmc12`, …). */
  readonly form: WireForm;
  /** Domain code (AAP / DMC-12 code, A2A reason) or the JSON-RPC code as a string. Branch on this. */
  readonly code: string;
  /** JSON-RPC error code; null for DMC-12 errors inside a successful result. */
  readonly jsonrpcCode: number | null;
  /** `retryable` as the dealer sent it; null when the envelope lost it (never defaulted from a table). */
  readonly retryable: boolean | null;
  /** The dealer's `error_id`, to quote in an incident report; null when none was sent. */
  readonly errorId: string | null;
  /** W3C trace id (`traceresponse`), else the DMC-12 `_metadata.trace_id` (`trc_…`); null when neither. */
  readonly traceId: string | null;
  /** DMC-12 `_metadata.trace_id` (`trc_…`) as sent; null when none. */
  readonly upstreamTraceId: string | null;
  /**
   * Server-requested wait, milliseconds: the longest of the payload's `retry_after_ms` (or
   * `retry_after_seconds` × 1000) and the HTTP `Retry-After` header (seconds or a date); null when
   * none. `withRetries` never waits less.
   */
  readonly retryAfterMs: number | null;
  /** Validation problems: JSON pointer (as the dealer sent it) + JSON Schema keyword. */
  readonly violations: readonly Violation[];
  /** The raw JSON-RPC response object for this call, exactly as parsed from the body. */
  readonly envelope: unknown;
  /** HTTP status of the response. */
  readonly httpStatus: number;
  /** JSON-RPC id of the call. */
  readonly requestId: string | number | null;
  /** JSON-RPC method of the call, when the request body was readable. */
  readonly rpcMethod: string | null;
  /** AAP skill or DMC-12 tool of the call, when known. */
  readonly skill: string | null;
  /** Attempt number this error answered (null outside `withRetries`). */
  readonly attempt: number | null;
  /** Every attempt of the call, filled in by `withRetries` when it stops (empty otherwise). */
  attempts: AttemptRecord[] = [];
  /** Why `withRetries` stopped retrying; null outside `withRetries`. */
  stopReason: StopReason | null = null;

  constructor(init: DealerAgentErrorInit) {
    const p = init.parsed;
    const traceId = init.w3cTraceId ?? p.upstreamTraceId;
    // The message holds codes and ids only: the dealer's message text may echo the caller's
    // input (DMC-12 validation messages do), and error messages end up in logs.
    super(
      `${p.protocol} error ${p.code}` +
        (p.jsonrpcCode !== null ? ` (JSON-RPC ${p.jsonrpcCode})` : '') +
        (p.errorId !== null ? ` error_id=${p.errorId}` : '') +
        (traceId !== null ? ` trace_id=${traceId}` : ''),
    );
    this.protocol = p.protocol;
    this.form = p.form;
    this.code = p.code;
    this.jsonrpcCode = p.jsonrpcCode;
    this.retryable = p.retryable;
    this.errorId = p.errorId;
    this.traceId = traceId;
    this.upstreamTraceId = p.upstreamTraceId;
    const header = init.retryAfterHeaderMs ?? null;
    this.retryAfterMs = p.retryAfterMs === null ? header : header === null ? p.retryAfterMs : Math.max(p.retryAfterMs, header);
    this.violations = p.violations.map((v) => ({ location: v.location, keyword: v.keyword }));
    this.envelope = init.envelope;
    this.httpStatus = init.httpStatus;
    this.requestId = init.requestId;
    this.rpcMethod = init.rpcMethod;
    this.skill = init.skill;
    this.attempt = init.attempt;
  }

  /** The dealer's human-readable message from the envelope (may echo request values: do not log it). */
  get serverMessage(): string | null {
    const env = this.envelope as { error?: { message?: unknown }; result?: { data?: { message?: unknown } } } | null;
    const m = env?.error?.message ?? env?.result?.data?.message;
    return typeof m === 'string' ? m : null;
  }

  /**
   * Operator summary, plain text: code, protocol, attempts, stop reason, then one line per attempt
   * with its error_id and trace_id. Codes and ids only, no message text, so it can be pasted into
   * an incident email as is.
   */
  summary(): string {
    const attempts = this.attempts.length > 0 ? this.attempts : [this.asAttemptRecord(this.attempt ?? 1, Date.now())];
    const head =
      `${this.code} (${this.protocol}` +
      (this.jsonrpcCode !== null ? `, JSON-RPC ${this.jsonrpcCode}` : '') +
      `${this.skill !== null ? `, ${this.skill}` : ''}) after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}` +
      (this.stopReason !== null ? `; stopped: ${this.stopReason}` : '');
    const lines = attempts.map(
      (a) =>
        `  attempt ${a.attempt} at ${new Date(a.startedAt).toISOString()}: ${a.code}` +
        ` error_id=${a.errorId ?? '-'} trace_id=${a.traceId ?? '-'}` +
        (a.retryAfterMs !== null ? ` retry_after_ms=${a.retryAfterMs}` : '') +
        (a.delayMs !== null ? ` waited_ms=${a.delayMs}` : ''),
    );
    return [head, ...lines].join('\n');
  }

  /**
   * The incident report for the dealer's support address (text; `incidentReportEml` for the
   * .eml): code, retryable, error_id, trace_id, upstream trace id, time and every attempt; no
   * request value, no message text. See incident-report.ts and docs/client.md.
   */
  incidentReport(options: IncidentReportOptions = {}): BuyerIncidentReport {
    return incidentReport(this, options);
  }

  /** This error as one attempt record (used by `withRetries`). */
  asAttemptRecord(attempt: number, startedAt: number): AttemptRecord {
    return attemptRecordOf(this, attempt, startedAt);
  }
}

/** Type guard for `DealerAgentError`. */
export function isDealerAgentError(value: unknown): value is DealerAgentError {
  return value instanceof DealerAgentError;
}
