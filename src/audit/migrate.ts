import type BetterSqlite3 from 'better-sqlite3';

/**
 * Bring `db` to `migrations.length` (`PRAGMA user_version` n means migrations 1..n are applied).
 * Runs in one `BEGIN IMMEDIATE` transaction and re-reads the version inside it, so several
 * processes opening a new file at once migrate it exactly once. Returns the version.
 *
 * Throws an `Error` whose `code` is `AAP_SCHEMA_TOO_NEW` (the file was written by a newer
 * aap-triage) or `AAP_NOT_AUDIT_DB` (version 0 but the file already holds other tables), or
 * the SQLite error.
 *
 * Self-contained on purpose (no imports, no outer bindings): the writer worker runs this same
 * function from its source text (see writer.ts).
 */
export function applyMigrations(db: BetterSqlite3.Database, migrations: readonly string[]): number {
  const fail = (code: string, message: string): never => {
    throw Object.assign(new Error(message), { code });
  };
  const readVersion = () => Number(db.pragma('user_version', { simple: true }));
  const target = migrations.length;
  const before = readVersion();
  if (before > target) fail('AAP_SCHEMA_TOO_NEW', `schema version ${before} is newer than this aap-triage's ${target}`);
  if (before === target) return before;
  db.exec('BEGIN IMMEDIATE');
  try {
    let version = readVersion();
    if (version > target) fail('AAP_SCHEMA_TOO_NEW', `schema version ${version} is newer than this aap-triage's ${target}`);
    if (version === 0) {
      const row = db
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .get() as { n: number };
      if (row.n > 0) fail('AAP_NOT_AUDIT_DB', 'the file holds tables but no audit schema version');
    }
    for (; version < target; version++) db.exec(migrations[version] as string);
    db.pragma(`user_version = ${target}`);
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
  return target;
}
