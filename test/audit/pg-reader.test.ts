// The PostgreSQL reader's prepared statements (issue #19): each distinct statement text with
// parameters is prepared once per connection and reused; a statement whose result shape changed
// under it (a column added while the reader was open) runs again unprepared instead of failing;
// a statement's own error leaves the connection in the pool.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgReader, readerPool } from '../../src/audit/pg/reader.js';
import type { AuditReader } from '../../src/audit/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';

describe('pgReader prepared statements', () => {
  let database: TestDatabase;
  // DDL and settings go through `admin`; the reader's own pool is read-only.
  let admin: pg.Pool;
  let pool: pg.Pool;
  let reader: AuditReader;
  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection, so every statement meets the one that prepared it.
    admin = new pg.Pool({ connectionString: database.url, max: 1 });
    await admin.query('CREATE TABLE t (a INTEGER NOT NULL)');
    await admin.query('INSERT INTO t VALUES (1), (2)');
    pool = readerPool(database.url, 1);
    reader = pgReader(pool, 'test');
  });
  afterAll(async () => {
    await reader.close();
    await admin.end();
    await database.drop();
  });

  it('prepares a statement with parameters once and answers from it again', async () => {
    for (let i = 0; i < 7; i++) expect(await reader.all('SELECT a FROM t WHERE a >= ? ORDER BY a', [1])).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await reader.get('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE ?', ['aap_r%'])).toEqual({ n: 2 });
    // No parameters: runs unnamed.
    expect(await reader.get('SELECT count(*)::int AS n FROM t')).toEqual({ n: 2 });
    expect(await reader.get('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE ?', ['aap_r%'])).toEqual({ n: 2 });
  });

  it('reads in read-only transactions', async () => {
    await expect(reader.all('CREATE TABLE u (a INTEGER)')).rejects.toMatchObject({ code: '25006' });
  });

  it("keeps the connection after a statement's own error", async () => {
    const pid = async () => (await reader.get<{ p: number }>('SELECT pg_backend_pid() AS p'))?.p;
    const before = await pid();
    await expect(reader.get('SELECT a / 0 AS x FROM t WHERE a = ?', [1])).rejects.toMatchObject({ code: '22012' });
    expect(await reader.all('SELECT a FROM t WHERE a = ?', [1])).toEqual([{ a: 1 }]);
    expect(await pid()).toBe(before);
  });

  it('runs a statement unprepared once a column added under it changed its result', async () => {
    const ask = () => reader.all('SELECT * FROM t WHERE a = ?', [1]);
    expect(await ask()).toEqual([{ a: 1 }]);
    await admin.query('ALTER TABLE t ADD COLUMN b TEXT');
    expect(await ask()).toEqual([{ a: 1, b: null }]);
    expect(await ask()).toEqual([{ a: 1, b: null }]);
  });
});
