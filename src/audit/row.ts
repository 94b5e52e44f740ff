/**
 * ErrorEvent → error_events row, with the sink's defence-in-depth checks (DESIGN §5): pointers
 * are sanitised again; every machine field from the wire (error_id, upstream trace id, code,
 * legacy string, JSON-RPC code, violation keywords) is checked against its pattern in
 * src/protocol/value-patterns.ts (an error_id that fails is minted anew, so the wire value is
 * stored nowhere); flags and rule ids are kept only when they are tokens. Runs on the caller's thread inside `write()`, which catches what this throws.
 */
import type { ErrorEvent, TrafficSample } from '../protocol/error-event.js';
import { RETRY_FLAGS } from '../protocol/error-event.js';
import { mintErrorId } from '../protocol/error-id.js';
import { safeCode, safeErrorId, safeJsonRpcCode, safeKeyword, safeLegacyError, safeServiceVersion, safeUpstreamTraceId } from '../protocol/value-patterns.js';
import type { GapRow, TrafficRow } from './internal-types.js';
import { issueKey } from './issue-key.js';
import { sanitizePointer } from './sanitize.js';

const TOKEN = /^[A-Za-z0-9_.:$-]{1,64}$/;
const RETRY_FLAG_SET: ReadonlySet<string> = new Set(RETRY_FLAGS);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The event as values in `ERROR_EVENT_COLUMNS` order. Throws a TypeError without an `error_id`. */
export function eventToRow(event: ErrorEvent, knownNames: ReadonlySet<string> | undefined): unknown[] {
  if (typeof event?.error_id !== 'string' || event.error_id === '') throw new TypeError('ErrorEvent without error_id');
  const violations = Array.isArray(event.violations)
    ? event.violations.map((v) => ({
        location: sanitizePointer(v?.location, knownNames),
        keyword: safeKeyword(v?.keyword),
      }))
    : [];
  const flags = Array.isArray(event.retry_flags) ? event.retry_flags.filter((f) => RETRY_FLAG_SET.has(f)) : [];
  const rules = Array.isArray(event.conformance) ? event.conformance.filter((r) => typeof r === 'string' && TOKEN.test(r)) : [];
  const attempt = int(event.attempt);
  const service = str(event.service) ?? 'unknown_service';
  const protocol = str(event.protocol) ?? 'jsonrpc';
  const rpcMethod = str(event.rpc_method) ?? '_OTHER';
  const skill = str(event.skill);
  const code = safeCode(event.code);
  return [
    safeErrorId(event.error_id) ?? mintErrorId(),
    int(event.occurred_at) ?? Date.now(),
    str(event.trace_id),
    str(event.span_id),
    safeUpstreamTraceId(event.upstream_trace_id),
    service,
    protocol,
    str(event.protocol_version),
    rpcMethod,
    skill,
    code,
    safeLegacyError(event.legacy_error),
    safeJsonRpcCode(event.jsonrpc_code),
    int(event.http_status),
    event.retryable === true ? 1 : event.retryable === false ? 0 : null,
    int(event.retry_after_ms),
    str(event.client),
    str(event.fingerprint),
    str(event.idempotency),
    str(event.subject),
    attempt !== null && attempt >= 1 ? attempt : 1,
    JSON.stringify(flags),
    JSON.stringify(violations),
    JSON.stringify(rules),
    num(event.duration_ms),
    str(event.key_id),
    issueKey({ service, protocol, rpc_method: rpcMethod, skill, code, violations, conformance: rules }),
    str(event.subject_alt),
    event.origin === 'probe' ? 'probe' : null,
    safeServiceVersion(event.service_version),
  ];
}

/** Key under which traffic samples are added up before they are written. */
export function trafficKey(sample: TrafficSample): string {
  return `${sample.minute}\u0000${sample.service}\u0000${sample.skill}\u0000${sample.client}`;
}

/** A traffic sample as a row, or null when it is not well formed (counted, never thrown). */
export function trafficToRow(sample: TrafficSample): TrafficRow | null {
  const minute = int(sample?.minute);
  if (minute === null || typeof sample.service !== 'string') return null;
  return [
    minute,
    sample.service,
    typeof sample.skill === 'string' ? sample.skill : '',
    typeof sample.client === 'string' ? sample.client : '',
    int(sample.requests) ?? 0,
    int(sample.errors) ?? 0,
    int(sample.retries) ?? 0,
  ];
}

/** A gap row ("N errors not recorded between t1 and t2"). */
export function gapRow(service: string, startedAt: number, endedAt: number, dropped: number, reason: string): GapRow {
  return [service, startedAt, endedAt, dropped, reason];
}
