/**
 * The PII-free audit store (DESIGN §5): batched SQLite writer, read-only reader, keyed
 * pseudonyms, sanitisers, retention and erasure. Re-exports only.
 */
export { ERROR_EVENT_COLUMNS, ISSUE_HOUR_MS, ISSUE_HOURS_UPSERT_SQL, MIGRATIONS, SCHEMA_VERSION, TRAFFIC_COLUMNS, migrate } from './schema.js';
export type { AuditGap, AuditHealth, AuditSink } from './sink.js';
export { openAuditSink } from './writer.js';
export { openFailedSink } from './failed-sink.js';
export type { FailedSinkOptions } from './failed-sink.js';
export type { SqliteAuditHealth, SqliteAuditSink } from './writer.js';
export { AUDIT_SINK_DEFAULTS, DEFAULT_JOURNAL_SIZE_LIMIT_BYTES } from './options.js';
export type { AuditSinkOptions } from './options.js';
export { READER_BUSY_TIMEOUT_MS, UPGRADE_HINT, openAuditReader } from './reader.js';
export { forgetInStore, openBackend, openStoreReader, pruneStore, sqliteReader, truncatePostgresStore } from './store.js';
export type { AuditBackend, AuditDialect, AuditReader, SqlValue, WriterWorkerSpec } from './backend.js';
export { AUDIT_COLUMNS, LOG_LINE_FIELDS, RECORD_ONLY_FIELDS } from './columns.js';
export type { AuditColumn, ErrorEventColumn } from './columns.js';
export { AuditStoreError, PseudonymKeyError } from './errors.js';
export type { AuditStoreErrorKind, PseudonymKeyErrorKind } from './errors.js';
export {
  PSEUDONYM_BYTES,
  canonicalParams,
  createPseudonymizer,
  loadPseudonymizer,
  normalizeSubject,
  resolvePhoneRegion,
  DEFAULT_PHONE_REGION,
} from './pseudonym.js';
export type { PseudonymKind, Pseudonymizer, PseudonymizerOptions } from './pseudonym.js';
export { retryAfterFromDetails, sanitizeLegacyError, sanitizePointer } from './sanitize.js';
export { DEFAULT_KNOWN_NAMES } from './known-names.js';
export { forgetSubject, previewPrune, pruneOlderThan } from './maintenance.js';
export { DEFAULT_RETENTION_MS } from './retention.js';
export type { ForgetResult, PrunePreview, PruneResult } from './maintenance.js';
export { inspectStore, migrateStore } from './inspect.js';
export type { InspectOptions, StoreInspection } from './inspect.js';
export { nativeModuleProblem } from './driver.js';
export { readHealth, readHealthRecords } from './health.js';
export type { AuditHealthFile } from './health.js';
export type { AuditLogger } from './logger.js';
export { DEFAULT_DB_PATH, isPostgresUrl, redactPostgresUrl, resolveDbPath, storeLabel } from './paths.js';
export { ISSUE_KEY_LENGTH, ISSUE_KEY_MIN_PREFIX, issueKey, issueKeyText, isIssueKeyPrefix } from './issue-key.js';
export type { IssueKeyFields } from './issue-key.js';
export { MAX_LABEL_NAME, labelNameProblem, removeClientLabel, setClientLabel } from './labels.js';
export type { ClientLabel } from './labels.js';
export { rebuildIssueHours, rebuildIssueHoursAt } from './issue-hours.js';
