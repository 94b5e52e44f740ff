// The column table (src/audit/columns.ts, DESIGN §5) against the migrations: a freshly migrated
// store of each kind — a SQLite file and a real PostgreSQL database — has exactly the table's
// columns, in its order, with its types. Migrations are history; this is what keeps them and
// the table from drifting apart.
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_COLUMNS, ERROR_EVENT_COLUMNS, LOG_LINE_FIELDS, RECORD_ONLY_FIELDS } from '../../src/audit/columns.js';
import { migrate } from '../../src/audit/schema.js';
import { migrateAuditStore } from '../../src/audit/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { tempDir } from './helpers.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});

describe('the audit column table', () => {
  it('is exactly the columns of a freshly migrated SQLite file', async () => {
    const t = tempDir();
    try {
      const db = new BetterSqlite3(t.db);
      migrate(db);
      const info = db.pragma('table_info(error_events)') as Array<{ name: string; type: string }>;
      db.close();
      expect(info.map((c) => [c.name, c.type])).toEqual(AUDIT_COLUMNS.map((c) => [c.name, c.sqlite]));
    } finally {
      t.cleanup();
    }
  });

  it('is exactly the columns of a freshly migrated PostgreSQL store', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    await migrateAuditStore(database.url);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ column_name: string; data_type: string }>(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'error_events' ORDER BY ordinal_position",
      );
      expect(rows.map((c) => [c.column_name, c.data_type])).toEqual(AUDIT_COLUMNS.map((c) => [c.name, c.pg]));
    } finally {
      await client.end();
    }
  });

  it('names each exported field once, the line fields before the record-only ones', () => {
    const exported = [...LOG_LINE_FIELDS, ...RECORD_ONLY_FIELDS];
    expect(new Set(exported).size).toBe(exported.length);
    // DESIGN §5: the line carries ids, the code, retry facts and the bounded names, never a pseudonym.
    expect([...LOG_LINE_FIELDS].sort()).toEqual(['attempt', 'code', 'error_id', 'method', 'retry_flags', 'retryable', 'skill', 'span_id', 'trace_id']);
    expect(ERROR_EVENT_COLUMNS.filter((c) => !exported.includes(c) && c !== 'rpc_method')).toEqual(['issue_key', 'origin']);
  });
});
