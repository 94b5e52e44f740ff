import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStoreError, SCHEMA_VERSION, migrate, openAuditReader } from '../../src/audit/index.js';
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
});
