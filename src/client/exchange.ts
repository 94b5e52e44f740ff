/**
 * One HTTP exchange as the adapter sees it: the calls of the request (with their spans), the
 * replies paired with them by id (protocol's `matchBatch`), and the `DealerAgentError`s built
 * from the replies' envelopes (protocol's parser), recorded for the call scope, `onError` and
 * `dealerErrorsOf`. Internal except `dealerErrorsOf` and `traceIdFromTraceresponse`.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { HEADER_TRACERESPONSE } from '../protocol/index.js';
import type { CallScope } from './call-scope.js';
import { DealerAgentError } from './dealer-error.js';
import { isParseFailure, matchBatch, parseResponse, readJsonBody } from '../protocol/index.js';
import type { CallOutcome, RequestCall } from '../protocol/index.js';
import { retryAfterOfHeaders } from './retry-after.js';
import { endCall } from './telemetry.js';
import type { ClientTelemetry } from './telemetry.js';
import type { AapFetchOptions } from './types.js';

const registry = new WeakMap<Response, readonly DealerAgentError[]>();

/**
 * The dealer errors `createAapFetch` found in a response it returned (empty for a success, for a
 * response it could not read, and for a response it did not see). For SSE responses the list
 * fills in as events arrive.
 */
export function dealerErrorsOf(response: Response): readonly DealerAgentError[] {
  return registry.get(response) ?? [];
}

const TRACERESPONSE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);

/** Trace id of a W3C `traceresponse` header value (Trace Context Level 2); null when absent, malformed or all-zero. */
export function traceIdFromTraceresponse(value: string | null): string | null {
  if (value === null) return null;
  const m = TRACERESPONSE.exec(value.trim().toLowerCase());
  const id = m?.[1];
  return id !== undefined && id !== ZERO_TRACE ? id : null;
}

/** A call that expects a reply, with its client span. */
export interface OpenCall {
  call: RequestCall;
  span: Span;
  attrs: Attributes;
  done: boolean;
}

/** Per-fetch state handed from the send half to the inspect half. */
export interface Exchange {
  /** Request body text, when readable (for `matchBatch`). */
  requestText: string | null;
  /** Calls expecting a reply, in request order (the order `matchBatch` returns them in). */
  calls: OpenCall[];
  startedAt: number;
  attempt: number | null;
  scope: CallScope | undefined;
}

/** One reply paired with the call it answers (null when no call matched it). */
interface Pair {
  open: OpenCall | null;
  call: RequestCall | null;
  outcome: CallOutcome;
}

/** Replies of a parsed body paired with their calls by id (protocol's `matchBatch`). */
function pairReplies(exchange: Exchange, value: unknown): Pair[] {
  if (exchange.requestText !== null && exchange.calls.length > 0) {
    const m = matchBatch(exchange.requestText, value);
    if (!isParseFailure(m)) {
      const pairs: Pair[] = [];
      m.calls.forEach((mc, i) => {
        if (mc.outcome !== null) pairs.push({ open: exchange.calls[i] ?? null, call: mc.request, outcome: mc.outcome });
      });
      for (const outcome of m.unmatched) pairs.push({ open: null, call: null, outcome });
      return pairs;
    }
  }
  const outcomes = parseResponse(value);
  return isParseFailure(outcomes) ? [] : outcomes.map((outcome) => ({ open: null, call: null, outcome }));
}

/** The raw response object of the reply with this id (the first one, for a duplicated id). */
function rawReply(value: unknown, id: string | number | null): unknown {
  const entries: unknown[] = Array.isArray(value) ? value : [value];
  return (
    entries.find((e) => {
      if (typeof e !== 'object' || e === null || !('result' in e || 'error' in e)) return false;
      const raw = (e as { id?: unknown }).id;
      const norm = typeof raw === 'string' || (typeof raw === 'number' && Number.isFinite(raw)) ? raw : null;
      return norm === id;
    }) ?? value
  );
}

/**
 * Makes `errors` (found in `response`) visible to the caller, in three places: the registry
 * `dealerErrorsOf(response)` reads (appended, as an SSE stream yields errors event by event),
 * the enclosing call scope of `withRetries` / `callWithDetails` (how those helpers judge the
 * attempt), and `options.onError`, called once per error in order. A throwing `onError` is
 * swallowed so it cannot change what the SDK receives; never throws itself.
 */
