/**
 * The one column table of `error_events` (DESIGN §5 "One column table … is the source of the
 * insert statements, the row builder, the log fields and the record attributes").
 *
 * Each row says, for one column: its name (also the ErrorEvent field, the `--json` field and
 * the log / record attribute unless `exportAs` renames it), its type in a freshly migrated
 * SQLite file and PostgreSQL store (`PRAGMA table_info` type / `information_schema` data type;
 * test/audit/columns.test.ts checks both stores against this table), the sanitiser that turns
 * an ErrorEvent into the stored value, and where else it goes: `line` = the pino line and the
 * OTLP `aap.error` record, `record` = the record only, null = the store only.
 *
 * Order is table order (migrations append). Adding a column: one row here, one migration in
 * schema.ts and one in pg/schema.ts, and the field on `ErrorEvent` (with its pattern in
 * protocol/value-patterns.ts when the value can come from outside). Rows are value arrays in
 * this order; other code reads a row only by a column's name ({@link rowTime},
 * {@link rowService}, {@link columnIndex}), never by a literal position.
 */
import type { ErrorEvent } from '../protocol/error-event.js';
import { RETRY_FLAGS } from '../protocol/error-event.js';
import { mintErrorId } from '../protocol/error-id.js';
import { safeCode, safeErrorId, safeJsonRpcCode, safeKeyword, safeLegacyError, safeServiceVersion, safeUpstreamTraceId } from '../protocol/value-patterns.js';
import { issueKey } from './issue-key.js';
import { sanitizePointer } from './sanitize.js';

/** A stored value. */
export type ColumnValue = string | number | null;

/** An exported attribute value (OTLP log attribute or pino field). */
export type ExportValue = string | number | boolean | readonly string[] | readonly object[];

/**
 * The event's fields after the checks several columns share: the issue key is computed from the
 * sanitised values, so they are worked out once per row.
 */
export interface CheckedEvent {
  readonly service: string;
  readonly protocol: string;
  readonly rpcMethod: string;
  readonly skill: string | null;
  readonly code: string;
  readonly violations: readonly { location: string; keyword: string }[];
  readonly flags: readonly string[];
  readonly rules: readonly string[];
}

/** One column of `error_events`. */
export interface AuditColumn {
  /** Column name = ErrorEvent field = `--json` field. */
  readonly name: string;
  /** Declared type in SQLite (`PRAGMA table_info`). */
  readonly sqlite: 'TEXT' | 'INTEGER' | 'REAL';
  /** Data type in PostgreSQL (`information_schema.columns.data_type`). */
  readonly pg: 'text' | 'integer' | 'bigint' | 'double precision';
  /** The sanitiser: the stored value for `event` (DESIGN §5: patterns, allow-lists, tokens). */
  readonly value: (event: ErrorEvent, checked: CheckedEvent) => ColumnValue;
  /** `line`: the pino line and the OTLP record; `record`: the record only; null: stored only. */
  readonly export: 'line' | 'record' | null;
  /** The exported attribute's name when it differs from the column's. */
  readonly exportAs?: string;
  /** The exported value when it is not the event's field as is (null or undefined: left out). */
  readonly exported?: (event: ErrorEvent) => ExportValue | null | undefined;
}

const TOKEN = /^[A-Za-z0-9_.:$-]{1,64}$/;
const RETRY_FLAG_SET: ReadonlySet<string> = new Set(RETRY_FLAGS);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** A column that stores the event's string field as is (pseudonyms, minted ids, bounded names). */
const text = <N extends keyof ErrorEvent>(name: N, exp: AuditColumn['export']): AuditColumn & { readonly name: N } => ({ name, sqlite: 'TEXT', pg: 'text', value: (e) => str(e[name]), export: exp });

