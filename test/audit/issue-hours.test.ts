/**
 * The hourly issue summary (`issue_hours`, schema 4, and `issue_hour_versions`, schema 8) as the
 * real writer keeps it: one upsert per (hour, issue) and per version of each batch, duplicates not
 * counted, and `forget` / `prune` rebuilding the hours they touch — always what the rows add up
 * to; and migration 8's backfill on both stores.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createPseudonymizer, forgetSubject, openAuditSink, pruneOlderThan } from '../../src/audit/index.js';
import pg from 'pg';
import { migratePg, PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/audit/pg/schema.js';
import { migrate, SCHEMA_VERSION } from '../../src/audit/schema.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';
import { captureLogger, makeEvent, tempDir } from './helpers.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 30, 10, 0, 0);
const p = createPseudonymizer('issue-hours-test-secret-0123');

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

/** issue_hours (client ids resolved to pseudonyms), and what error_events adds up to per (hour, issue). */
function compare(path: string): { summary: unknown[]; rows: unknown[] } {
  const db = new Database(path, { readonly: true });
  const names = new Map((db.prepare('SELECT id, client FROM issue_client_ids').all() as { id: number; client: string }[]).map((r) => [String(r.id), r.client]));
  const summary = (
    db.prepare('SELECT hour, issue_key, errors, retryable, terminal, first_at, last_at, clients FROM issue_hours ORDER BY 1, 2').all() as { clients: string }[]
  ).map((r) => ({ ...r, clients: r.clients.split(',').filter(Boolean).map((id) => names.get(id)).sort().join(',') }));
  const rows = (
    db
      .prepare(
        `SELECT occurred_at - occurred_at % 3600000 AS hour, issue_key, count(*) AS errors, sum(retryable IS 1) AS retryable,
                sum(retryable IS 0) AS terminal, min(occurred_at) AS first_at, max(occurred_at) AS last_at, group_concat(DISTINCT client) AS clients
           FROM error_events GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all() as { clients: string | null }[]
  ).map((r) => ({ ...r, clients: (r.clients ?? '').split(',').filter(Boolean).sort().join(',') }));
  const versions = db.prepare('SELECT hour, issue_key, version, errors FROM issue_hour_versions ORDER BY 1, 2, 3').all();
  const versionRows = db
    .prepare(
      `SELECT occurred_at - occurred_at % 3600000 AS hour, issue_key, IFNULL(service_version, '') AS version, count(*) AS errors
         FROM error_events GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    )
    .all();
  db.close();
  return { summary: [summary, versions], rows: [rows, versionRows] };
}

describe('issue_hours', () => {
  it('is what the rows add up to after the writer, forget and prune', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, batchSize: 7 });
    const events = Array.from({ length: 40 }, (_, i) =>
      makeEvent(i + 1, {
        occurred_at: T + Math.floor(i / 10) * HOUR + i * 1000,
        code: i % 3 === 0 ? 'RATE_LIMITED' : 'VEHICLE_NOT_FOUND',
        retryable: i % 3 === 0 ? true : i % 5 === 0 ? null : false,
        client: i % 4 === 0 ? null : i % 2 ? 'clientOddAAAAAAAAAAAAA' : 'clientEvenBBBBBBBBBBBB',
        subject: i % 7 === 0 ? p.subject('pat@example.com') : null,
        subject_alt: i % 7 === 0 ? p.subject('+1 555 555 0100') : null,
        service_version: i % 6 === 0 ? null : i % 2 ? '2.0.1' : '2.1.0',
      }),
    );
    for (const e of events) sink.write(e);
    sink.write(events[3]!); // the same error_id again: stored once, counted once
    await sink.close();
    let c = compare(t.db);
    expect((c.summary[0] as unknown[]).length).toBeGreaterThan(6);
    expect((c.summary[1] as unknown[]).length).toBeGreaterThan((c.summary[0] as unknown[]).length);
    expect(c.summary).toEqual(c.rows);

    expect(forgetSubject(t.db, p, '(555) 555-0100').deleted).toBe(6);
    c = compare(t.db);
    expect(c.summary).toEqual(c.rows);

    pruneOlderThan(t.db, 0, T + 2 * HOUR + 25_000);
    c = compare(t.db);
    expect(c.summary).toEqual(c.rows);
    expect((c.rows[0] as { hour: number }[]).every((r) => r.hour >= T + 2 * HOUR)).toBe(true);
  });
});

// Migration 8 on a store written before it: the versions table is backfilled from the rows.
describe.each(STORE_KINDS)('issue_hour_versions after migration 8 on the %s store', (kind) => {
  it('holds what the rows add up to per hour, issue and version', async () => {
    const store = await createTestStore(kind);
    try {
      await store.insertEvents(
        Array.from({ length: 30 }, (_, i) =>
          makeEvent(i + 1, { occurred_at: T + (i % 3) * HOUR + i, code: i % 2 ? 'RATE_LIMITED' : 'VEHICLE_NOT_FOUND', service_version: i % 5 === 0 ? null : `3.${i % 3}.0` }),
        ),
      );
      // Back to schema 7 (no versions table), then forward again.
      if (kind === 'sqlite') {
        const db = new Database(store.target);
        db.exec('DROP TABLE issue_hour_versions');
        db.pragma('user_version = 7');
        expect(migrate(db)).toBe(SCHEMA_VERSION);
        db.close();
      } else {
        const client = new pg.Client({ connectionString: store.target });
        await client.connect();
        await client.query('DROP TABLE issue_hour_versions');
        await client.query('UPDATE aap_triage_schema SET version = 7');
        expect(await migratePg(client, PG_MIGRATIONS)).toBe(PG_SCHEMA_VERSION);
        await client.end();
      }
      const reader = await store.reader();
      const kept = await reader.all('SELECT hour, issue_key AS k, version AS v, errors AS n FROM issue_hour_versions ORDER BY 1, 2, 3');
      // Independently: the events' own hours and versions.
      const want = new Map<string, number>();
      for (let i = 0; i < 30; i++) {
        const key = `${T + (i % 3) * HOUR}|${i % 2 ? 'RATE_LIMITED' : 'VEHICLE_NOT_FOUND'}|${i % 5 === 0 ? '' : `3.${i % 3}.0`}`;
        want.set(key, (want.get(key) ?? 0) + 1);
      }
      const codeOf = new Map((await reader.all<{ k: string; code: string }>('SELECT DISTINCT issue_key AS k, code FROM error_events')).map((r) => [r.k, r.code]));
      const got = new Map((kept as { hour: number; k: string; v: string; n: number }[]).map((r) => [`${r.hour}|${codeOf.get(r.k)}|${r.v}`, r.n]));
      expect(got).toEqual(want);
    } finally {
      await store.cleanup();
    }
  });
});
