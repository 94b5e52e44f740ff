/**
 * Read-only access to the audit store (DESIGN §5 "Readers open read-only"), with the checks the
 * CLI needs to give one clear line instead of a SQLite error.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { loadDriver } from './driver.js';
import { AuditStoreError } from './errors.js';
import { SCHEMA_VERSION, migrate } from './schema.js';

/** Busy timeout of reader and maintenance connections, ms. */
export const READER_BUSY_TIMEOUT_MS = 5_000;

function classify(error: unknown, path: string): AuditStoreError {
  if (error instanceof AuditStoreError) return error;
  const code = String((error as { code?: unknown })?.code ?? '');
  const text = String((error as Error)?.message ?? error).split('\n')[0];
  if (code === 'SQLITE_NOTADB' || code === 'AAP_NOT_AUDIT_DB' || code === 'SQLITE_CORRUPT') {
    return new AuditStoreError('not-an-audit-db', path, `${path} is not an aap-triage audit database (${text}): check --db / AAP_TRIAGE_DB`, {
      cause: error,
    });
  }
  if (code === 'AAP_SCHEMA_TOO_NEW') {
    return new AuditStoreError('schema-too-new', path, `${path} was written by a newer aap-triage (${text}): upgrade aap-triage`, { cause: error });
  }
  return new AuditStoreError('unreadable', path, `cannot read ${path} (${code || 'error'}: ${text}): check the file's owner and mode and its folder's permissions`, {
    cause: error,
  });
}

/** The one-line advice for a database whose schema is older than this aap-triage's. */
export const UPGRADE_HINT = 'run `aap-triage doctor --migrate` (or restart an instrumented server) to upgrade it';

/**
 * Check the schema version of an open connection; throws {@link AuditStoreError}
 * (`schema-too-new`, `not-an-audit-db`, and with `allowOlder` false, `schema-too-old`).
 */
function checkVersion(db: BetterSqlite3.Database, path: string, allowOlder: boolean): number {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) {
    throw new AuditStoreError('schema-too-new', path, `${path} has schema version ${version}, newer than this aap-triage's ${SCHEMA_VERSION}: upgrade aap-triage`);
  }
  if (version === 0) {
    throw new AuditStoreError('not-an-audit-db', path, `${path} is not an aap-triage audit database (no schema version): check --db / AAP_TRIAGE_DB`);
  }
  if (version < SCHEMA_VERSION && !allowOlder) {
    throw new AuditStoreError('schema-too-old', path, `${path} has schema version ${version}, older than this aap-triage's ${SCHEMA_VERSION}: ${UPGRADE_HINT}`);
  }
  return version;
}

/**
 * Open the audit database read-only (`readonly: true, fileMustExist: true`, busy timeout 5 s)
 * and check its schema version. A reader never writes: a database with an older schema is not
 * migrated here (a new index on a 10 M-row table would block a plain search for minutes) but
 * refused with `schema-too-old`; `migrateStore` (the CLI's `doctor --migrate`) or the next
 * writer to start upgrades it.
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-old`,
 *   `schema-too-new`, `native-module`; the message is one line saying what to do.
 */
export function openAuditReader(path: string): BetterSqlite3.Database {
  return openReadOnly(path, false).db;
}

/**
 * The read-only connection behind {@link openAuditReader}; with `allowOlder`, an older schema is
 * accepted and its version returned (for `inspectStore`).
 * @throws {AuditStoreError}
 */
export function openReadOnly(path: string, allowOlder: boolean): { db: BetterSqlite3.Database; version: number; file: string } {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new AuditStoreError(
      'missing',
      file,
      `no audit database at ${file} — start an instrumented server (it creates one) or point --db / AAP_TRIAGE_DB at it${existsSync(resolve('aap-triage-demo.db')) ? ' (the demo wrote ./aap-triage-demo.db: --db aap-triage-demo.db)' : ''}`,
    );
  }
  const Driver = loadDriver(file);
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new Driver(file, { readonly: true, fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
    const version = checkVersion(db, file, allowOlder);
    return { db, version, file };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // already closed
    }
    throw classify(error, file);
  }
}

/**
 * Open the audit database read-write for maintenance (prune, forget): must exist, migrated,
 * busy timeout 5 s, `secure_delete` on so deleted rows are overwritten, not left in free pages.
 * @throws {AuditStoreError}
 */
export function openAuditMaintenance(path: string): BetterSqlite3.Database {
  const file = resolve(path);
  if (!existsSync(file)) throw new AuditStoreError('missing', file, `no audit database at ${file}: check --db / AAP_TRIAGE_DB`);
  const Driver = loadDriver(file);
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new Driver(file, { fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
    checkVersion(db, file, true);
    migrate(db);
    db.pragma('secure_delete = ON');
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // already closed
    }
    throw classify(error, file);
  }
}
