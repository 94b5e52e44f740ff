/**
 * An all-error flood that the audit worker cannot keep up with (issue 14 "Also measure"): a real
 * @a2a-js/sdk dealer behind the instrumentation, writing to a real SQLite file whose write lock
 * another connection holds, so the worker thread waits on its first batch (as on a stalled disk
 * or a long checkpoint) while the errors keep coming. What the worker sustains when it is not
 * stalled is measured by bench/a2a-dealer.bench.mjs (stored = sent, dropped = 0).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditSink } from '../../src/audit/index.js';
import type { SqliteAuditSink } from '../../src/audit/index.js';
import { ATTR_AAP_AUDIT_OUTCOME, METRIC_AAP_AUDIT_RECORDS } from '../../src/instrument/attributes.js';
import { AAP_CODES, ERROR_ID_PATTERN } from '../../src/protocol/index.js';
import { captureLogger, rawDb, tempDir } from '../audit/helpers.js';
import { post, sendMessageBody, startAapServer } from '../helpers/aap-server.js';
import type { AapServer } from '../helpers/aap-server.js';
import { counterSum, waitFor } from '../helpers/otel.js';
import { createHarness, wireErrorId } from './harness.js';
import type { Harness } from './harness.js';

const QUEUE_LIMIT = 20;
const FLOOD = 200;
const AFTER = 5;

const t = tempDir('aap-flood-');
const auditLog = captureLogger();
let sink: SqliteAuditSink;
let h: Harness;
let srv: AapServer;

beforeAll(async () => {
  sink = openAuditSink({ path: t.db, service: 'dealer-test', batchSize: 10, queueLimit: QUEUE_LIMIT, busyTimeoutMs: 30_000, logger: auditLog, handleSignals: false });
  await sink.flush(); // created and migrated before the lock is taken
  h = createHarness({ auditSink: sink });
  srv = await startAapServer({ triage: h.triage });
});
afterAll(async () => {
  await srv.close();
  await h.triage.shutdown();
  t.cleanup();
});

/** `n` all-error calls, 25 at a time; returns the error_id each answer carried. */
async function flood(prefix: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, (_, k) =>
        post(srv.rpcUrl, sendMessageBody(`${prefix}-${i + k}`, 'inventory.vehicle', { failInHandler: 'VEHICLE_NOT_FOUND', nonce: randomUUID() })),
      ),
    );
    for (const r of answers) {
      // The host's answer is the same conformant error whether or not its record could be queued.
      expect(r.status).toBe(200);
      expect((r.json as { error: { code: number } }).error.code).toBe(AAP_CODES.VEHICLE_NOT_FOUND.jsonrpcCode);
      const id = wireErrorId(r.json);
      expect(id).toMatch(ERROR_ID_PATTERN);
      ids.push(id as string);
    }
  }
  return ids;
}

describe('an all-error flood faster than the audit worker', () => {
  it('answers every call, counts each record it cannot queue as dropped, and leaves a gap row that accounts for them', async () => {
    const blocker = rawDb(t.db, false);
    blocker.exec('BEGIN IMMEDIATE'); // the worker's first batch now waits for the lock
    const flooded = await flood('flood', FLOOD);
    // Bounded queue: the rows in flight plus those waiting never exceed queueLimit; the rest are
    // counted, one warning says so, and nothing blocks or throws into the server.
    expect(sink.health()).toMatchObject({ state: 'ok', dropped: FLOOD - QUEUE_LIMIT, queueSize: QUEUE_LIMIT, failed: 0 });
    expect(counterSum((await h.otel.metrics()).get(METRIC_AAP_AUDIT_RECORDS), { [ATTR_AAP_AUDIT_OUTCOME]: 'dropped' })).toBe(FLOOD - QUEUE_LIMIT);
    expect(auditLog.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'audit: queue full; error records are being dropped and counted (a gap row will say how many)',
    ]);

    blocker.exec('COMMIT'); // the worker catches up
    blocker.close();
    await waitFor(() => sink.health().queueSize === 0, 10_000);
    const after = await flood('after', AFTER);
    await sink.flush();
    const m = (await h.otel.metrics()).get(METRIC_AAP_AUDIT_RECORDS);
    expect(counterSum(m, { [ATTR_AAP_AUDIT_OUTCOME]: 'written' })).toBe(QUEUE_LIMIT + AFTER);
    expect(counterSum(m, { [ATTR_AAP_AUDIT_OUTCOME]: 'dropped' })).toBe(FLOOD - QUEUE_LIMIT);

    const db = rawDb(t.db);
    const stored = db.prepare('SELECT error_id FROM error_events').pluck().all() as string[];
    const gaps = db.prepare('SELECT service, started_at, ended_at, dropped, reason FROM audit_gaps').all() as Array<Record<string, unknown>>;
    db.close();
    // queueLimit errors of the flood are stored (the first the server handled), then every one
    // after the worker caught up.
    const fromFlood = new Set(flooded);
    expect(stored.filter((id) => fromFlood.has(id))).toHaveLength(QUEUE_LIMIT);
    expect(stored.filter((id) => !fromFlood.has(id)).sort()).toEqual([...after].sort());
    // One gap row, written with the first record after the flood: how many, when, why.
    expect(gaps).toEqual([{ service: 'dealer-test', started_at: expect.any(Number), ended_at: expect.any(Number), dropped: FLOOD - QUEUE_LIMIT, reason: 'queue_full' }]);
    const gap = gaps[0]!;
    expect(gap.started_at as number).toBeLessThanOrEqual(gap.ended_at as number);
    // Every error the server answered is either a row or counted in a gap.
    expect(stored.length + (gap.dropped as number)).toBe(FLOOD + AFTER);
  });
});
