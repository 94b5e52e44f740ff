/**
 * Recording (DESIGN §2, last stage): one paired call becomes the one `CallRecord` every sink reads
 * — labels for spans and metrics, and for an audited error the one `ErrorEvent`, built here once
 * with every value from the wire bounded once (src/protocol/value-patterns.ts) and every pointer
 * sanitised once (src/audit/sanitize.ts). Nothing downstream re-parses or re-checks it.
 *
 * The retry tracker is read and updated here, not in a sink: the attempt number and the flags are
 * part of the record. Pseudonyms are keyed HMACs (DESIGN §5) computed for error rows only; the
 * tracker keys on a cheap unkeyed hash of the canonical call (call-key.ts).
 */
import { sanitizePointer } from '../../audit/sanitize.js';
import { callProtocol, httpStatusError, ownToken, PROTOCOL_VERSION_OF_FORM, skillData, withDmc12ServerCode } from '../../protocol/call-shape.js';
import type { ErrorEvent, EventOrigin, RetryFlag, Violation } from '../../protocol/error-event.js';
import { mintErrorId } from '../../protocol/error-id.js';
import { isObject, own } from '../../protocol/extract.js';
import type { RequestCall } from '../../protocol/parse-request.js';
import { safeCode, safeErrorId, safeJsonRpcCode, safeKeyword, safeLegacyError, safeUpstreamTraceId } from '../../protocol/value-patterns.js';
import type { Span } from '@opentelemetry/api';
import { RPC_METHOD_OTHER } from '../attributes.js';
import { conventionsOf } from '../genai-conventions.js';
import type { RequestConventionFacts, ResponseConventionFacts } from '../genai-conventions.js';
import type { CallRecord, TriageCore } from '../internal-types.js';
import { callKey, idempotencyKey } from './call-key.js';
import { ERROR_ID_REUSED } from './error-id-memory.js';
import { NO_RULES } from './pair.js';
import type { Answer } from './pair.js';
import type { Attempt } from './retry-tracker.js';
import { boundedDomainCode, boundedStatusCode, errorTypeOf } from './telemetry-codes.js';

/** One paired call as the exchange hands it in. */
export interface RecordInput {
  /** The call as classified (null: a request that could not be read, or an answer no call claims). */
  call: RequestCall | null;
  /** The call's allow-listed method (`_OTHER` for unknown). */
  method: string;
  /** Position among the exchange's calls; at `maxAuditedCallsPerExchange` and past it, counted only. */
  index: number;
  answer: Answer | null;
  /** The batch's size when one error answered the whole batch, else 0 (pair.ts). */
  batchOf: number;
  /** The call's span (audited calls), and whether the record ends it. */
  span: Span | null;
  endsSpan: boolean;
  /** W3C ids of the call's span (null without a valid context). */
  traceId: string | null;
  spanId: string | null;
  /** What the GenAI conventions read of the call's reply; only with the opt-in (absent or null otherwise). */
  response?: ResponseConventionFacts | null;
}

/** What every call of one exchange shares. Times are epoch ms. */
export interface ExchangeFacts {
  startedAt: number;
  endedAt: number;
  httpStatus: number;
  /** Keyed pseudonym of the caller's credential, or null. */
  client: string | null;
  /** The client's `aap-attempt` header (1…100), or null. */
  attemptHeader: number | null;
  /** Attempt per tracker key already recorded in this exchange (batches only): calls of one batch are not retries of each other. */
  seen: Map<number, Attempt> | null;
  /** `probe` for a call of `aap-triage probe` (origin.ts), else null: not tracked as a retry, not counted as traffic. */
  origin: EventOrigin | null;
  /** What the GenAI conventions read of the HTTP request; only with the opt-in (absent or null otherwise). */
  conventionRequest?: RequestConventionFacts | null;
}

/** What recording needs of the core: settings, pseudonyms, the tracker and the error-id memory. */
export type RecordContext = Pick<TriageCore, 'settings' | 'service' | 'serviceVersion' | 'safe' | 'pseudonymizer' | 'fingerprintOf' | 'tracker' | 'errorIds'>;

/** The flags of a call that is not tracked (past the cap): shared, never mutated. */
const NO_FLAGS: RetryFlag[] = Object.freeze([]) as unknown as RetryFlag[];

/** Violations with locations sanitised (a segment no schema names becomes `*`) and keywords bounded. */
function boundedViolations(violations: readonly Violation[]): Violation[] {
  return violations.length === 0 ? [] : violations.map((v) => ({ location: sanitizePointer(v?.location), keyword: safeKeyword(v?.keyword) }));
}

/** Keyed pseudonyms of the customer's email and phone, when the skill data has them (both: erasure by either finds the row). */
function subjects(ctx: RecordContext, data: Record<string, unknown> | null): string[] {
  const p = ctx.pseudonymizer;
  const customer = own(data, 'customer');
  if (!p || !isObject(customer)) return [];
  const email = ownToken(customer, 'email');
  const phone = ownToken(customer, 'phone');
  if (email === null && phone === null) return [];
  return ctx.safe.call('pseudonymizer', () => [email, phone].map((v) => (v ? p.subject(v) : null)).filter((v): v is string => v !== null), []);
}

/**
 * The record of one call (see file doc). Never throws for a failing pseudonymizer or key walk
 * (each is reported once through `ctx.safe`, and the field is left null).
 */
export function record(input: RecordInput, x: ExchangeFacts, ctx: RecordContext): CallRecord {
  const r = recordCall(input, x, ctx);
  // The GenAI conventions (issue 29): one boolean without the opt-in.
  if (ctx.settings.genAiConventions) r.conventions = conventionsOf(input.call, r, x.conventionRequest ?? null, ctx.settings, input.response ?? null);
  return r;
}