export function record(errors: DealerAgentError[], response: Response, exchange: Exchange, options: AapFetchOptions): void {
  registry.set(response, [...(registry.get(response) ?? []), ...errors]);
  for (const e of errors) {
    exchange.scope?.errors.push(e);
    if (options.onError) {
      try {
        options.onError(e);
      } catch {
        // A throwing callback must not change what the SDK receives.
      }
    }
  }
}

/**
 * Turns one parsed body value into errors. Ends the span of each answered call that failed, and
 * of each that succeeded when `endOnSuccess` (a JSON body; an SSE stream ends them at its end).
 */
export function errorsFromValue(
  value: unknown,
  response: Response,
  exchange: Exchange,
  telemetry: ClientTelemetry,
  endOnSuccess: boolean,
): DealerAgentError[] {
  const w3cTraceId = traceIdFromTraceresponse(response.headers.get(HEADER_TRACERESPONSE));
  // Read only when an error needs it: a success pays nothing for Retry-After.
  let retryAfterHeaderMs: number | null | undefined;
  const errors: DealerAgentError[] = [];
  for (const { open, call: paired, outcome } of pairReplies(exchange, value)) {
    // A reply no call claimed still belongs to the request when it held a single call.
    const call = paired ?? (exchange.calls.length === 1 ? (exchange.calls[0]?.call ?? null) : null);
    let error: DealerAgentError | null = null;
    if (!outcome.ok && outcome.error) {
      retryAfterHeaderMs ??= retryAfterOfHeaders(response.headers, Date.now());
      error = new DealerAgentError({
        parsed: outcome.error,
        envelope: rawReply(value, outcome.id),
        w3cTraceId,
        httpStatus: response.status,
        requestId: outcome.id,
        rpcMethod: call?.method ?? null,
        skill: call?.skill ?? null,
        attempt: exchange.attempt,
        retryAfterHeaderMs,
      });
      errors.push(error);
    }
    if (open !== null && !open.done && (error !== null || endOnSuccess)) {
      open.done = true;
      endCall(telemetry, open.span, open.attrs, performance.now() - exchange.startedAt, error);
    }
  }
  return errors;
}

/**
 * Ends the spans of calls no reply answered: at the end of an SSE stream they succeeded; after a
 * JSON body they failed (`missing_response`, or `http_<status>` when the HTTP status said so).
 */
export function closeRemaining(exchange: Exchange, telemetry: ClientTelemetry, response: Response, streamEnded: boolean): void {
  for (const c of exchange.calls) {
    if (c.done) continue;
    c.done = true;
    const failure = streamEnded && response.ok ? null : response.ok ? 'missing_response' : `http_${response.status}`;
    endCall(telemetry, c.span, c.attrs, performance.now() - exchange.startedAt, failure);
  }
}

/**
 * Inspects a JSON (non-SSE) response: reads a clone of the body (so the caller's `response` stays
 * unread), at most `maxBodyBytes` bytes — a larger declared `content-length` or body is passed
 * through uninspected — and builds a `DealerAgentError` per error reply (errorsFromValue). Then
 * ends every span still open (closeRemaining: a call left unanswered failed) and records the
 * errors (`record`).
 *
 * @returns the errors found, in reply order; empty for a success, an unreadable or oversized
 *   body, or a body that is not JSON-RPC. Never rejects: a failed read counts as no errors.
 */
export async function inspectJson(
  response: Response,
  exchange: Exchange,
  telemetry: ClientTelemetry,
  options: AapFetchOptions,
  maxBodyBytes: number,
): Promise<DealerAgentError[]> {
  let errors: DealerAgentError[] = [];
  try {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (response.body !== null && !(declared > maxBodyBytes)) {
      const bytes = new Uint8Array(await response.clone().arrayBuffer());
      const read = readJsonBody(bytes, { maxBytes: maxBodyBytes });
      if (!isParseFailure(read)) errors = errorsFromValue(read.value, response, exchange, telemetry, true);
    }
  } catch {
    // An unreadable clone (aborted, reset) leaves the Response to the SDK as is.
  }
  closeRemaining(exchange, telemetry, response, false);
  record(errors, response, exchange, options);
  return errors;
}
