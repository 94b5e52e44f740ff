/**
 * The two audit stores behind one interface, for the shared store suite (issue #19: "one shared
 * test suite runs against both stores"): a fresh SQLite file in a temp folder, or a fresh
 * PostgreSQL database (test/helpers/pg.ts), each migrated with its own store's migrations and
 * written with plain SQL, read through `openStoreReader` exactly as the CLI and TUI read it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ensurePartitions, migratePg, PG_MIGRATIONS } from '../../src/audit/pg/schema.js';
import { rebuildIssueHours } from '../../src/audit/issue-hours.js';
import { rebuildPgIssueHours } from '../../src/audit/pg/issue-hours.js';
import { issueKey } from '../../src/audit/issue-key.js';
import { ERROR_EVENT_COLUMNS } from '../../src/audit/schema.js';
import { openStoreReader, type AuditReader } from '../../src/audit/store.js';
import type { ErrorEvent, TrafficSample } from '../../src/protocol/error-event.js';
import { createStore } from '../triage/seed.js';
import { createTestDatabase } from './pg.js';

/** Which store a suite runs on. */
export type StoreKind = 'sqlite' | 'postgres';
/** Both, in the order the shared suites run them. */
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** A gap record as the writer stores it. */
export interface GapRecord {
  service: string;
  started_at: number;
  ended_at: number;
  dropped: number;
  reason: string;
}

/** A fresh, migrated store plus a writable side door for the test's own rows. */
export interface TestStore {
  readonly kind: StoreKind;
  /** What `--db` / `AAP_TRIAGE_DB` would be: a file path or a `postgres://` URL. */
  readonly target: string;
  /** The read side, opened with `openStoreReader` after the first `open()`. */
  reader(): Promise<AuditReader>;
  insertEvents(events: readonly ErrorEvent[]): Promise<void>;
  insertTraffic(rows: readonly TrafficSample[]): Promise<void>;
  insertGap(gap: GapRecord): Promise<void>;
  deleteEvents(ids: readonly string[]): Promise<void>;
  /** Copies every row of a seeded SQLite audit file (test/tui/helpers/seed.ts and the like) into this store. */
  copyFrom(sqlitePath: string): Promise<void>;
  /** Closes the reader and removes the file or drops the database. */
  cleanup(): Promise<void>;
}

/** An event as column values in `ERROR_EVENT_COLUMNS` order (what both writers store). */
function eventValues(e: ErrorEvent): unknown[] {
  const row = {
    issue_key: issueKey(e),
    ...e,
    retryable: e.retryable === null ? null : e.retryable ? 1 : 0,
    retry_flags: JSON.stringify(e.retry_flags),
    violations: JSON.stringify(e.violations),
    conformance: JSON.stringify(e.conformance),
  } as Record<string, unknown>;
  return ERROR_EVENT_COLUMNS.map((c) => row[c] ?? null);
}

async function sqliteStore(): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'aap-store-'));
  const path = join(dir, 'audit.db');
  const db = createStore(path);
  let reader: AuditReader | undefined;
  const cols = ERROR_EVENT_COLUMNS.join(', ');
  const insertEvent = db.prepare(`INSERT INTO error_events (${cols}) VALUES (${ERROR_EVENT_COLUMNS.map(() => '?').join(', ')})`);
  const insertTraffic = db.prepare('INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES (?, ?, ?, ?, ?, ?, ?)');
  return {
    kind: 'sqlite',
    target: path,
    async reader() {
      reader ??= await openStoreReader(path);
      return reader;
    },
    async insertEvents(events) {
      db.transaction(() => {
        for (const e of events) insertEvent.run(eventValues(e));
      })();
      // What the SQLite writer adds per batch (the hourly issue summary).
      rebuildIssueHours(db);
    },
    async insertTraffic(rows) {
      db.transaction(() => {
        for (const r of rows) insertTraffic.run(r.minute, r.service, r.skill, r.client, r.requests, r.errors, r.retries);
      })();
    },
    async insertGap(g) {
      db.prepare('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES (?, ?, ?, ?, ?)').run(g.service, g.started_at, g.ended_at, g.dropped, g.reason);
    },
    async deleteEvents(ids) {
      const del = db.prepare('DELETE FROM error_events WHERE error_id = ?');
      for (const id of ids) del.run(id);
    },
    async copyFrom(sqlitePath) {
      db.prepare('ATTACH DATABASE ? AS src').run(sqlitePath);
      for (const t of ['error_events', 'traffic', 'audit_gaps']) db.exec(`INSERT INTO ${t} SELECT * FROM src.${t}`);
      db.exec('DETACH DATABASE src');
      rebuildIssueHours(db);
    },
    async cleanup() {
      await reader?.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(): Promise<TestStore> {
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await migratePg(client, PG_MIGRATIONS);
  const partitions = new Set<string>();
  let reader: AuditReader | undefined;
  const cols = ERROR_EVENT_COLUMNS.join(', ');
  const placeholders = ERROR_EVENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
  return {
    kind: 'postgres',
    target: database.url,
    async reader() {
      reader ??= await openStoreReader(database.url);
      return reader;
    },
    async insertEvents(events) {
      await ensurePartitions(client, events.map((e) => e.occurred_at), partitions);
      for (const e of events) await client.query(`INSERT INTO error_events (${cols}) VALUES (${placeholders})`, eventValues(e));
      // What the PostgreSQL writer adds per batch (the hourly issue summary), rebuilt as migration 5's backfill does.
      await rebuildPgIssueHours(client);
    },
    async insertTraffic(rows) {
      for (const r of rows) {
        await client.query('INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          r.minute,
          r.service,
          r.skill,
          r.client,
          r.requests,
          r.errors,
          r.retries,
        ]);
      }
    },
    async insertGap(g) {
      await client.query('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ($1, $2, $3, $4, $5)', [g.service, g.started_at, g.ended_at, g.dropped, g.reason]);
    },
    async deleteEvents(ids) {
      await client.query('DELETE FROM error_events WHERE error_id = ANY($1)', [ids]);
    },
    async copyFrom(sqlitePath) {
      const src = new Database(sqlitePath, { readonly: true });
      try {
        const events = src.prepare(`SELECT ${cols} FROM error_events`).all() as Record<string, unknown>[];
        await ensurePartitions(client, events.map((e) => e['occurred_at'] as number), partitions);
        for (const e of events) await client.query(`INSERT INTO error_events (${cols}) VALUES (${placeholders})`, ERROR_EVENT_COLUMNS.map((c) => e[c]));
        for (const r of src.prepare('SELECT minute, service, skill, client, requests, errors, retries FROM traffic').all() as unknown[][]) {
          await client.query('INSERT INTO traffic VALUES ($1, $2, $3, $4, $5, $6, $7)', Object.values(r as object));
        }
        for (const g of src.prepare('SELECT service, started_at, ended_at, dropped, reason FROM audit_gaps ORDER BY id').all() as object[]) {
          await client.query('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ($1, $2, $3, $4, $5)', Object.values(g));
        }
        await rebuildPgIssueHours(client);
      } finally {
        src.close();
      }
    },
    async cleanup() {
      await reader?.close();
      await client.end();
      await database.drop();
    },
  };
}

/** A fresh, empty, migrated store of `kind`. */
export function createTestStore(kind: StoreKind): Promise<TestStore> {
  return kind === 'sqlite' ? sqliteStore() : postgresStore();
}
