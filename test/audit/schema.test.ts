import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_EVENT_COLUMNS, MIGRATIONS, SCHEMA_VERSION, TRAFFIC_COLUMNS, migrate, openAuditSink } from '../../src/audit/index.js';
import { captureLogger, makeEvent, rawDb, tempDir } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('migrate()', () => {
  it('applies every migration once and sets user_version to SCHEMA_VERSION', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = new BetterSqlite3(t.db);
    expect(migrate(db)).toBe(MIGRATIONS.length);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(migrate(db)).toBe(SCHEMA_VERSION); // idempotent
    const columns = (table: string) => (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
    expect(columns('error_events')).toEqual([...ERROR_EVENT_COLUMNS]);
    expect(columns('traffic')).toEqual([...TRAFFIC_COLUMNS]);
    expect(columns('audit_gaps')).toEqual(['id', 'service', 'started_at', 'ended_at', 'dropped', 'reason']);
    db.close();
  });

  it('refuses a file that holds other tables but no schema version', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = new BetterSqlite3(t.db);
    db.exec('CREATE TABLE invoices (id INTEGER)');
    expect(() => migrate(db)).toThrow(expect.objectContaining({ code: 'AAP_NOT_AUDIT_DB' }));
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.close();
  });

  it('refuses a schema newer than this version', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = new BetterSqlite3(t.db);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(expect.objectContaining({ code: 'AAP_SCHEMA_TOO_NEW' }));
    db.close();
  });
});

describe('a database created by openAuditSink()', () => {
  it('is mode 0600 (with its -wal and -shm), in WAL mode, migrated, indexed, with journal_size_limit set', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, journalSizeLimitBytes: 1_048_576 });
    await sink.flush();
    expect(sink.health().state).toBe('ok');
    // While the writer is connected the -wal and -shm exist; SQLite gives them the main file's mode.
    for (const file of [t.db, `${t.db}-wal`, `${t.db}-shm`]) expect(statSync(file).mode & 0o777).toBe(0o600);
    const db = rawDb(t.db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>)
      .map((r) => r.name)
      .sort();
    // The indexes issue #4 asks for (time, code+time, skill+time, client+time, trace ids); later
    // migrations may add more (e.g. the partial retries index for storm scans).
    expect(indexes).toEqual(
      expect.arrayContaining([
        'audit_gaps_time',
        'error_events_client_time',
        'error_events_code_time',
        'error_events_skill_time',
        'error_events_time',
        'error_events_trace',
        'error_events_upstream_trace',
      ]),
    );
    db.close();
    await sink.close();
  });

  it('truncates the WAL to zero bytes when the last writer closes', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, idleCheckpointMs: 600_000 });
    for (let i = 0; i < 3_000; i++) sink.write(makeEvent(i));
    await sink.flush();
    expect(statSync(`${t.db}-wal`).size).toBeGreaterThan(0);
    await sink.close();
    expect(statSync(`${t.db}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
  });

  it('keeps the WAL bounded: once idle it is checkpointed down to at most journal_size_limit bytes', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, journalSizeLimitBytes: 65_536, idleCheckpointMs: 20 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2_000; i++) {
        const n = round * 2_000 + i;
        sink.write(makeEvent(n));
      }
      await sink.flush();
    }
    expect(statSync(`${t.db}-wal`).size).toBeGreaterThan(65_536); // grew while busy
    // Idle: the writer checkpoints (TRUNCATE when no reader holds the WAL).
    const deadline = Date.now() + 10_000;
    while (statSync(`${t.db}-wal`).size > 65_536 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(statSync(`${t.db}-wal`).size).toBeLessThanOrEqual(65_536);
    await sink.close();
    expect(statSync(`${t.db}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBeLessThanOrEqual(65_536);
  });
});
