/**
 * The pseudonymisation key and audit writing (issue 16): the database folder is created before
 * the key is loaded, so a new store's rows carry the saved key; a key that cannot be loaded or
 * saved stops audit writing with one clear error line and every record counted as failed, never
 * a throwaway key; a short AAP_TRIAGE_KEY is refused the same way at start.
 * Real createTriage, real SQLite files, a real node:http DMC-12 server on loopback.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPseudonymizer, readHealth } from '../../src/audit/index.js';
import { createTriage } from '../../src/instrument/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, DMC12_TOKEN, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { captureLog } from '../helpers/log-capture.js';
import { rawDb, tempDir } from './helpers.js';

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** Runs an instrumented DMC-12 server auditing to `db`, sends `errors` error calls, shuts down. */
async function serveErrors(db: string, errors: number) {
  const log = captureLog();
  const triage = createTriage({ serviceName: 'dealer-key', auditDb: db, logger: log.logger });
  const srv = await startDmc12Server(triage);
  for (let i = 0; i < errors; i++) {
    const r = await post(srv.url, toolsCall(`k-${i}`, 'create_reservation', { fail: 'RESERVATION_CONFLICT', omitErrorId: true }), DMC12_HEADERS);
    expect(r.status).toBe(200);
  }
  await srv.close();
  await triage.shutdown();
  return log;
}

function withEnv(name: string, value: string): void {
  const before = process.env[name];
  process.env[name] = value;
  cleanups.push(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}

describe('a new store in a folder that does not exist yet', () => {
  it('creates the folder and saves the key first: rows carry it, and client lookups match them', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = join(t.dir, 'not', 'yet', 'audit.db');
    const log = await serveErrors(db, 3);
    expect(existsSync(`${db}.key`)).toBe(true);
    const key = loadPseudonymizer({ dbPath: db, create: false });
    const raw = rawDb(db);
    const rows = raw.prepare('SELECT key_id, client FROM error_events').all() as Array<{ key_id: string; client: string }>;
    raw.close();
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.key_id === key.keyId && r.client === key.client(DMC12_TOKEN))).toBe(true);
    expect(log.lines().some((l) => String(l.msg).startsWith('created pseudonym key file at'))).toBe(true);
  });
});

describe('a key that cannot be loaded or saved', () => {
  it('stops audit writing: one error line, every record failed, health failed, no rows, no throwaway key', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = join(t.dir, 'audit.db');
    writeFileSync(`${db}.key`, 'a-secret-that-others-can-read\n');
    chmodSync(`${db}.key`, 0o644);
    const log = await serveErrors(db, 4);
    const errors = log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.msg)).toMatch(/^audit: pseudonym key file .*audit\.db\.key is readable by group\/others .*; audit writing is stopped/);
    expect(JSON.stringify(log.lines())).not.toContain('a-secret-that-others-can-read');
    const health = readHealth(db);
    expect(health).toMatchObject({ state: 'failed', written: 0, failed: 4 });
    expect(health?.reason).toMatch(/readable by group\/others/);
    expect(existsSync(db)).toBe(false);
  });

  it('stops audit writing when the key file cannot be created (its folder is a file)', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    writeFileSync(join(t.dir, 'blocker'), 'x');
    const db = join(t.dir, 'blocker', 'audit.db');
    const log = await serveErrors(db, 2);
    const errors = log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.msg)).toMatch(/pseudonym key file .*blocker\/audit\.db\.key .*audit writing is stopped/);
    expect(readHealth(db)).toMatchObject({ state: 'failed', failed: 2 });
  });

  it('refuses an AAP_TRIAGE_KEY shorter than 16 characters at start, with one line', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    mkdirSync(join(t.dir, 'store'));
    const db = join(t.dir, 'store', 'audit.db');
    withEnv('AAP_TRIAGE_KEY', 'too-short');
    const log = await serveErrors(db, 1);
    const errors = log.lines().filter((l) => l.level === 50);
    expect(errors.map((l) => l.msg)).toEqual(['audit: AAP_TRIAGE_KEY is shorter than 16 characters: use a longer random secret; audit writing is stopped (every error record is counted as failed)']);
    expect(JSON.stringify(log.lines())).not.toContain('too-short');
    expect(readHealth(db)).toMatchObject({ state: 'failed', failed: 1 });
    expect(existsSync(db)).toBe(false);
    expect(existsSync(`${db}.key`)).toBe(false);
  });
});
