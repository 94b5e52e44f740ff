// Retention and erasure through the one store interface (issue #19): `pruneStore` and
// `forgetInStore` give the same answers on SQLite and PostgreSQL; on PostgreSQL, prune drops
// whole day partitions and forget reaches every partition. The two migration lists stay in step.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPseudonymizer, forgetInStore, MIGRATIONS, pruneStore } from '../../src/audit/index.js';
import { ensurePartitions, IDENTIFIER_COLUMNS, migratePg, partitionFor, PG_MIGRATIONS } from '../../src/audit/pg/schema.js';
import { createTestDatabase } from '../helpers/pg.js';
import { searchErrors } from '../../src/triage/index.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { event } from '../triage/seed.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const ALL = { since: 0, until: Number.MAX_SAFE_INTEGER };

let store: TestStore | undefined;
afterEach(async () => {
  await store?.cleanup();
  store = undefined;
});

describe('migrations', () => {
  it('PostgreSQL has one migration for each SQLite migration, versioned the same way', () => {
    expect(PG_MIGRATIONS.length).toBe(MIGRATIONS.length);
  });

  it('gives the identifier columns a statistics target of 1 on PostgreSQL: on the table, a partition made before migration 9 and one made after', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migratePg(client, PG_MIGRATIONS.slice(0, 8));
      // A day partition as schema 8 made it (CREATE TABLE … PARTITION OF, nothing more).
      const before = partitionFor(NOW - DAY);
      await client.query(`CREATE TABLE ${before.name} PARTITION OF error_events FOR VALUES FROM (${before.from}) TO (${before.to})`);
      expect(await migratePg(client, PG_MIGRATIONS)).toBe(PG_MIGRATIONS.length);
      const [after] = await ensurePartitions(client, [NOW], new Set([before.name]));
      // attstattarget: -1 for the default before PostgreSQL 17, NULL from 17.
      const targets = await client.query<{ rel: string; col: string; target: number }>(
        `SELECT c.relname AS rel, a.attname AS col, COALESCE(a.attstattarget, -1) AS target FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
          WHERE c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped`,
        [['error_events', before.name, after]],
      );
      for (const rel of ['error_events', before.name, after!]) {
        const of = targets.rows.filter((t) => t.rel === rel);
        expect(of.filter((t) => t.target === 1).map((t) => t.col).sort()).toEqual([...IDENTIFIER_COLUMNS].sort());
        expect(of.find((t) => t.col === 'client')?.target).toBe(-1);
      }
    } finally {
      await client.end();
      await database.drop();
    }
  });
});

describe.each(STORE_KINDS)('maintenance on the %s store', (kind) => {
  it('prunes exactly what is older than the cutoff, across days', async () => {
    store = await createTestStore(kind);
    // 6 rows a day for 10 days, 4 hours apart; the cutoff falls inside a day.
    const events = [];
    for (let d = 0; d < 10; d++) for (let h = 0; h < 6; h++) events.push(event({ occurred_at: NOW - (9 - d) * DAY - h * 4 * 3_600_000 }));
    await store.insertEvents(events);
    await store.insertTraffic([
      { minute: NOW - 8 * DAY, service: 's', skill: '', client: 'a', requests: 1, errors: 0, retries: 0 },
      { minute: NOW - DAY, service: 's', skill: '', client: 'a', requests: 1, errors: 0, retries: 0 },
    ]);
    await store.insertGap({ service: 's', started_at: NOW - 9 * DAY, ended_at: NOW - 9 * DAY, dropped: 2, reason: 'queue_full' });
    const olderThan = 5 * DAY + 6 * 3_600_000;
    const cutoff = NOW - olderThan;
    const old = events.filter((e) => e.occurred_at < cutoff).length;
    expect(await pruneStore(store.target, olderThan, NOW)).toEqual({ errorEvents: old, traffic: 1, gaps: 1 });
    const reader = await store.reader();
    const left = await searchErrors(reader, '', ALL, { limit: 10_000 });
    expect(left.total).toBe(events.length - old);
    expect(left.rows.every((r) => r.occurred_at >= cutoff)).toBe(true);
    await expect(pruneStore(store.target, -1)).rejects.toThrow(RangeError);
    if (kind === 'postgres') {
      // Whole days before the cutoff went as partitions; the cutoff day's partition stays.
      const c = new pg.Client({ connectionString: store.target });
      await c.connect();
      const parts = await c.query("SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'error_events'::regclass");
      await c.end();
      expect(parts.rows[0].n).toBe(6);
    }
  });

  it('forgets a subject in every day (every partition), and no other row', async () => {
    store = await createTestStore(kind);
    const p = createPseudonymizer('store-maintenance-secret-0123456789');
    const jane = p.subject('jane.doe@example.com');
    const events = [0, 1, 2, 30].map((d) => event({ occurred_at: NOW - d * DAY, subject: jane, key_id: p.keyId }));
    const others = [event({ occurred_at: NOW, subject: p.subject('other@example.com'), key_id: p.keyId }), event({ occurred_at: NOW - DAY, subject: createPseudonymizer('an-older-key-secret-0123456789abc').subject('jane.doe@example.com'), key_id: 'oldkey01' })];
    await store.insertEvents([...events, ...others]);
    const result = await forgetInStore(store.target, p, 'Jane.Doe@Example.com');
    expect(result).toEqual({ deleted: 4, otherKeyRows: 1, otherKeyIds: ['oldkey01'] });
    const left = await searchErrors(await store.reader(), '', ALL);
    expect(left.rows.map((r) => r.error_id).sort()).toEqual(others.map((e) => e.error_id).sort());
  });

  it('forgets a subject held as the second pseudonym (a request with an email and a phone), by either value', async () => {
    store = await createTestStore(kind);
    const p = createPseudonymizer('store-maintenance-secret-0123456789');
    const email = p.subject('jane.doe@example.com');
    const phone = p.subject('+15555550123');
    const both = event({ occurred_at: NOW - DAY, subject: email, subject_alt: phone, key_id: p.keyId });
    const phoneOnly = event({ occurred_at: NOW, subject: phone, key_id: p.keyId });
    const other = event({ occurred_at: NOW, subject: p.subject('other@example.com'), key_id: p.keyId });
    await store.insertEvents([both, phoneOnly, other]);
    expect(await forgetInStore(store.target, p, '+1 555 555 0123')).toEqual({ deleted: 2, otherKeyRows: 0, otherKeyIds: [] });
    const left = await searchErrors(await store.reader(), '', ALL);
    expect(left.rows.map((r) => r.error_id)).toEqual([other.error_id]);
  });
});
