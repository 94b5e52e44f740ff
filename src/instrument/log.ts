/**
 * One log line per error (issue 3), twice over: a pino line (level `warn`, or `error` for
 * retryable server faults) and an OpenTelemetry log record (event name `aap.error`, issue 13 /
 * #19) through the logs API, so `OTEL_LOGS_EXPORTER` of the host's SDK (or of
 * `aap-triage/register`) exports it. Both carry the same fields, copied from an explicit
 * allow-list (LOG_FIELDS), never a request value or message text.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { LogAttributes } from '@opentelemetry/api-logs';
import { sanitizePointer } from '../audit/sanitize.js';
import type { ErrorEvent } from '../protocol/error-event.js';
import { safeKeyword } from '../protocol/value-patterns.js';
import type { TriageCore } from './internal-types.js';

/** Codes that are the server's own retryable faults, logged at `error`. */
const SERVER_FAULT_CODES: ReadonlySet<string> = new Set(['INTERNAL_ERROR', 'UPSTREAM_UNAVAILABLE', '-32603']);

/** Fixed message of the error line (the fields carry everything). */
export const ERROR_LOG_MESSAGE = 'json-rpc error sent';

/** `event.name` of the OpenTelemetry log record written per error. */
export const ERROR_EVENT_NAME = 'aap.error';

/** True when the error is a retryable server fault (INTERNAL_ERROR, UPSTREAM_UNAVAILABLE, -32603). */
export function isServerFault(e: ErrorEvent): boolean {
  return SERVER_FAULT_CODES.has(e.code) || e.jsonrpc_code === -32603;
}

/** The allow-listed fields of the line for `e` (LOG_FIELDS order). `skill`/`method` are the bounded names the span uses. */
export function logFields(e: ErrorEvent, skill: string | null, method: string) {
  return {
    error_id: e.error_id,
    trace_id: e.trace_id,
    span_id: e.span_id,
    code: e.code,
    retryable: e.retryable,
    skill,
    method,
    attempt: e.attempt,
    retry_flags: e.retry_flags,
  };
}

/**
 * The audit record's fields the OpenTelemetry log record adds to the line's (issue 19: "the same
 * allow-listed fields" as the audit row; every one a code, number, time, minted id or keyed
 * pseudonym, checked by `checkEventValues` before any sink sees the event). `violations` is
 * written as the JSON text the store keeps, its pointers sanitised the same way.
 */
function recordAttributes(e: ErrorEvent, attributes: LogAttributes): void {
  const put = (k: string, v: LogAttributes[string] | null): void => {
    if (v !== null && v !== undefined) attributes[k] = v;
  };
  put('occurred_at', e.occurred_at);
  put('upstream_trace_id', e.upstream_trace_id);
  put('service', e.service);
  put('protocol', e.protocol);
  put('protocol_version', e.protocol_version);
  put('legacy_error', e.legacy_error);
  put('jsonrpc_code', e.jsonrpc_code);
  put('http_status', e.http_status);
  put('retry_after_ms', e.retry_after_ms);
  put('client', e.client);
  put('fingerprint', e.fingerprint);
  put('idempotency', e.idempotency);
  put('subject', e.subject);
  put('subject_alt', e.subject_alt);
  // Locations sanitised as the store does: a segment that is no known schema name becomes `*`.
  if (e.violations.length > 0) put('violations', JSON.stringify(e.violations.map((v) => ({ location: sanitizePointer(v.location), keyword: safeKeyword(v.keyword) }))));
  if (e.conformance.length > 0) put('conformance', e.conformance);
  put('duration_ms', e.duration_ms);
  put('key_id', e.key_id);
}

/**
 * Writes the pino line (when the triage has a logger) and emits the OpenTelemetry log record
 * for `e`, in the context of `span` (the call span) so the record carries its trace and span
 * ids. The record has the line's fields and the rest of the audit record's (`recordAttributes`);
 * null fields are left out. Throws what the logger throws (the observer guards it).
 */
export function logError(core: TriageCore, e: ErrorEvent, skill: string | null, method: string, span: Span): void {
  const fields = logFields(e, skill, method);
  const fault = isServerFault(e) && e.retryable !== false;
  if (core.logger) {
    if (fault) core.logger.error(fields, ERROR_LOG_MESSAGE);
    else core.logger.warn(fields, ERROR_LOG_MESSAGE);
  }
  const attributes: LogAttributes = {};
  for (const k in fields) {
    const v = fields[k as keyof typeof fields];
    if (v !== null) attributes[k] = v;
  }
  recordAttributes(e, attributes);
  core.otelLogger.emit({
    eventName: ERROR_EVENT_NAME,
    severityNumber: fault ? SeverityNumber.ERROR : SeverityNumber.WARN,
    severityText: fault ? 'ERROR' : 'WARN',
    body: ERROR_LOG_MESSAGE,
    attributes,
    timestamp: e.occurred_at,
    context: trace.setSpan(ROOT_CONTEXT, span),
  });
}
