/**
 * The audit-store operations the CLI and the TUI use, re-exported so that they import `triage`
 * only (DESIGN §3: "cli and tui import triage"; "triage imports audit and protocol"). Opening,
 * checking, migrating and maintaining the store stay in `src/audit/`; nothing here runs SQL.
 */
export { ERROR_EVENT_COLUMNS, SCHEMA_VERSION } from '../audit/schema.js';
export { AuditStoreError, PseudonymKeyError } from '../audit/errors.js';
export type { AuditStoreErrorKind, PseudonymKeyErrorKind } from '../audit/errors.js';
export { UPGRADE_HINT, openAuditReader } from '../audit/reader.js';
export {
  forgetInStore,
  inspectPostgresStore,
  labelClientInStore,
  migrateAuditStore,
  openStoreReader,
  previewPruneInStore,
  pruneStore,
  setIssueStateInStore,
  truncatePostgresStore,
  unlabelClientInStore,
} from '../audit/store.js';
export type { PgStoreInspection } from '../audit/pg/maintenance.js';
export type { AuditReader, AuditDialect, SqlValue } from '../audit/store.js';
export { inspectStore, migrateStore } from '../audit/inspect.js';
export type { InspectOptions, StoreInspection } from '../audit/inspect.js';
export { nativeModuleProblem } from '../audit/driver.js';
export { DEFAULT_JOURNAL_SIZE_LIMIT_BYTES } from '../audit/options.js';
export { loadPseudonymizer } from '../audit/pseudonym.js';
export type { Pseudonymizer, PseudonymizerOptions, PseudonymKind } from '../audit/pseudonym.js';
export { forgetSubject, previewPrune, pruneOlderThan } from '../audit/maintenance.js';
export { DEFAULT_RETENTION_MS } from '../audit/retention.js';
export type { ForgetResult, PrunePreview, PruneResult } from '../audit/maintenance.js';
export { readHealth, readHealthRecords, removeHealthRecord } from '../audit/health.js';
export type { AuditHealthFile } from '../audit/health.js';
export { DEFAULT_DB_PATH, dbTargetProblem, defaultKeyFilePath, isPostgresUrl, postgresUrlForCommand, redactPostgresUrl, resolveDbPath, storeLabel } from '../audit/paths.js';
export { MAX_LABEL_NAME, labelNameProblem, removeClientLabel, setClientLabel } from '../audit/labels.js';
export type { ClientLabel } from '../audit/labels.js';
export { MAX_OPERATOR_NAME, operatorNameProblem } from '../audit/issue-states.js';
export type { IssueStateName, IssueStateRow, ResolvedMode } from '../audit/issue-states.js';
