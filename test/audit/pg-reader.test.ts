// The PostgreSQL reader's prepared statements (issue #19): each distinct statement text with
// parameters is prepared once per connection and reused; a statement whose result shape changed
// under it (a column added while the reader was open) runs again unprepared instead of failing;
// key lookups (ReadOptions.keyLookup, issue 31) run under a generic plan, the rest as before.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_AFTER, pgReader } from '../../src/audit/pg/reader.js';
import { poolConfig } from '../../src/audit/pg/sql.js';
import type { AuditReader } from '../../src/audit/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';

describe('pgReader prepared statements', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let reader: AuditReader;
  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection, so every statement meets the one that prepared it.
    pool = new pg.Pool(poolConfig(database.url, { max: 1 }));
    reader = pgReader(pool, 'test');
    await pool.query('CREATE TABLE t (a INTEGER NOT NULL)');
    await pool.query('INSERT INTO t VALUES (1), (2)');
  });
  afterAll(async () => {
    await reader.close();
    await database.drop();
  });

  it('prepares a statement with parameters once and answers from it again', async () => {
    for (let i = 0; i < 7; i++) expect(await reader.all('SELECT a FROM t WHERE a >= ? ORDER BY a', [1])).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await reader.get('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE ?', ['aap_r%'])).toEqual({ n: 2 });
    // No parameters: runs unnamed.
    expect(await reader.get('SELECT count(*)::int AS n FROM t')).toEqual({ n: 2 });
    expect(await reader.get('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE ?', ['aap_r%'])).toEqual({ n: 2 });
  });

  it('reads a key lookup under a generic plan once its text ran GENERIC_AFTER times, and the next statement under the default again', async () => {
    const mode = async (keyLookup: boolean) => (await reader.get<{ m: string }>('SELECT current_setting(?) AS m', ['plan_cache_mode'], { keyLookup }))?.m;
    expect(await mode(false)).toBe('auto');
    // Only key lookups count; a one-shot `show` never pays for a generic plan.
    for (let i = 0; i < GENERIC_AFTER; i++) expect(await mode(true)).toBe('auto');
    expect(await mode(true)).toBe('force_generic_plan');
    expect(await mode(true)).toBe('force_generic_plan');
    expect(await reader.get<{ m: string }>('SELECT current_setting(?) AS m', ['plan_cache_mode'])).toEqual({ m: 'auto' });
    for (let i = 0; i <= GENERIC_AFTER; i++) await reader.all('SELECT a FROM t WHERE a = ?', [2], { keyLookup: true });
    // The same answers either way, and a statement's own error leaves the connection usable.
    expect(await reader.all('SELECT a FROM t WHERE a = ?', [2], { keyLookup: true })).toEqual([{ a: 2 }]);
    const pid = async () => (await reader.get<{ p: number }>('SELECT pg_backend_pid() AS p'))?.p;
    const before = await pid();
    await expect(reader.get('SELECT a / 0 AS x FROM t WHERE a = ?', [1], { keyLookup: true })).rejects.toMatchObject({ code: '22012' });
    expect(await reader.all('SELECT a FROM t WHERE a = ?', [1])).toEqual([{ a: 1 }]);
    expect(await pid()).toBe(before);
  });

  it("returns to the database's own plan_cache_mode after key lookups (RESET, not auto)", async () => {
    await pool.query(`ALTER DATABASE ${database.name} SET plan_cache_mode = force_custom_plan`);
    const own = new pg.Pool(poolConfig(database.url, { max: 1 }));
    const r = pgReader(own, 'test');
    try {
      const mode = async (keyLookup: boolean) => (await r.get<{ m: string }>('SELECT current_setting(?) AS m', ['plan_cache_mode'], { keyLookup }))?.m;
      expect(await mode(false)).toBe('force_custom_plan');
      for (let i = 0; i < GENERIC_AFTER; i++) await mode(true);
      expect(await mode(true)).toBe('force_generic_plan');
      expect(await mode(false)).toBe('force_custom_plan');
    } finally {
      await r.close();
      await pool.query(`ALTER DATABASE ${database.name} RESET plan_cache_mode`);
    }
  });

  it('runs a statement unprepared once a column added under it changed its result', async () => {
    const ask = () => reader.all('SELECT * FROM t WHERE a = ?', [1]);
    expect(await ask()).toEqual([{ a: 1 }]);
    await pool.query('ALTER TABLE t ADD COLUMN b TEXT');
    expect(await ask()).toEqual([{ a: 1, b: null }]);
    expect(await ask()).toEqual([{ a: 1, b: null }]);
  });
});