/** The record without the conventions (see {@link record}). */
function recordCall(input: RecordInput, x: ExchangeFacts, ctx: RecordContext): CallRecord {
  const settings = ctx.settings;
  const call = input.call;
  const outcome = input.answer?.outcome;
  let error = outcome && !outcome.ok ? (outcome.error ?? null) : null;
  // No JSON-RPC answer at all (a bare 401 or 500 page): the HTTP status is the error.
  if (!error && !input.answer && x.httpStatus >= 400) error = httpStatusError(x.httpStatus);
  if (error) error = withDmc12ServerCode(error, call);
  const rawSkill = call?.skill ?? null;
  const skill = rawSkill === null ? null : settings.knownSkills.has(rawSkill) ? rawSkill : RPC_METHOD_OTHER;
  // Past the cap a call is counted (traffic, metrics) but gets no span, line, row or tracker
  // entry: the canonical walk and hash are most of a call's cost, and one request must not be
  // able to make the host do unbounded work (issue 16).
  const audited = input.index < settings.maxAuditedCallsPerExchange;
  const data = call && audited ? skillData(call) : null;
  const idemRaw = ownToken(data, 'idempotency_key');
  let trackKey: number | null = null;
  // A probe resends near-identical bad requests on purpose: they are not a client's retries.
  if (audited && x.origin === null) {
    try {
      if (idemRaw) trackKey = idempotencyKey(idemRaw, x.client, input.batchOf);
      else if (call && call.method !== null) trackKey = callKey(call.method, rawSkill, call.params, x.client, input.batchOf);
    } catch (err) {
      ctx.safe.fail('fingerprint', err);
    }
  }
  // The same call twice in one batch is one attempt, not a retry of itself.
  const again = trackKey !== null ? x.seen?.get(trackKey) : undefined;
  const { attempt, flags } = !audited
    ? { attempt: x.attemptHeader ?? 1, flags: NO_FLAGS }
    : (again ??
      ctx.tracker.record(trackKey, x.startedAt, x.attemptHeader, {
        at: x.endedAt,
        ok: error === null,
        retryable: error?.retryable ?? null,
        retryAfterMs: error?.retryAfterMs ?? null,
      }));
  if (trackKey !== null && x.seen && !again) x.seen.set(trackKey, { attempt, flags });

  const r: CallRecord = {
    method: input.method,
    protocol: error?.protocol ?? callProtocol(call),
    skill,
    client: x.client,
    origin: x.origin,
    attempt,
    flags,
    startedAt: x.startedAt,
    endedAt: x.endedAt,
    durationS: (x.endedAt - x.startedAt) / 1000,
    errorType: null,
    statusCode: null,
    errorCode: null,
    retryable: null,
    conformance: input.answer?.conformance ?? NO_RULES,
    audited,
    event: null,
    rowId: null,
    span: audited ? input.span : null,
    endsSpan: input.endsSpan,
    conventions: null,
    count: 1,
  };
  if (!error) return r;

  // Every machine field from the wire passes its pattern once, here (issue 16).
  const code = safeCode(error.code);
  const jsonrpcCode = safeJsonRpcCode(error.jsonrpcCode);
  r.errorType = errorTypeOf(jsonrpcCode, code);
  r.statusCode = boundedStatusCode(jsonrpcCode);
  r.errorCode = boundedDomainCode(code);
  r.retryable = error.retryable;
  if (!audited) return r;

  const p = ctx.pseudonymizer;
  let fingerprint: string | null = null;
  let idempotency: string | null = null;
  if (p) {
    try {
      if (call && call.method !== null) fingerprint = ctx.fingerprintOf(call.method, rawSkill, call.params, trackKey !== null && !idemRaw ? trackKey : null);
      if (idemRaw) idempotency = p.idempotency(idemRaw);
    } catch (err) {
      ctx.safe.fail('pseudonymizer', err);
    }
  }
  const subject = subjects(ctx, data);
  const event: ErrorEvent = {
    // A wire id that fails its pattern is minted anew: the wire value is kept nowhere.
    error_id: safeErrorId(error.errorId) ?? mintErrorId(),
    occurred_at: x.endedAt,
    trace_id: input.traceId,
    span_id: input.spanId,
    upstream_trace_id: safeUpstreamTraceId(error.upstreamTraceId),
    service: ctx.service,
    protocol: error.protocol,
    protocol_version: PROTOCOL_VERSION_OF_FORM[error.form] ?? null,
    rpc_method: input.method,
    skill,
    code,
    legacy_error: safeLegacyError(error.legacyError ?? null),
    jsonrpc_code: jsonrpcCode,
    http_status: x.httpStatus,
    retryable: error.retryable,
    retry_after_ms: error.retryAfterMs,
    client: x.client,
    fingerprint,
    idempotency,
    subject: subject[0] ?? null,
    subject_alt: subject[1] ?? null,
    attempt,
    retry_flags: flags,
    violations: boundedViolations(error.violations),
    conformance: r.conformance as string[],
    duration_ms: x.endedAt - x.startedAt,
    key_id: p?.keyId ?? null,
    origin: x.origin,
    service_version: ctx.serviceVersion,
  };
  if (ctx.errorIds.seen(event.error_id)) {
    // The dealer reused an error_id. Span and log keep the id the caller holds; the audit row
    // (keyed by error_id) gets one of its own so both errors are kept, and says why.
    event.conformance = [...event.conformance, ERROR_ID_REUSED];
    r.rowId = mintErrorId();
  }
  r.conformance = event.conformance;
  r.event = event;
  return r;
}
