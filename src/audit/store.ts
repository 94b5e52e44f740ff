/**
 * The audit store's commands by target (a file path or a `postgres://` URL), as the CLI, the TUI
 * and the demo call them: each opens the target's {@link AuditBackend} (backend.ts,
 * open-backend.ts: the one place that tells the kinds apart) and asks it. The reader types live
 * in backend.ts and are re-exported here for those callers.
 */
import type { AuditReader } from './backend.js';
import { MAX_OPERATOR_NAME, operatorNameProblem, type IssueStateRow } from './issue-states.js';
import { checkedClientLabel, type ClientLabel } from './labels.js';
import type { ForgetResult, PrunePreview, PruneResult } from './maintenance.js';
import { openBackend } from './open-backend.js';
import type { PgStoreInspection } from './pg/maintenance.js';
import type { Pseudonymizer } from './pseudonym.js';

export type { AuditBackend, AuditDialect, AuditReader, SqlValue } from './backend.js';
export { openBackend } from './open-backend.js';
export { sqliteReader } from './sqlite/reader.js';

/**
 * Open the audit store at `target` read-only: a `postgres://` / `postgresql://` URL opens the
 * PostgreSQL store (credentials from the URL or the standard `PG*` variables), anything else is
 * a SQLite file path (see `openAuditReader` for its checks). The schema version is checked on
 * both: an older or newer schema is refused, never migrated here.
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-old`,
 *   `schema-too-new`, `native-module`; one line saying what to do, never a password.
 */
export function openStoreReader(target: string): Promise<AuditReader> {
  return openBackend(target).openReader();
}

/**
 * `prune`: SQLite deletes in chunks (`pruneOlderThan`); PostgreSQL drops whole day partitions
 * before the cutoff and deletes the rest in chunks (`prunePgStore`).
 * @throws {AuditStoreError}; RangeError for a bad age.
 */
export function pruneStore(target: string, olderThanMs: number, now: number = Date.now()): Promise<PruneResult> {
  return openBackend(target).prune(olderThanMs, now);
}

/** `prune --dry-run`: what `prune` would delete, read-only. @throws {AuditStoreError}; RangeError for a bad age. */
export function previewPruneInStore(target: string, olderThanMs: number, now: number = Date.now()): Promise<PrunePreview> {
  return openBackend(target).previewPrune(olderThanMs, now);
}

/**
 * `forget` (on PostgreSQL across every partition).
 * @throws {AuditStoreError}; TypeError when the value is neither an email nor a phone.
 */
export function forgetInStore(target: string, pseudonymizer: Pseudonymizer, emailOrPhone: string): Promise<ForgetResult> {
  return openBackend(target).forget(pseudonymizer, emailOrPhone);
}

/** `doctor --migrate`: the store's migrations (creating a PostgreSQL schema when the database is empty). */
export function migrateAuditStore(target: string): Promise<{ from: number; to: number; notes: string[] }> {
  return openBackend(target).migrate();
}

/**
 * `clients label`. Returns the stored label.
 * @throws {AuditStoreError}; RangeError for a bad name.
 */
export async function labelClientInStore(target: string, label: { client: string; name: string; contact: string | null; now?: number }): Promise<ClientLabel> {
  const row = checkedClientLabel(label);
  await openBackend(target).setClientLabel(row);
  return row;
}

/**
 * `issues resolve|mute|reopen` (issue 29): stores (or replaces) the state of an issue in the
 * store at `target` (a SQLite path or a `postgres://` URL), on a connection of its own, migrating
 * an older schema first as `prune` does. Returns the row stored (the operator name trimmed).
 * @throws {AuditStoreError} when the store cannot be opened or written; RangeError for a bad operator name.
 */
export async function setIssueStateInStore(target: string, row: IssueStateRow): Promise<IssueStateRow> {
  const problem = operatorNameProblem(row.set_by);
  if (problem) throw new RangeError(`Expected an operator name of 1–${MAX_OPERATOR_NAME} printable characters; the name ${problem}`);
  const stored = { ...row, set_by: row.set_by.trim() };
  await openBackend(target).setIssueState(stored);
  return stored;
}

/** `clients unlabel`; true when there was a label. @throws {AuditStoreError} */
export function unlabelClientInStore(target: string, client: string): Promise<boolean> {
  return openBackend(target).removeClientLabel(client);
}

/** Schema version, partitions, size and server version of a PostgreSQL store, for `doctor`. @throws {AuditStoreError} */
export async function inspectPostgresStore(url: string): Promise<PgStoreInspection> {
  const { inspectPgStore } = await import('./pg/maintenance.js');
  return inspectPgStore(url);
}

/** Empties a PostgreSQL store's audit tables (the demo replaces its own store); false when it had no audit schema. @throws {AuditStoreError} */
export async function truncatePostgresStore(url: string): Promise<boolean> {
  const { truncatePgStore } = await import('./pg/maintenance.js');
  return truncatePgStore(url);
}