/** The table. Never reorder: it is table order. */
export const AUDIT_COLUMNS = [
  { name: 'error_id', sqlite: 'TEXT', pg: 'text', value: (e) => safeErrorId(e.error_id) ?? mintErrorId(), export: 'line' },
  { name: 'occurred_at', sqlite: 'INTEGER', pg: 'bigint', value: (e) => int(e.occurred_at) ?? Date.now(), export: 'record' },
  text('trace_id', 'line'),
  text('span_id', 'line'),
  { name: 'upstream_trace_id', sqlite: 'TEXT', pg: 'text', value: (e) => safeUpstreamTraceId(e.upstream_trace_id), export: 'record' },
  { name: 'service', sqlite: 'TEXT', pg: 'text', value: (_, c) => c.service, export: 'record' },
  { name: 'protocol', sqlite: 'TEXT', pg: 'text', value: (_, c) => c.protocol, export: 'record' },
  text('protocol_version', 'record'),
  { name: 'rpc_method', sqlite: 'TEXT', pg: 'text', value: (_, c) => c.rpcMethod, export: 'line', exportAs: 'method' },
  { name: 'skill', sqlite: 'TEXT', pg: 'text', value: (_, c) => c.skill, export: 'line' },
  { name: 'code', sqlite: 'TEXT', pg: 'text', value: (_, c) => c.code, export: 'line' },
  { name: 'legacy_error', sqlite: 'TEXT', pg: 'text', value: (e) => safeLegacyError(e.legacy_error), export: 'record' },
  { name: 'jsonrpc_code', sqlite: 'INTEGER', pg: 'integer', value: (e) => safeJsonRpcCode(e.jsonrpc_code), export: 'record' },
  { name: 'http_status', sqlite: 'INTEGER', pg: 'integer', value: (e) => int(e.http_status), export: 'record' },
  // 1 / 0 / NULL (unknown) in the store; the line and record keep the boolean.
  { name: 'retryable', sqlite: 'INTEGER', pg: 'integer', value: (e) => (e.retryable === true ? 1 : e.retryable === false ? 0 : null), export: 'line' },
  { name: 'retry_after_ms', sqlite: 'INTEGER', pg: 'bigint', value: (e) => int(e.retry_after_ms), export: 'record' },
  text('client', 'record'),
  text('fingerprint', 'record'),
  text('idempotency', 'record'),
  text('subject', 'record'),
  {
    name: 'attempt',
    sqlite: 'INTEGER',
    pg: 'integer',
    value: (e) => {
      const attempt = int(e.attempt);
      return attempt !== null && attempt >= 1 ? attempt : 1;
    },
    export: 'line',
  },
  { name: 'retry_flags', sqlite: 'TEXT', pg: 'text', value: (_, c) => JSON.stringify(c.flags), export: 'line' },
  // The record carries the JSON text the store keeps, and only when there are violations.
  { name: 'violations', sqlite: 'TEXT', pg: 'text', value: (_, c) => JSON.stringify(c.violations), export: 'record', exported: (e) => (e.violations.length > 0 ? JSON.stringify(e.violations) : null) },
  { name: 'conformance', sqlite: 'TEXT', pg: 'text', value: (_, c) => JSON.stringify(c.rules), export: 'record', exported: (e) => (e.conformance.length > 0 ? e.conformance : null) },
  { name: 'duration_ms', sqlite: 'REAL', pg: 'double precision', value: (e) => num(e.duration_ms), export: 'record' },
  text('key_id', 'record'),
  // Computed here from the checked fields, whatever the event carried (issue-key.ts).
  {
    name: 'issue_key',
    sqlite: 'TEXT',
    pg: 'text',
    value: (_, c) => issueKey({ service: c.service, protocol: c.protocol, rpc_method: c.rpcMethod, skill: c.skill, code: c.code, violations: c.violations, conformance: c.rules }),
    export: null,
  },
  text('subject_alt', 'record'),
  { name: 'origin', sqlite: 'TEXT', pg: 'text', value: (e) => (e.origin === 'probe' ? 'probe' : null), export: null },
  { name: 'service_version', sqlite: 'TEXT', pg: 'text', value: (e) => safeServiceVersion(e.service_version), export: 'record' },
] as const satisfies readonly AuditColumn[];

/** A column name of `error_events`. */
export type ErrorEventColumn = (typeof AUDIT_COLUMNS)[number]['name'];

/** Column names of `error_events`, in table order. These are the `--json` field names of the CLI. */
export const ERROR_EVENT_COLUMNS: readonly ErrorEventColumn[] = AUDIT_COLUMNS.map((c) => c.name);

