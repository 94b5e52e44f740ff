import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_EVENT_COLUMNS, issueKey, openAuditSink, readHealth } from '../../src/audit/index.js';
import type { AuditHealth } from '../../src/audit/index.js';
import { captureLogger, count, makeEvent, rawDb, tempDir } from './helpers.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function temp() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t;
}

describe('openAuditSink() options', () => {
  it('names the option in a TypeError or RangeError', () => {
    expect(() => openAuditSink({ batchSize: 0 })).toThrow(/"batchSize" option must be at least 1/);
    expect(() => openAuditSink({ batchSize: 1.5 })).toThrow(/"batchSize" option to be an integer/);
    expect(() => openAuditSink({ queueLimit: 10, batchSize: 20 })).toThrow(/"queueLimit" option \(10\) must be at least "batchSize" \(20\)/);
    expect(() => openAuditSink({ flushInterval: 5 } as never)).toThrow(/Unknown option "flushInterval": did you mean "flushIntervalMs"\?/);
    expect(() => openAuditSink({ path: ':memory:' })).toThrow(/"path" option/);
    expect(() => openAuditSink({ logger: {} as never })).toThrow(/"logger" option/);
  });
});

describe('SqliteAuditSink#write()', () => {
  it('stores one row per event, 1:1 by error_id, with every column and the JSON columns as arrays', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false });
    const events = Array.from({ length: 50 }, (_, i) =>
      makeEvent(i, {
        retryable: i % 3 === 0 ? true : i % 3 === 1 ? false : null,
        retry_flags: i % 2 ? ['no_backoff', 'ignored_retry_after'] : [],
        violations: i % 5 === 0 ? [{ location: '/customer/email', keyword: 'format' }] : [],
        conformance: i % 7 === 0 ? ['aap.error.array-shape'] : [],
      }),
    );
    for (const e of events) sink.write(e);
    await sink.close();
    expect(sink.health()).toMatchObject({ state: 'ok', written: 50, dropped: 0, failed: 0, queueSize: 0 });
    const db = rawDb(t.db);
    const rows = db.prepare(`SELECT ${ERROR_EVENT_COLUMNS.join(', ')} FROM error_events ORDER BY error_id`).all() as Array<Record<string, unknown>>;
    db.close();
    expect(rows).toHaveLength(50);
    rows.forEach((row, i) => {
      const e = events[i]!;
      expect(row).toEqual({
        ...e,
        retryable: e.retryable === null ? null : e.retryable ? 1 : 0,
        retry_flags: JSON.stringify(e.retry_flags),
        violations: JSON.stringify(e.violations),
        conformance: JSON.stringify(e.conformance),
        issue_key: issueKey(e),
        subject_alt: null,
        origin: null,
        service_version: null,
      });
    });
  });

  it('sanitises violation pointers and legacy_error again before storing them', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false });
    sink.write(
      makeEvent(1, {
        legacy_error: 'Phone +15555550123 is invalid',
        violations: [{ location: '/filters/jane.doe@example.com/0', keyword: 'additionalProperties' }],
      }),
    );
    await sink.close();
    const db = rawDb(t.db);
    expect(db.prepare('SELECT legacy_error, violations FROM error_events').get()).toEqual({
      legacy_error: null,
      violations: JSON.stringify([{ location: '/filters/*/0', keyword: 'additionalProperties' }]),
    });
    db.close();
  });

  it('adds traffic samples with the same key to what the store already holds', async () => {
    const t = temp();
    const sample = { minute: 1_700_000_040_000, service: 'dealer-test', skill: 'inventory.search', client: 'c1', requests: 5, errors: 2, retries: 1 };
    for (let run = 0; run < 2; run++) {
      const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false });
      sink.recordTraffic([sample, { ...sample, requests: 3, errors: 0, retries: 0 }]);
      sink.recordTraffic([{ ...sample, client: 'c2', requests: 1, errors: 1, retries: 1 }]);
      await sink.close();
    }
    const db = rawDb(t.db);
    expect(db.prepare('SELECT client, requests, errors, retries FROM traffic ORDER BY client').all()).toEqual([
      { client: 'c1', requests: 16, errors: 4, retries: 2 },
      { client: 'c2', requests: 2, errors: 2, retries: 2 },
    ]);
    db.close();
  });

  it('hands a batch over as soon as batchSize rows are queued', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, batchSize: 10, flushIntervalMs: 60_000, logger: captureLogger(), handleSignals: false });
    for (let i = 0; i < 25; i++) sink.write(makeEvent(i));
    const deadline = Date.now() + 5_000;
    while (sink.health().written < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // Two full batches are committed; the last 5 rows wait for the (one-minute) timer.
    expect(sink.health()).toMatchObject({ written: 20, queueSize: 5 });
    expect(count(t.db, 'error_events')).toBe(20);
    await sink.close();
    expect(count(t.db, 'error_events')).toBe(25);
  });

  it('hands a partial batch over after flushIntervalMs', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, batchSize: 1_000, flushIntervalMs: 50, logger: captureLogger(), handleSignals: false });
    for (let i = 0; i < 7; i++) sink.write(makeEvent(i));
    expect(sink.health().queueSize).toBe(7);
    const deadline = Date.now() + 5_000;
    while (sink.health().written < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(sink.health()).toMatchObject({ written: 7, queueSize: 0 });
    expect(count(t.db, 'error_events')).toBe(7);
    await sink.close();
  });

  it('commits everything queued on close(), and close() is idempotent', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, batchSize: 1_000, flushIntervalMs: 60_000, logger: captureLogger(), handleSignals: false });
    for (let i = 0; i < 321; i++) sink.write(makeEvent(i));
    await Promise.all([sink.close(), sink.close()]);
    expect(count(t.db, 'error_events')).toBe(321);
    sink.write(makeEvent(999)); // after close: counted, not thrown
    expect(sink.health()).toMatchObject({ written: 321, failed: 1 });
  });

  it('does not store an error_id twice and counts the duplicate', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false });
    sink.write(makeEvent(1));
    sink.write(makeEvent(1, { code: 'OTHER' }));
    await sink.close();
    expect(sink.health()).toMatchObject({ written: 1, duplicates: 1 });
    expect(count(t.db, 'error_events')).toBe(1);
  });

  it('drops a flood beyond queueLimit, counts every dropped record exactly, warns once and writes a gap row', async () => {
    const t = temp();
    const logger = captureLogger();
    const sink = openAuditSink({ path: t.db, batchSize: 5, queueLimit: 10, service: 'dealer-test', logger, handleSignals: false });
    // One synchronous flood: no batch can be acknowledged meanwhile, so exactly 10 fit.
    for (let i = 0; i < 10_000; i++) sink.write(makeEvent(i));
    expect(sink.health()).toMatchObject({ dropped: 9_990, queueSize: 10 });
    await sink.close();
    expect(sink.health()).toMatchObject({ written: 10, dropped: 9_990, failed: 0 });
    expect(count(t.db, 'error_events')).toBe(10);
    const db = rawDb(t.db);
    expect(db.prepare('SELECT service, started_at, ended_at, dropped, reason FROM audit_gaps').all()).toEqual([
      { service: 'dealer-test', started_at: makeEvent(10).occurred_at, ended_at: makeEvent(9_999).occurred_at, dropped: 9_990, reason: 'queue_full' },
    ]);
    db.close();
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(logger.lines.find((l) => l.level === 'warn')?.msg).toMatch(/queue full/);
  });

  it('stores a summary gap row from recordGap (the per-exchange cap) and counts it as dropped', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, service: 'dealer-test', logger: captureLogger(), handleSignals: false });
    sink.write(makeEvent(1));
    sink.recordGap({ service: 'dealer-test', startedAt: 1_700_000_000_100, endedAt: 1_700_000_000_200, count: 9_900, reason: 'exchange_cap' });
    sink.recordGap({ service: 'dealer-test', startedAt: 0, endedAt: 0, count: 0, reason: 'exchange_cap' });
    await sink.close();
    expect(sink.health()).toMatchObject({ written: 1, dropped: 9_900, failed: 0 });
    const db = rawDb(t.db);
    expect(db.prepare('SELECT service, started_at, ended_at, dropped, reason FROM audit_gaps').all()).toEqual([
      { service: 'dealer-test', started_at: 1_700_000_000_100, ended_at: 1_700_000_000_200, dropped: 9_900, reason: 'exchange_cap' },
    ]);
    db.close();
    expect(readHealth(t.db)).toMatchObject({ dropped: 9_900 });
  });

  it('counts a batch that cannot get the write lock as failed, reports degraded, then recovers and writes a gap row', async () => {
    const t = temp();
    const logger = captureLogger();
    const sink = openAuditSink({ path: t.db, busyTimeoutMs: 20, logger, handleSignals: false });
    await sink.flush(); // open and migrated
    const blocker = rawDb(t.db, false);
    blocker.exec('BEGIN IMMEDIATE'); // another process holding the write lock for too long
    for (let i = 0; i < 5; i++) sink.write(makeEvent(i));
    await sink.flush();
    expect(sink.health()).toMatchObject({ state: 'degraded', written: 0, failed: 5 });
    expect(sink.health().reason).toMatch(/a batch of 5 audit records failed \(SQLITE_BUSY/);
    expect(readHealth(t.db)?.state).toBe('degraded');
    blocker.exec('COMMIT');
    blocker.close();
    for (let i = 5; i < 8; i++) sink.write(makeEvent(i));
    await sink.close();
    expect(sink.health()).toMatchObject({ state: 'ok', reason: null, written: 3, failed: 5 });
    const db = rawDb(t.db);
    expect(db.prepare('SELECT started_at, ended_at, dropped, reason FROM audit_gaps').all()).toEqual([
      { started_at: makeEvent(0).occurred_at, ended_at: makeEvent(4).occurred_at, dropped: 5, reason: 'write_failed' },
    ]);
    db.close();
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('keeps serving when the database cannot be created: never throws, one error line, failed count, health file', async () => {
    const t = temp();
    const blocker = join(t.dir, 'not-a-folder');
    writeFileSync(blocker, 'x'); // a file where the database's folder should be: ENOTDIR even for root
    const path = join(blocker, 'audit.db');
    const logger = captureLogger();
    const states: AuditHealth[] = [];
    const sink = openAuditSink({ path, logger, handleSignals: false, onHealth: (h) => states.push(h) });
    for (let i = 0; i < 3; i++) expect(() => sink.write(makeEvent(i))).not.toThrow();
    await sink.flush();
    for (let i = 3; i < 5; i++) expect(() => sink.write(makeEvent(i))).not.toThrow();
    expect(() => sink.recordTraffic([{ minute: 0, service: 's', skill: '', client: '', requests: 1, errors: 0, retries: 0 }])).not.toThrow();
    await sink.close();
    const health = sink.health();
    expect(health).toMatchObject({ state: 'failed', written: 0, failed: 5, dropped: 0 });
    expect(health.reason).toMatch(/cannot open audit database .*not-a-folder\/audit\.db/);
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(states.map((s) => s.state)).toContain('failed');
    const file = readHealth(path);
    expect(file).toMatchObject({ state: 'failed', path, pid: process.pid });
    expect(file?.reason).toBe(health.reason);
  });

  it('keeps serving when the folder is read-only (non-root only: root ignores mode bits)', async (ctx) => {
    if (process.getuid?.() === 0) ctx.skip();
    const t = temp();
    chmodSync(t.dir, 0o555);
    cleanups.unshift(() => chmodSync(t.dir, 0o755));
    const logger = captureLogger();
    const sink = openAuditSink({ path: t.db, logger, handleSignals: false });
    expect(() => sink.write(makeEvent(1))).not.toThrow();
    await sink.close();
    expect(sink.health()).toMatchObject({ state: 'failed', failed: 1 });
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(readHealth(t.db)?.state).toBe('failed');
    expect(existsSync(t.db)).toBe(false);
  });

  it('writes an ok health file next to the database once it is open, named after its service and process, and removes it on a clean shutdown', async () => {
    const t = temp();
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, service: 'dealer-test' });
    sink.write(makeEvent(1));
    await sink.flush();
    const name = `${t.db}.health.dealer-test.${process.pid}.json`;
    // The file is rewritten at most once a second: wait for the report that counts the row.
    for (let i = 0; i < 60 && readHealth(t.db)?.written !== 1; i++) await new Promise((r) => setTimeout(r, 50));
    const file = JSON.parse(readFileSync(name, 'utf8'));
    expect(file).toMatchObject({ state: 'ok', written: 1, path: t.db, service: 'dealer-test' });
    await sink.close();
    expect(existsSync(name)).toBe(false);
    expect(readHealth(t.db)).toBeNull();
  });
});
