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
import type { ErrorEvent } from '../protocol/error-event.js';
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
 * Writes the pino line (when the triage has a logger) and emits the OpenTelemetry log record
 * for `e`, in the context of `span` (the call span) so the record carries its trace and span
 * ids. Null fields are left out of the record's attributes. Throws what the logger throws (the
 * observer guards it).
 */
export function logError(core: TriageCore, e: ErrorEvent, skill: string | null, method: string, span: Span): void {
  const fields = logFields(e, skill, method);
  const fault = isServerFault(e) && e.retryable !== false;
  if (core.logger) {
    if (fault) core.logger.error(fields, ERROR_LOG_MESSAGE);
    else core.logger.warn(fields, ERROR_LOG_MESSAGE);
  }
  const attributes: LogAttributes = {};
  for (const [k, v] of Object.entries(fields)) if (v !== null) attributes[k] = v;
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
