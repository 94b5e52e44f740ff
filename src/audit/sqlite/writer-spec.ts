/**
 * The SQLite writer's worker thread (DESIGN §5 "Writer"): its source (writer-worker.ts's body with
 * the migration function) and its `workerData`, for {@link WriterWorkerSpec}.
 */
import type { WriterWorkerSpec } from '../backend.js';
import { ERROR_EVENT_COLUMNS } from '../columns.js';
import type { WorkerInit } from '../internal-types.js';
import { applyMigrations } from '../migrate.js';
import { ISSUE_HOUR_VERSIONS_UPSERT_SQL, ISSUE_HOURS_UPSERT_SQL, MIGRATIONS } from '../schema.js';
import { writerWorkerMain } from '../writer-worker.js';

/** The worker's source: the migration function and the worker body, as plain JavaScript. */
function workerSource(): string {
  // Both functions inline as expressions (a bundler may rename their declarations), and
  // `require` passed in (the library bundle rewrites free `require(…)` calls to its own shim).
  return `'use strict';\n(${writerWorkerMain.toString()})(${applyMigrations.toString()}, require);\n`;
}

/** The SQLite store's writer thread: one file, opened (created 0600, WAL, migrated) in the worker. */
export const SQLITE_WRITER_THREAD: WriterWorkerSpec = {
  driver: 'better-sqlite3',
  threadName: 'aap-triage-audit-writer',
  source: workerSource,
  workerData(settings, driverPath, signal): WorkerInit {
    return {
      path: settings.path,
      driverPath,
      busyTimeoutMs: settings.busyTimeoutMs,
      journalSizeLimitBytes: settings.journalSizeLimitBytes,
      idleCheckpointMs: settings.idleCheckpointMs,
      migrations: MIGRATIONS,
      errorColumns: ERROR_EVENT_COLUMNS,
      issueHoursUpsert: ISSUE_HOURS_UPSERT_SQL,
      issueHourVersionsUpsert: ISSUE_HOUR_VERSIONS_UPSERT_SQL,
      signal,
    };
  },
  driverFailure: (code, message) => `better-sqlite3 failed to load (${code}: ${message}): run npm rebuild better-sqlite3; the server keeps running without an audit log`,
};
