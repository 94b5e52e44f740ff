/**
 * The one read interface of the audit store (DESIGN §5 "The store sits behind one interface"):
 * SQLite (the embedded default) and PostgreSQL (the fleet store) behind the same
 * Promise-returning `all`/`get`, so src/triage, the CLI and the TUI never know which they read.
 *
 * SQL handed to a reader is the portable subset both engines answer the same way: `?`
 * placeholders (PostgreSQL's are numbered for it), `COALESCE`, `CASE`, positional `GROUP BY`,
 * no engine-only functions. Text columns compare bytewise on both (SQLite's BINARY, PostgreSQL's
 * `COLLATE "C"`), so orderings agree.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { migrateStore } from './inspect.js';
import { labelNameProblem, MAX_LABEL_NAME, removeClientLabel, setClientLabel, type ClientLabel } from './labels.js';
import { forgetSubject, previewPrune, pruneOlderThan, type ForgetResult, type PrunePreview, type PruneResult } from './maintenance.js';
import type { PgStoreInspection } from './pg/maintenance.js';
import { isPostgresUrl } from './paths.js';
import type { Pseudonymizer } from './pseudonym.js';
import { openReadOnly } from './reader.js';

/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;

/** Which engine a reader reads. Only diagnostics (doctor, benchmarks) look at it. */
export type AuditDialect = 'sqlite' | 'postgres';

/**
 * A read-only connection to the audit store. Numbers come back as JS numbers on both engines
 * (PostgreSQL's `bigint`/`numeric` results are converted); text as strings; NULL as null.
 * Methods reject with the engine's error for bad SQL; opening is where `AuditStoreError`s arise.
 */
export interface AuditReader {
  readonly dialect: AuditDialect;
  /** Where it reads, fit for logs and output: a file path, or a PostgreSQL URL without its password. */
  readonly location: string;
  /** Every row of `sql` with `params` bound to its `?` placeholders, in order. */
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row of `sql`, or undefined when there is none. */
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Release the connection(s). Idempotent. */
  close(): Promise<void>;
}

/** Statements prepared once per connection (the TUI re-runs the same queries every refresh). */
const CACHE_LIMIT = 200;

/**
 * An {@link AuditReader} over an open better-sqlite3 connection. better-sqlite3 is synchronous:
 * each call runs at once and returns a settled promise, so answers and their order are exactly
 * those of the connection.
 */
