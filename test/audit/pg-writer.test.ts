// The PostgreSQL audit writer (issue #19): the same sink as SQLite's (queue, drop accounting, gap
// records, health) writing one PostgreSQL store; reconnecting when the server goes away; and no
// password in logs, the health file or doctor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditSink } from '../../src/audit/index.js';
import { readHealthRecords } from '../../src/audit/health.js';
import { openStoreReader } from '../../src/audit/store.js';
import { computeStats, listGaps, searchErrors } from '../../src/triage/index.js';
import { runDoctor } from '../../src/cli/actions/doctor.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { captureLogger, makeEvent, removeOwnHealthRecords } from './helpers.js';

const ALL = { since: 0, until: Number.MAX_SAFE_INTEGER };
/** Trust authentication ignores the password, so it can stand for a real secret here. */
const SECRET = 's3cret-Pa55word';
const withPassword = (url: string, port?: number): string => {
  const u = new URL(url);
  u.password = SECRET;
  if (port !== undefined) u.port = String(port);
  return u.toString();
};

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
/** Stores the sinks here wrote to: their health reports are removed at the end. */
const targets = new Set<string>();
afterAll(async () => {
  for (const target of targets) removeOwnHealthRecords(target);
  await database.drop();
});

describe('PostgreSQL audit sink', () => {
  it('writes error rows, traffic and gap records in batches, readable through the store reader', async () => {
    const logger = captureLogger();
    const url = withPassword(database.url);
    targets.add(url);
    const sink = openAuditSink({ path: url, logger, handleSignals: false, batchSize: 100, queueLimit: 300 });
    expect(sink.path).not.toContain(SECRET);
    const base = Date.UTC(2026, 10, 30, 23, 59, 0);
    // Two days (two partitions); more than the queue holds at once → drops and one gap row.
    const versionOf = (i: number) => (i % 3 === 0 ? null : i % 3 === 1 ? '1.4.0' : '1.5.0');
    for (let i = 0; i < 400; i++) sink.write(makeEvent(i, { occurred_at: base + i * 1000, service_version: versionOf(i) }));
    sink.recordTraffic([{ minute: base, service: 'dealer-test', skill: 'inventory.search', client: 'c1', requests: 10, errors: 2, retries: 1 }]);
    sink.recordTraffic([{ minute: base, service: 'dealer-test', skill: 'inventory.search', client: 'c1', requests: 5, errors: 0, retries: 0 }]);
    await sink.flush();
    // A duplicate event (same id, same time) is not stored twice.
    sink.write(makeEvent(0, { occurred_at: base }));
    await sink.close();
    const health = sink.health();
    expect(health.dropped).toBeGreaterThan(0);
    expect(health.written + health.dropped).toBe(400);
    expect(health.state).toBe('ok');

    const reader = await openStoreReader(url);
    try {
      expect(reader.location).toBe(database.url.replace('postgres://postgres@', 'postgres://postgres@'));
      const page = await searchErrors(reader, '', ALL, { limit: 1 });
      expect(page.total).toBe(health.written);
      const gaps = await listGaps(reader, ALL);
      expect(gaps.reduce((a, g) => a + g.dropped, 0)).toBe(health.dropped);
      expect(gaps.every((g) => g.reason === 'queue_full')).toBe(true);
      const stats = await computeStats(reader, null, { since: base, until: base + 86_400_000 });
      expect(stats.traffic?.requests).toBe(15);
      // The writer kept the hourly summary in the batches' statements: it adds up to the rows,
      // per hour, the duplicate not counted (issue 31); and it equals a rebuild from the rows.
      const fromRows = await reader.all<{ hour: number; n: number }>(
        'SELECT occurred_at - occurred_at % 3600000 AS hour, count(*) AS n FROM error_events WHERE issue_key IS NOT NULL GROUP BY 1 ORDER BY 1',
      );
      const kept = await reader.all<{ hour: number; n: number }>('SELECT hour, sum(errors) AS n FROM issue_hours GROUP BY hour ORDER BY hour');
      expect(kept).toEqual(fromRows);
      expect(kept.reduce((a, r) => a + r.n, 0)).toBe(health.written);
      expect(kept.length).toBe(2);
      // …and its versions per hour and issue (migration 8), '' standing for none.
      const versionRows = await reader.all<{ hour: number; k: string; v: string; n: number }>(
        `SELECT occurred_at - occurred_at % 3600000 AS hour, issue_key AS k, COALESCE(service_version, '') AS v, count(*) AS n FROM error_events
          WHERE issue_key IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      );
      const keptVersions = await reader.all<{ hour: number; k: string; v: string; n: number }>(
        'SELECT hour, issue_key AS k, version AS v, errors AS n FROM issue_hour_versions ORDER BY 1, 2, 3',
      );
      expect(keptVersions).toEqual(versionRows);
      expect(new Set(keptVersions.map((r) => r.v))).toEqual(new Set(['', '1.4.0', '1.5.0']));
      // The day partitions the writer created carry the identifier columns' statistics target
      // (migration 9; a new partition does not inherit it). -1 (NULL from PostgreSQL 17): the default.
      const targets = await reader.all<{ part: string; col: string; target: number }>(
        `SELECT c.relname AS part, a.attname AS col, COALESCE(a.attstattarget, -1) AS target FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           JOIN pg_attribute a ON a.attrelid = c.oid WHERE i.inhparent = 'error_events'::regclass AND a.attname IN ('error_id', 'fingerprint', 'client') ORDER BY 1, 2`,
      );
      expect(targets.map((t) => [t.col, t.target])).toEqual([
        ['client', -1],
        ['error_id', 1],
        ['fingerprint', 1],
        ['client', -1],
        ['error_id', 1],
        ['fingerprint', 1],
      ]);
    } finally {
      await reader.close();
    }
    const records = readHealthRecords(url);
    expect(records.length).toBeGreaterThan(0);
    expect(JSON.stringify(records)).not.toContain(SECRET);
    expect(records[0]?.path).toBe(sink.path);
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  });

  it('says nothing of the password in doctor', async () => {
    const checks = await runDoctor(withPassword(database.url), { ...process.env, AAP_TRIAGE_KEY: 'k'.repeat(40) }, { now: Date.now() });
    const text = JSON.stringify(checks);
    expect(text).not.toContain(SECRET);
    expect(checks.find((c) => c.check === 'database')?.status).toBe('ok');
  });
});

describe('PostgreSQL audit sink when the server goes away', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(database.url).port || 5432) });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('reconnects with backoff; every row is written or counted in a gap record; nothing is thrown into the host', async () => {
    const logger = captureLogger();
    const url = withPassword(database.url, proxy.port);
    targets.add(url);
    const sink = openAuditSink({ path: url, logger, handleSignals: false, batchSize: 50, flushIntervalMs: 20, queueLimit: 2_000, busyTimeoutMs: 1_500 });
    const base = Date.UTC(2026, 11, 1, 8, 0, 0);
    const ids: string[] = [];
    let n = 10_000;
    const burst = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const e = makeEvent(n++, { occurred_at: base + n, service: 'dealer-restart' });
        ids.push(e.error_id);
        expect(() => sink.write(e)).not.toThrow();
      }
      await new Promise((r) => setTimeout(r, 50));
    };
    await burst(200);
    await sink.flush();
    await proxy.cut(); // the server "restarts": connections reset, the port refuses
    await burst(200); // rows in flight while it is away
    await new Promise((r) => setTimeout(r, 2_500)); // longer than a batch retries: some fail into a gap
    await burst(100);
    await proxy.restore();
    await burst(200);
    await sink.close();
    const health = sink.health();
    expect(health.written + health.failed + health.dropped).toBe(700);
    expect(health.failed).toBeGreaterThan(0);

    const reader = await openStoreReader(database.url);
    try {
      const stored = await searchErrors(reader, 'service:dealer-restart', ALL, { limit: 1 });
      expect(stored.total).toBe(health.written);
      const gaps = (await listGaps(reader, ALL)).filter((g) => g.service === 'dealer-restart');
      expect(gaps.reduce((a, g) => a + g.dropped, 0)).toBe(health.failed + health.dropped);
      expect(gaps.some((g) => g.reason === 'write_failed')).toBe(true);
    } finally {
      await reader.close();
    }
    // The batches after the restore were written: the writer came back.
    expect(health.state).toBe('ok');
    expect(logger.lines.some((l) => l.msg === 'audit: writes succeed again')).toBe(true);
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  }, 30_000);
});