const columns: readonly AuditColumn[] = AUDIT_COLUMNS;
const OCCURRED_AT = ERROR_EVENT_COLUMNS.indexOf('occurred_at');
const SERVICE = ERROR_EVENT_COLUMNS.indexOf('service');

/** The fields several columns share, checked once (see {@link CheckedEvent}). */
function check(event: ErrorEvent, knownNames: ReadonlySet<string> | undefined): CheckedEvent {
  return {
    service: str(event.service) ?? 'unknown_service',
    protocol: str(event.protocol) ?? 'jsonrpc',
    rpcMethod: str(event.rpc_method) ?? '_OTHER',
    skill: str(event.skill),
    code: safeCode(event.code),
    violations: Array.isArray(event.violations)
      ? event.violations.map((v) => ({ location: sanitizePointer(v?.location, knownNames), keyword: safeKeyword(v?.keyword) }))
      : [],
    flags: Array.isArray(event.retry_flags) ? event.retry_flags.filter((f) => RETRY_FLAG_SET.has(f)) : [],
    rules: Array.isArray(event.conformance) ? event.conformance.filter((r) => typeof r === 'string' && TOKEN.test(r)) : [],
  };
}

/**
 * The event as stored values in {@link ERROR_EVENT_COLUMNS} order, each through its column's
 * sanitiser (DESIGN §5 defence in depth: pointers sanitised again, wire fields checked against
 * src/protocol/value-patterns.ts, a failing error_id minted anew so the wire value is stored
 * nowhere). Throws a TypeError without an `error_id`.
 */
export function eventToRow(event: ErrorEvent, knownNames: ReadonlySet<string> | undefined): ColumnValue[] {
  if (typeof event?.error_id !== 'string' || event.error_id === '') throw new TypeError('ErrorEvent without error_id');
  const checked = check(event, knownNames);
  const row = new Array<ColumnValue>(columns.length);
  for (let i = 0; i < columns.length; i++) row[i] = (columns[i] as AuditColumn).value(event, checked);
  return row;
}

/** `occurred_at` of a row from {@link eventToRow}, epoch ms. */
export function rowTime(row: readonly unknown[]): number {
  return row[OCCURRED_AT] as number;
}

/** `service` of a row from {@link eventToRow}. */
export function rowService(row: readonly unknown[]): string {
  return row[SERVICE] as string;
}

/** Position of `name` in a row, for code that runs from source text in a worker and gets it passed in. */
export function columnIndex(name: ErrorEventColumn): number {
  return ERROR_EVENT_COLUMNS.indexOf(name);
}

const exportName = (c: AuditColumn): string => c.exportAs ?? c.name;
const exportValue = (c: AuditColumn, e: ErrorEvent): ExportValue | null | undefined =>
  c.exported ? c.exported(e) : (e[c.name as keyof ErrorEvent] as ExportValue | null | undefined);

const LINE_COLUMNS = columns.filter((c) => c.export === 'line');
const RECORD_COLUMNS = columns.filter((c) => c.export === 'record');

/** Field names of the error log line (and the first attributes of the OTLP record), in table order. */
export const LOG_LINE_FIELDS: readonly string[] = LINE_COLUMNS.map(exportName);

/** The attributes the OTLP `aap.error` record adds to the line's fields, in table order. */
export const RECORD_ONLY_FIELDS: readonly string[] = RECORD_COLUMNS.map(exportName);

/**
 * The allow-listed fields of the error log line for `e` ({@link LOG_LINE_FIELDS}): the event's
 * values as the line shows them (nulls kept, so a missing trace id reads as `null`).
 */
export function lineFields(e: ErrorEvent): Record<string, ExportValue | null> {
  const fields: Record<string, ExportValue | null> = {};
  for (const c of LINE_COLUMNS) fields[exportName(c)] = exportValue(c, e) ?? null;
  return fields;
}

/**
 * Adds to `attributes` the record-only fields of `e` ({@link RECORD_ONLY_FIELDS}) that have a
 * value; null and absent ones are left out.
 */
export function addRecordFields(e: ErrorEvent, attributes: Record<string, unknown>): void {
  for (const c of RECORD_COLUMNS) {
    const v = exportValue(c, e);
    if (v !== null && v !== undefined) attributes[exportName(c)] = v;
  }
}
