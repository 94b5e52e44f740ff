import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStoreError, MIGRATIONS, SCHEMA_VERSION, inspectStore, migrate, migrateStore, nativeModuleProblem, openAuditReader } from '../../src/audit/index.js';
import { tempDir } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function expectKind(fn: () => unknown, kind: AuditStoreError['kind'], message: RegExp) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AuditStoreError);
    expect((error as AuditStoreError).kind).toBe(kind);
    expect((error as AuditStoreError).message).toMatch(message);
    expect((error as AuditStoreError).message).not.toContain('\n');
    return;
  }
  throw new Error('expected an AuditStoreError');
}

describe('openAuditReader()', () => {
  it('opens a migrated database read-only', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const w = new BetterSqlite3(t.db);
    migrate(w);
    w.close();
    const db = openAuditReader(t.db);
    expect(db.readonly).toBe(true);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(() => db.exec("INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('s', 0, 0, 1, 'x')")).toThrow(/readonly/);
    db.close();
  });

  it('throws kind "missing" for a path with no file, and creates none', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expectKind(() => openAuditReader(t.db), 'missing', /no audit database at .*audit\.db/);
  });

  it('throws kind "not-an-audit-db" for a file that is not SQLite, or SQLite without the schema', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const text = join(t.dir, 'notes.db');
    writeFileSync(text, 'hello, this is not a database at all, just some text '.repeat(100));
    expectKind(() => openAuditReader(text), 'not-an-audit-db', /is not an aap-triage audit database/);
    const other = new BetterSqlite3(t.db);
    other.exec('CREATE TABLE invoices (id INTEGER)');
    other.close();
    expectKind(() => openAuditReader(t.db), 'not-an-audit-db', /is not an aap-triage audit database/);
  });

  it('throws kind "schema-too-new" for a database from a newer aap-triage', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const w = new BetterSqlite3(t.db);
    migrate(w);
    w.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    w.close();
    expectKind(() => openAuditReader(t.db), 'schema-too-new', /upgrade aap-triage/);
  });

  it('throws kind "unreadable" for a folder given as the database', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expectKind(() => openAuditReader(t.dir), 'unreadable', /cannot read/);
  });

  it('refuses an older schema with kind "schema-too-old" naming doctor --migrate, and leaves the file as it was', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    writeOldStore(t.db);
    expectKind(() => openAuditReader(t.db), 'schema-too-old', /schema version 1, older than this aap-triage's \d+: run `aap-triage doctor --migrate`/);
    const raw = new BetterSqlite3(t.db, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    expect(raw.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'error_events_retries'").get()).toEqual({ n: 0 });
    raw.close();
  });
});

/** A store at schema version 1 (as an aap-triage before migration 2 left it). */
function writeOldStore(path: string): void {
  const w = new BetterSqlite3(path);
  w.exec(MIGRATIONS[0] as string);
  w.pragma('user_version = 1');
  w.close();
}

describe('migrateStore()', () => {
  it('brings an older store to SCHEMA_VERSION, after which a reader opens it; a current store is left alone', () => {
    expect(SCHEMA_VERSION).toBeGreaterThan(1);
    const t = tempDir();
    cleanup = t.cleanup;
    writeOldStore(t.db);
    expect(migrateStore(t.db)).toEqual({ from: 1, to: SCHEMA_VERSION });
    const db = openAuditReader(t.db);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'error_events_retries'").get()).toEqual({ n: 1 });
    db.close();
    expect(migrateStore(t.db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });

  it('throws kind "missing" without creating a file', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expectKind(() => migrateStore(t.db), 'missing', /no audit database/);
  });
});

describe('inspectStore()', () => {
  it('reports schema versions, sizes and quick_check, and skips quick_check above the size given', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    writeOldStore(t.db);
    const size = statSync(t.db).size;
    expect(inspectStore(t.db)).toEqual({ path: t.db, schemaVersion: 1, expectedVersion: SCHEMA_VERSION, fileBytes: size, walBytes: 0, quickCheck: 'ok' });
    expect(inspectStore(t.db, { quickCheckMaxBytes: size - 1 }).quickCheck).toBeNull();
    // Inspecting never migrates.
    expect(inspectStore(t.db).schemaVersion).toBe(1);
  });

  it('reports the WAL size while a writer holds one open', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const w = new BetterSqlite3(t.db);
    w.pragma('journal_mode = WAL');
    w.pragma('wal_autocheckpoint = 0');
    migrate(w);
    w.exec("INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('s', 0, 0, 1, 'x')");
    const wal = statSync(`${t.db}-wal`).size;
    expect(wal).toBeGreaterThan(0);
    expect(inspectStore(t.db)).toMatchObject({ schemaVersion: SCHEMA_VERSION, walBytes: wal, quickCheck: 'ok' });
    w.close();
  });

  it('throws the reader\'s kinds for a file it cannot use', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expectKind(() => inspectStore(t.db), 'missing', /no audit database/);
    writeFileSync(t.db, 'not sqlite '.repeat(200));
    expectKind(() => inspectStore(t.db), 'not-an-audit-db', /is not an aap-triage audit database/);
  });
});

describe('nativeModuleProblem()', () => {
  it('is null when better-sqlite3 loads here', () => {
    expect(nativeModuleProblem()).toBeNull();
  });
});
