/**
 * Health facts about an audit database file for `aap-triage doctor` (schema version, integrity,
 * file and WAL size), and the explicit schema upgrade readers no longer do themselves
 * (DESIGN §5 "Readers open read-only").
 */
import { statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { loadDriver } from './driver.js';
import { AuditStoreError } from './errors.js';
import { backfillIssueKeys } from './issue-backfill.js';
import { READER_BUSY_TIMEOUT_MS, openReadOnly } from './reader.js';
import { SCHEMA_VERSION, migrate } from './schema.js';

/** What {@link inspectStore} found. Sizes in bytes. */
export interface StoreInspection {
  /** Absolute path of the database file. */
  path: string;
  /** `PRAGMA user_version` of the file. */
  schemaVersion: number;
  /** The version this aap-triage reads and writes (`SCHEMA_VERSION`). */
  expectedVersion: number;
  /** Size of the database file, bytes. */
  fileBytes: number;
  /** Size of the `-wal` file, bytes (0 when there is none). */
  walBytes: number;
  /** `PRAGMA quick_check` result (`'ok'` or the first problem), or null when skipped for size. */
  quickCheck: string | null;
}

/** Options of {@link inspectStore}. */
export interface InspectOptions {
  /** Run `quick_check` (reads the whole file) only when the file is at most this many bytes. @default Infinity */
  quickCheckMaxBytes?: number;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Opens `path` read-only (an older schema is accepted and reported, never migrated) and returns
 * its schema version, sizes and `quick_check` result. Never writes.
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-new`,
 *   `native-module` (one line saying what to do).
 */
export function inspectStore(path: string, options: InspectOptions = {}): StoreInspection {
  const { db, version, file } = openReadOnly(path, true);
  try {
    const fileBytes = sizeOf(file);
    let quickCheck: string | null = null;
    if (fileBytes <= (options.quickCheckMaxBytes ?? Number.POSITIVE_INFINITY)) {
      try {
        quickCheck = String(db.pragma('quick_check', { simple: true }));
      } catch (error) {
        // A damaged page can make the check itself fail: that is its answer.
        quickCheck = String((error as Error).message).split('\n')[0] ?? 'quick_check failed';
      }
    }
    return { path: file, schemaVersion: version, expectedVersion: SCHEMA_VERSION, fileBytes, walBytes: sizeOf(`${file}-wal`), quickCheck };
  } finally {
    db.close();
  }
}

/**
 * Brings the database at `path` to this aap-triage's schema with the writer's `migrate` (one
 * `BEGIN IMMEDIATE` transaction, busy timeout 5 s; a new index on a large table can take
 * minutes, during which writers wait). From a version before 3 it then keys the older rows into
 * issues (`backfillIssueKeys`: chunks of 5 000 rows, then one rebuild of `issue_hours`).
 * Returns the versions before and after.
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-new`,
 *   `native-module`.
 */
export function migrateStore(path: string): { from: number; to: number } {
  const { db: reader, version: from, file } = openReadOnly(path, true);
  // A writer may have migrated the file already (writers never backfill): rows without a key
  // still need one. The check is a scan, acceptable for this rare, explicit command.
  const unkeyed = from >= 3 && reader.prepare('SELECT 1 FROM error_events WHERE issue_key IS NULL LIMIT 1').get() !== undefined;
  reader.close();
  if (from === SCHEMA_VERSION && !unkeyed) return { from, to: from };
  const Driver = loadDriver(file);
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new Driver(file, { fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
    const to = migrate(db);
    // Rows from before version 3 get their issue key, so the upgraded store's history is grouped too.
    if (from < 3 || unkeyed) backfillIssueKeys(db);
    return { from, to };
  } catch (error) {
    throw new AuditStoreError('unreadable', file, `cannot migrate ${file} (${String((error as Error).message).split('\n')[0]}): check the file's owner and mode`, {
      cause: error,
    });
  } finally {
    db?.close();
  }
}
