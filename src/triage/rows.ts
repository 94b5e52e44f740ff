import type BetterSqlite3 from 'better-sqlite3';
import type { ErrorEvent, RetryFlag, Violation } from '../protocol/error-event.js';
import { ERROR_EVENT_COLUMNS } from '../audit/schema.js';

/** The `error_events` row as SQLite returns it (retryable 1/0/NULL, JSON arrays as TEXT). */
export type ErrorEventRecord = Omit<ErrorEvent, 'retryable' | 'retry_flags' | 'violations' | 'conformance'> & {
  retryable: number | null;
  retry_flags: string;
  violations: string;
  conformance: string;
};

/** `SELECT` list of every `error_events` column, in table order. */
export const ERROR_EVENT_SELECT = ERROR_EVENT_COLUMNS.join(', ');

function parseJsonArray<T>(text: string | null | undefined): T[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

/** Converts a stored row to an `ErrorEvent`: retryable to boolean/null, JSON columns to arrays. */
export function toErrorEvent(r: ErrorEventRecord): ErrorEvent {
  return {
    ...r,
    retryable: r.retryable === null || r.retryable === undefined ? null : r.retryable !== 0,
    retry_flags: parseJsonArray<RetryFlag>(r.retry_flags),
    violations: parseJsonArray<Violation>(r.violations),
    conformance: parseJsonArray<string>(r.conformance),
  };
}

/** A better-sqlite3 connection (read-only for every triage function). */
export type Db = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

const cache = new WeakMap<Db, Map<string, Statement>>();

/** Prepares `sql` once per connection (the TUI re-runs the same queries every refresh). */
export function prepared(db: Db, sql: string): Statement {
  let m = cache.get(db);
  if (!m) {
    m = new Map();
    cache.set(db, m);
  }
  let st = m.get(sql);
  if (!st) {
    st = db.prepare(sql);
    if (m.size > 200) m.clear();
    m.set(sql, st);
  }
  return st;
}