export function sqliteReader(db: BetterSqlite3.Database, location: string = db.name): AuditReader {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string): BetterSqlite3.Statement => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (cache.size > CACHE_LIMIT) cache.clear();
      cache.set(sql, st);
    }
    return st;
  };
  let closed = false;
  return {
    dialect: 'sqlite',
    location,
    async all<T>(sql: string, params: readonly SqlValue[] = []) {
      return statement(sql).all(...params) as T[];
    },
    async get<T>(sql: string, params: readonly SqlValue[] = []) {
      return statement(sql).get(...params) as T | undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/**
 * Open the audit store at `target` read-only: a `postgres://` / `postgresql://` URL opens the
 * PostgreSQL store (credentials from the URL or the standard `PG*` variables), anything else is
 * a SQLite file path (see `openAuditReader` for its checks). The schema version is checked on
 * both: an older or newer schema is refused, never migrated here.
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-old`,
 *   `schema-too-new`, `native-module`; one line saying what to do, never a password.
 */
export async function openStoreReader(target: string): Promise<AuditReader> {
  if (isPostgresUrl(target)) {
    const { openPgReader } = await import('./pg/reader.js');
    return openPgReader(target);
  }
  const { db, file } = openReadOnly(target, false);
  return sqliteReader(db, file);
}

/**
 * `prune` on either store: SQLite deletes in chunks (`pruneOlderThan`); PostgreSQL drops whole
 * day partitions before the cutoff and deletes the rest in chunks (`prunePgStore`).
 * @throws {AuditStoreError}; RangeError for a bad age.
 */
export async function pruneStore(target: string, olderThanMs: number, now: number = Date.now()): Promise<PruneResult> {
  if (!isPostgresUrl(target)) return pruneOlderThan(target, olderThanMs, now);
  const { prunePgStore } = await import('./pg/maintenance.js');
  const { errorEvents, traffic, gaps } = await prunePgStore(target, olderThanMs, now);
  return { errorEvents, traffic, gaps };
}

/**
 * `forget` on either store (`forgetSubject` / `forgetPgSubject`; on PostgreSQL across every partition).
 * @throws {AuditStoreError}; TypeError when the value is neither an email nor a phone.
 */
export async function forgetInStore(target: string, pseudonymizer: Pseudonymizer, emailOrPhone: string): Promise<ForgetResult> {
  if (!isPostgresUrl(target)) return forgetSubject(target, pseudonymizer, emailOrPhone);
  const { forgetPgSubject } = await import('./pg/maintenance.js');
  return forgetPgSubject(target, pseudonymizer, emailOrPhone);
}

/** `doctor --migrate` on either store: SQLite's `migrateStore`, or the PostgreSQL migrations (creating the schema when the database is empty). */
export async function migrateAuditStore(target: string): Promise<{ from: number; to: number }> {
  if (!isPostgresUrl(target)) return migrateStore(target);
  const { migratePgStore } = await import('./pg/maintenance.js');
  return migratePgStore(target);
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

/**
 * `clients label` on either store (`setClientLabel` on SQLite). Returns the stored label.
 * @throws {AuditStoreError}; RangeError for a bad name.
 */
export async function labelClientInStore(target: string, label: { client: string; name: string; contact: string | null; now?: number }): Promise<ClientLabel> {
  if (!isPostgresUrl(target)) return setClientLabel(target, label);
  const problem = labelNameProblem(label.name);
  if (problem) throw new RangeError(`Expected a label name of 1–${MAX_LABEL_NAME} printable characters; the name ${problem}`);
  const row: ClientLabel = { client: label.client, name: label.name.trim(), contact: label.contact, updated_at: label.now ?? Date.now() };
  const { setPgClientLabel } = await import('./pg/maintenance.js');
  await setPgClientLabel(target, row);
  return row;
}

/** `clients unlabel` on either store; true when there was a label. @throws {AuditStoreError} */
export async function unlabelClientInStore(target: string, client: string): Promise<boolean> {
  if (!isPostgresUrl(target)) return removeClientLabel(target, client);
  const { removePgClientLabel } = await import('./pg/maintenance.js');
  return removePgClientLabel(target, client);
}

/** `prune --dry-run` on either store (`previewPrune` on SQLite; on PostgreSQL the same counts through its reader). @throws {AuditStoreError}; RangeError for a bad age. */
export async function previewPruneInStore(target: string, olderThanMs: number, now: number = Date.now()): Promise<PrunePreview> {
  if (!isPostgresUrl(target)) return previewPrune(target, olderThanMs, now);
  if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new RangeError(`Expected olderThanMs to be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`);
  }
  const cutoff = now - olderThanMs;
  const db = await openStoreReader(target);
  try {
    const e = await db.get<{ n: number; lo: number | null; hi: number | null }>(
      'SELECT count(*) AS n, min(occurred_at) AS lo, max(occurred_at) AS hi FROM error_events WHERE occurred_at < ?',
      [cutoff],
    );
    const count = async (sql: string): Promise<number> => (await db.get<{ n: number }>(sql, [cutoff]))?.n ?? 0;
    return {
      cutoff,
      errorEvents: e?.n ?? 0,
      traffic: await count('SELECT count(*) AS n FROM traffic WHERE minute < ?'),
      gaps: await count('SELECT count(*) AS n FROM audit_gaps WHERE ended_at < ?'),
      oldestError: e?.lo ?? null,
      newestError: e?.hi ?? null,
      keptErrors: await count('SELECT count(*) AS n FROM error_events WHERE occurred_at >= ?'),
    };
  } finally {
    await db.close();
  }
}
