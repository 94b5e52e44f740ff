// Issue #19: "PostgreSQL restarted in the middle of a stream: the writers reconnect, the rows in
// flight are written or counted in a gap record, nothing is thrown into the host." A real restart
// of a real server: a private cluster of the machine's PostgreSQL (initdb in a temporary folder,
// its own port), so restarting it disturbs no other test. Skipped where the PostgreSQL server
// binaries or `runuser` are missing (PostgreSQL refuses to run as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditSink } from '../../src/audit/index.js';
import { openStoreReader } from '../../src/audit/store.js';
import { listGaps, searchErrors } from '../../src/triage/index.js';
import { captureLogger, makeEvent, removeOwnHealthRecords } from './helpers.js';

const ALL = { since: 0, until: Number.MAX_SAFE_INTEGER };
const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [];
const BIN = versions.length > 0 ? `/usr/lib/postgresql/${versions.sort().at(-1)}/bin` : '';
const uid = (name: string): number | null => {
  const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
};
const PG_UID = uid('postgres');
const usable = BIN !== '' && existsSync(join(BIN, 'initdb')) && PG_UID !== null && spawnSync('runuser', ['--help']).status === 0 && process.getuid?.() === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** When the server process started (changes with each restart). */
async function startedAt(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return String((await c.query('SELECT pg_postmaster_start_time()::text AS t')).rows[0].t);
  } finally {
    await c.end();
  }
}

let dir = '';
let port = 0;
let target = '';
const pgCtl = (...args: string[]): void => {
  execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, 'pg_ctl'), '-D', join(dir, 'data'), ...args], { stdio: 'ignore', timeout: 60_000 });
};
const startArgs = (): string[] => ['-w', '-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`];

describe.skipIf(!usable)('PostgreSQL restarted in the middle of a stream (a private cluster)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aap-pg-restart-'));
    chownSync(dir, PG_UID as number, PG_UID as number);
    execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, 'initdb'), '-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', timeout: 60_000 });
    port = await freePort();
    pgCtl(...startArgs(), 'start');
  }, 90_000);
  afterAll(() => {
    if (target) removeOwnHealthRecords(target);
    if (!dir) return;
    try {
      pgCtl('-m', 'immediate', 'stop');
    } catch {
      // already down
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('reconnects after the restart; every row is written or counted in a gap record; nothing is thrown into the host', async () => {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const logger = captureLogger();
    target = url;
    const sink = openAuditSink({ path: url, logger, handleSignals: false, batchSize: 50, flushIntervalMs: 20, queueLimit: 5_000, busyTimeoutMs: 1_500 });
    const base = Date.UTC(2026, 11, 1, 9, 0, 0);
    let n = 0;
    const burst = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const e = makeEvent(20_000 + n, { occurred_at: base + n, service: 'dealer-pg-restart' });
        n++;
        expect(() => sink.write(e)).not.toThrow();
      }
      await new Promise((r) => setTimeout(r, 50));
    };
    await burst(300);
    await sink.flush();
    const before = await startedAt(url);
    // The stream goes on while the server restarts (fast shutdown: sessions are terminated).
    const writing = (async () => {
      for (let i = 0; i < 20; i++) await burst(20);
    })();
    pgCtl('-m', 'fast', '-w', 'restart', ...startArgs().slice(3));
    await writing;
    expect(await startedAt(url)).not.toBe(before);
    await burst(300);
    await sink.close();
    const health = sink.health();
    expect(health.written + health.failed + health.dropped).toBe(n);
    expect(health.state).toBe('ok');
    const reader = await openStoreReader(url);
    try {
      const stored = await searchErrors(reader, 'service:dealer-pg-restart', ALL, { limit: 1 });
      expect(stored.total).toBe(health.written);
      const gaps = (await listGaps(reader, ALL)).filter((g) => g.service === 'dealer-pg-restart');
      expect(gaps.reduce((a, g) => a + g.dropped, 0)).toBe(health.failed + health.dropped);
    } finally {
      await reader.close();
    }
    // The rows after the restart were written: the writer came back on its own.
    expect(health.written).toBeGreaterThanOrEqual(600);
    // Nothing the writer logged about the outage names a request value or the URL's secrets.
    expect(JSON.stringify(logger.lines)).not.toContain('example.com');
  }, 120_000);
});
