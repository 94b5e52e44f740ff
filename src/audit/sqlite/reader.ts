/** The SQLite side of {@link AuditReader}: the synchronous better-sqlite3 connection behind the Promise interface. */
import type BetterSqlite3 from 'better-sqlite3';
import type { AuditReader, SqlValue } from '../backend.js';

/** Statements prepared once per connection (the TUI re-runs the same queries every refresh). */
const CACHE_LIMIT = 200;

/**
 * An {@link AuditReader} over an open better-sqlite3 connection. better-sqlite3 is synchronous:
 * each call runs at once and returns a settled promise, so answers and their order are exactly
 * those of the connection.
 */
export function sqliteReader(db: BetterSqlite3.Database, location: string = db.name): AuditReader {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string): BetterSqlite3.Statement => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (cache.size > CACHE_LIMIT) cache.clear();
      cache.set(sql, st);
    }
    return st;
  };
  let closed = false;
  return {
    dialect: 'sqlite',
    location,
    async all<T>(sql: string, params: readonly SqlValue[] = []) {
      return statement(sql).all(...params) as T[];
    },
    async get<T>(sql: string, params: readonly SqlValue[] = []) {
      return statement(sql).get(...params) as T | undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
