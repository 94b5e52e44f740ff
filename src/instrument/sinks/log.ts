/**
 * One log event per error (DESIGN §2; issue 26 decision 1): the OpenTelemetry log record (event
 * name `aap.error`) when the host has a logs pipeline, so `OTEL_LOGS_EXPORTER` of the host's SDK
 * (or of `aap-triage/register`) exports it — the fleet's audit export, never sampled; otherwise
 * the pino line (level `warn`, or `error` for retryable server faults), sampled during storms
 * (line-sampler.ts). A logger the host passed in explicitly still gets its line. Both carry fields
 * copied from the audit column table's allow-list (src/audit/columns.ts), never a request value or
 * message text; the record adds the rest of the audit record's exported fields.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { LogAttributes } from '@opentelemetry/api-logs';
import { addRecordFields, lineFields } from '../../audit/columns.js';
import type { ErrorEvent } from '../../protocol/error-event.js';
import type { CallRecord, ExchangeRecords, TriageCore } from '../internal-types.js';
import type { OmittedLines } from './line-sampler.js';

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

/**
 * The allow-listed fields of the line for `e`: the column table's `line` columns (src/audit/columns.ts
 * LOG_LINE_FIELDS). `skill` and `method` are the bounded names the span uses (the event holds them).
 */
export function logFields(e: ErrorEvent): ReturnType<typeof lineFields> {
  return lineFields(e);
}

/** Fixed message of the summary line of a sampled second. */
export const SAMPLED_LOG_MESSAGE = 'json-rpc error lines left out in a storm (sampled)';

/** Writes the summary of a sampled second on `core`'s logger. */
export function logOmitted(core: TriageCore, o: OmittedLines): void {
  core.logger?.warn({ service: core.service, code: o.code, omitted: o.omitted, second: new Date(o.second * 1000).toISOString(), lines_per_second: core.settings.logLinesPerSecond }, SAMPLED_LOG_MESSAGE);
}

/** Emits the OpenTelemetry `aap.error` record of `e`, in the context of the call's span so it carries its trace and span ids. */
function emitRecord(core: TriageCore, e: ErrorEvent, fields: ReturnType<typeof logFields>, fault: boolean, r: CallRecord): void {
  const attributes: LogAttributes = {};
  for (const k in fields) {
    const v = fields[k];
    if (v !== null && v !== undefined) attributes[k] = v as LogAttributes[string];
  }
  // The rest of the audit record's fields (issue 19): the column table's `record` columns.
  addRecordFields(e, attributes);
  core.otelLogger.emit({
    eventName: ERROR_EVENT_NAME,
    severityNumber: fault ? SeverityNumber.ERROR : SeverityNumber.WARN,
    severityText: fault ? 'ERROR' : 'WARN',
    body: ERROR_LOG_MESSAGE,
    attributes,
    timestamp: e.occurred_at,
    context: r.span ? trace.setSpan(ROOT_CONTEXT, r.span) : ROOT_CONTEXT,
  });
}

/** Fixed message of the one line that counts the errors past the per-exchange cap. */
export const CAPPED_LOG_MESSAGE = 'json-rpc errors past the per-exchange cap were counted, not audited one by one';

/**
 * The log sink: one log event per audited error (see file doc), and one line for the errors the
 * per-exchange cap left out. Throws what the logger throws (the sinks' guard catches it).
 */
export function logSink(core: TriageCore, x: ExchangeRecords): void {
  const pipeline = core.logsPipeline();
  const lines = core.logger !== null && (core.hostLogger || !pipeline);
  for (const r of x.records) {
    const e = r.event;
    if (!e) continue;
    const line = lines && core.lines.admit(e.code, e.occurred_at);
    // In a storm most errors have neither a line nor (without a pipeline) a record: nothing is built for them.
    if (!line && !pipeline) continue;
    const fields = logFields(e);
    const fault = isServerFault(e) && e.retryable !== false;
    if (line) {
      if (fault) core.logger?.error(fields, ERROR_LOG_MESSAGE);
      else core.logger?.warn(fields, ERROR_LOG_MESSAGE);
    }
    if (pipeline) emitRecord(core, e, fields, fault, r);
  }
  if (x.capped && core.logger) {
    core.logger.warn({ not_audited: x.capped.count, cap: core.settings.maxAuditedCallsPerExchange, reason: EXCHANGE_CAP_REASON, trace_id: x.traceId }, CAPPED_LOG_MESSAGE);
  }
}

/** Reason of the gap row that counts the errors past the per-exchange cap. */
export const EXCHANGE_CAP_REASON = 'exchange_cap';
