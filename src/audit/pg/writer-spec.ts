/**
 * The PostgreSQL writer's worker thread (issue #19): its source (the schema functions and
 * pg/writer-worker.ts's body) and its `workerData`, for {@link WriterWorkerSpec}.
 */
import type { WriterWorkerSpec } from '../backend.js';
import { columnIndex, ERROR_EVENT_COLUMNS } from '../columns.js';
import { nodePgConnectionString } from '../paths.js';
import { issueHoursBatchSql } from './issue-hours.js';
import { ensurePartitions, migratePg, PG_MIGRATIONS, schemaFunctionsSource } from './schema.js';
import { pgWriterWorkerMain, type PgWorkerInit } from './writer-worker.js';

/**
 * First line of the worker's source. The bundle (dist/lib, scripts/bundle-lib.mjs) rewrites
 * `require` inside the worker functions to rolldown's `__require` shim, which an eval worker
 * does not have: it gets Node's own `require` under that name.
 */
const WORKER_PRELUDE = "'use strict';\nconst __require = require;\n";

/** The worker's source: the schema functions and the worker body. */
function workerSource(): string {
  // By the functions' own names: a bundler may rename them.
  return `${WORKER_PRELUDE}${schemaFunctionsSource()}\n(${pgWriterWorkerMain.toString()})({ migratePg: ${migratePg.name}, ensurePartitions: ${ensurePartitions.name}, issueHoursBatchSql: ${issueHoursBatchSql.name} });\n`;
}

/** The PostgreSQL store's writer thread: async I/O to one server, retried while it is away. */
export const PG_WRITER_THREAD: WriterWorkerSpec = {
  driver: 'pg',
  threadName: 'aap-triage-audit-writer-pg',
  source: workerSource,
  workerData(settings, driverPath, signal): PgWorkerInit {
    return {
      url: nodePgConnectionString(settings.path),
      driverPath,
      retryForMs: settings.busyTimeoutMs,
      migrations: PG_MIGRATIONS,
      errorColumns: ERROR_EVENT_COLUMNS,
      occurredAtIndex: columnIndex('occurred_at'),
      signal,
    };
  },
  driverFailure: (code, message) => `the pg client failed to load (${code}: ${message}): install pg; the server keeps running without an audit log`,
};
