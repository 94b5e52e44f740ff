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

/** Check the schema version of an open connection; throws {@link AuditStoreError}. */
function checkVersion(db: BetterSqlite3.Database, path: string): number {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) {
    throw new AuditStoreError('schema-too-new', path, `${path} has schema version ${version}, newer than this aap-triage's ${SCHEMA_VERSION}: upgrade aap-triage`);
  }
  if (version === 0) {
    throw new AuditStoreError('not-an-audit-db', path, `${path} is not an aap-triage audit database (no schema version): check --db / AAP_TRIAGE_DB`);
  }
  return version;
}

/**
 * Open the audit database read-only (`readonly: true, fileMustExist: true`, busy timeout 5 s)
 * and check its schema version. A database with an older schema is first migrated by a short
 * read-write connection (a reader may be the first to run after an upgrade).
 *
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-new`,
 *   `native-module`; the message is one line saying what to do.
 */
export function openAuditReader(path: string): BetterSqlite3.Database {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new AuditStoreError(
      'missing',
      file,
      `no audit database at ${file}: start an instrumented server (it creates one) or point --db / AAP_TRIAGE_DB at it`,
    );
  }
  const Driver = loadDriver(file);
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new Driver(file, { readonly: true, fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
    const version = checkVersion(db, file);
    if (version < SCHEMA_VERSION) {
      db.close();
      const writer = new Driver(file, { fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
      try {
        migrate(writer);
      } finally {
        writer.close();
      }
      db = new Driver(file, { readonly: true, fileMustExist: true, timeout: READER_BUSY_TIMEOUT_MS });
      checkVersion(db, file);
    }
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
    checkVersion(db, file);
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
