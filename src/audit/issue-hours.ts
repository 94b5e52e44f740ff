/**
 * Upkeep of `issue_hours` (schema migration 4, issue #17) and `issue_hour_versions` (migration 8) outside the writer's batches:
 * rebuilding hours from the rows after deletes (prune, forget), a backfill, or a bulk load. The
 * writer adds each batch itself (writer-worker.ts, ISSUE_HOURS_UPSERT_SQL).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { ISSUE_HOUR_MS, issueHourVersionsFromRows } from './schema.js';

/**
 * Replaces the `issue_hours` and `issue_hour_versions` rows of the hours overlapping [since, until) (epoch ms; default
 * all time) with what the rows of `error_events` in those hours add up to. Run it inside the
 * caller's write transaction (BEGIN IMMEDIATE) so no batch lands half-counted. Throws the
 * SQLite error.
 */
export function rebuildIssueHours(db: BetterSqlite3.Database, since: number = Number.MIN_SAFE_INTEGER, until: number = Number.MAX_SAFE_INTEGER): void {
  const from = since <= Number.MIN_SAFE_INTEGER ? since : since - (((since % ISSUE_HOUR_MS) + ISSUE_HOUR_MS) % ISSUE_HOUR_MS);
  const to = until >= Number.MAX_SAFE_INTEGER ? until : Math.ceil(until / ISSUE_HOUR_MS) * ISSUE_HOUR_MS;
  db.prepare(
    `INSERT OR IGNORE INTO issue_client_ids (client) SELECT DISTINCT client FROM error_events
      WHERE occurred_at >= ? AND occurred_at < ? AND issue_key IS NOT NULL AND client IS NOT NULL AND client <> ''`,
  ).run(from, to);
  db.prepare('DELETE FROM issue_hours WHERE hour >= ? AND hour < ?').run(from, to);
  db.prepare(
    `INSERT INTO issue_hours (hour, issue_key, errors, retryable, terminal, first_at, last_at, clients)
     SELECT e.occurred_at - e.occurred_at % ${ISSUE_HOUR_MS}, e.issue_key, count(*), sum(e.retryable IS 1), sum(e.retryable IS 0),
            min(e.occurred_at), max(e.occurred_at), IFNULL(group_concat(DISTINCT c.id), '')
       FROM error_events e LEFT JOIN issue_client_ids c ON c.client = e.client
      WHERE e.occurred_at >= ? AND e.occurred_at < ? AND e.issue_key IS NOT NULL
      GROUP BY 1, 2`,
  ).run(from, to);
  db.prepare('DELETE FROM issue_hour_versions WHERE hour >= ? AND hour < ?').run(from, to);
  db.prepare(issueHourVersionsFromRows(' AND occurred_at >= ? AND occurred_at < ?')).run(from, to);
}

/** Rebuilds the given hours (hour starts, epoch ms), each in its own range. Same rules as {@link rebuildIssueHours}. */
export function rebuildIssueHoursAt(db: BetterSqlite3.Database, hours: Iterable<number>): void {
  for (const hour of new Set(hours)) rebuildIssueHours(db, hour, hour + ISSUE_HOUR_MS);
}
