/**
 * Upkeep of `issue_hours` (schema migration 3, issue #17) outside the writer's batches:
 * rebuilding hours from the rows after deletes (prune, forget), a backfill, or a bulk load. The
 * writer adds each batch itself (writer-worker.ts, ISSUE_HOURS_UPSERT_SQL).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { ISSUE_HOUR_MS } from './schema.js';

/**
 * Replaces the `issue_hours` rows of the hours overlapping [since, until) (epoch ms; default
 * all time) with what the rows of `error_events` in those hours add up to. Run it inside the
 * caller's write transaction (BEGIN IMMEDIATE) so no batch lands half-counted. Throws the
 * SQLite error.
 */
export function rebuildIssueHours(db: BetterSqlite3.Database, since: number = Number.MIN_SAFE_INTEGER, until: number = Number.MAX_SAFE_INTEGER): void {
  const from = since <= Number.MIN_SAFE_INTEGER ? since : since - (((since % ISSUE_HOUR_MS) + ISSUE_HOUR_MS) % ISSUE_HOUR_MS);
  const to = until >= Number.MAX_SAFE_INTEGER ? until : Math.ceil(until / ISSUE_HOUR_MS) * ISSUE_HOUR_MS;
  db.prepare('DELETE FROM issue_hours WHERE hour >= ? AND hour < ?').run(from, to);
  db.prepare(
    `INSERT INTO issue_hours (hour, issue_key, client, errors, retryable, terminal, first_at, last_at)
     SELECT occurred_at - occurred_at % ${ISSUE_HOUR_MS}, issue_key, IFNULL(client, ''), count(*),
            sum(retryable IS 1), sum(retryable IS 0), min(occurred_at), max(occurred_at)
       FROM error_events WHERE occurred_at >= ? AND occurred_at < ? AND issue_key IS NOT NULL
      GROUP BY 1, 2, 3`,
  ).run(from, to);
}

/** Rebuilds the given hours (hour starts, epoch ms), each in its own range. Same rules as {@link rebuildIssueHours}. */
export function rebuildIssueHoursAt(db: BetterSqlite3.Database, hours: Iterable<number>): void {
  for (const hour of new Set(hours)) rebuildIssueHours(db, hour, hour + ISSUE_HOUR_MS);
}
