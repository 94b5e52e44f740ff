/**
 * The hourly issue summary on PostgreSQL (issue 31): the same `issue_hours` and
 * `issue_client_ids` tables as SQLite (schema.ts migration 4), kept the same way — the writer adds
 * each batch in the batch's own statement ({@link issueHoursBatchSql}), and prune / forget rebuild
 * the hours they touch ({@link rebuildPgIssueHours}). Migration 5 backfills a store written
 * before, with the rebuild's statements over all time.
 */
import type { ClientBase } from 'pg';
import { ISSUE_HOUR_MS } from '../schema.js';

/**
 * Statements that replace the `issue_hours` rows of [$1, $2) (hour-aligned epoch ms) with what
 * the rows of `error_events` there add up to: client ids first, then the hours. The clients of
 * an hour are the distinct ids, comma-separated, as on SQLite.
 */
export const PG_ISSUE_HOURS_REBUILD_SQL: readonly string[] = Object.freeze([
  `INSERT INTO issue_client_ids (client) SELECT DISTINCT client FROM error_events e
    WHERE occurred_at >= $1 AND occurred_at < $2 AND issue_key IS NOT NULL AND client IS NOT NULL AND client <> ''
      AND NOT EXISTS (SELECT 1 FROM issue_client_ids i WHERE i.client = e.client)
   ON CONFLICT (client) DO NOTHING`,
  'DELETE FROM issue_hours WHERE hour >= $1 AND hour < $2',
  `INSERT INTO issue_hours (hour, issue_key, errors, retryable, terminal, first_at, last_at, clients)
   SELECT e.occurred_at - e.occurred_at % ${ISSUE_HOUR_MS}, e.issue_key, count(*), count(*) FILTER (WHERE e.retryable = 1),
          count(*) FILTER (WHERE e.retryable = 0), min(e.occurred_at), max(e.occurred_at), COALESCE(string_agg(DISTINCT c.id::text, ','), '')
     FROM error_events e LEFT JOIN issue_client_ids c ON c.client = e.client
    WHERE e.occurred_at >= $1 AND e.occurred_at < $2 AND e.issue_key IS NOT NULL
    GROUP BY 1, 2`,
]);

/**
 * Statements that replace the `issue_hour_versions` rows of [$1, $2) (hour-aligned epoch ms)
 * from the rows (migration 8's table: migration 5 runs {@link PG_ISSUE_HOURS_REBUILD_SQL} alone).
 */
export const PG_ISSUE_HOUR_VERSIONS_REBUILD_SQL: readonly string[] = Object.freeze([
  'DELETE FROM issue_hour_versions WHERE hour >= $1 AND hour < $2',
  `INSERT INTO issue_hour_versions (hour, issue_key, version, errors)
   SELECT occurred_at - occurred_at % ${ISSUE_HOUR_MS}, issue_key, COALESCE(service_version, ''), count(*) FROM error_events
    WHERE occurred_at >= $1 AND occurred_at < $2 AND issue_key IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
]);

/** The whole range of epoch ms a bigint column holds here (migration 5 rebuilds all of it). */
const ALL_TIME: readonly [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/**
 * Rebuilds the hours overlapping [since, until) (epoch ms; default all time) of both summary
 * tables from the rows. Run
 * it in the caller's transaction when writers may be adding the same hours. Throws the server's error.
 */
export async function rebuildPgIssueHours(client: ClientBase, since: number = ALL_TIME[0], until: number = ALL_TIME[1]): Promise<void> {
  const from = since <= ALL_TIME[0] ? since : since - (((since % ISSUE_HOUR_MS) + ISSUE_HOUR_MS) % ISSUE_HOUR_MS);
  const to = until >= ALL_TIME[1] ? until : Math.ceil(until / ISSUE_HOUR_MS) * ISSUE_HOUR_MS;
  for (const sql of [...PG_ISSUE_HOURS_REBUILD_SQL, ...PG_ISSUE_HOUR_VERSIONS_REBUILD_SQL]) await client.query(sql, [from, to]);
}

/**
 * One statement that inserts a batch of error rows and adds the rows really inserted — not a
 * duplicate skipped by ON CONFLICT — to `issue_hours`, with their clients' ids, and to
 * `issue_hour_versions` (a data-modifying WITH runs whether or not it is read), atomically and
 * in one round trip. The rows come as one parameter, `$1`: a JSON array of rows, each an array
 * of the `columns` values (strings, finite numbers, null; `types[i]` is the PostgreSQL type of
 * `columns[i]`, e.g. `bigint`). The text is the same for every batch, so a writer prepares it
 * once per connection; the batch is one `JSON.stringify`, about a fifth of the client CPU that
 * node-postgres spends on 26 000 separate parameters or 26 arrays (issue 31: the sink's rows/s
 * against plain multi-row INSERTs). Its one result row holds `written`, the rows inserted. Hours are upserted in key order, so two writers adding to the same hours lock them
 * in the same order.
 *
 * Only clients not yet numbered are offered to `issue_client_ids`: an identity column draws its
 * next value for every row offered, a conflict or not, and readers count ids in a typed array
 * while they stay small (triage/issues.ts).
 *
 * A client pseudonym seen for the first time by two writers in the same instant may miss from
 * that hour's client list (the second statement cannot see the first's uncommitted id); the
 * counts are exact.
 */
export function issueHoursBatchSql(columns: readonly string[], types: readonly string[]): string {
  // Self-contained (3600000 = ISSUE_HOUR_MS written out): the writer's worker runs it from source text.
  const fields = columns.map((_, i) => `(r->>${i})::${types[i]}`).join(', ');
  return `WITH ins AS (
      INSERT INTO error_events (${columns.join(', ')}) SELECT ${fields} FROM jsonb_array_elements($1::jsonb) AS r ON CONFLICT DO NOTHING
      RETURNING occurred_at, issue_key, client, retryable, service_version),
    keyed AS (SELECT * FROM ins WHERE issue_key IS NOT NULL),
    fresh AS (
      INSERT INTO issue_client_ids (client) SELECT DISTINCT client FROM keyed k WHERE client IS NOT NULL AND client <> ''
        AND NOT EXISTS (SELECT 1 FROM issue_client_ids i WHERE i.client = k.client)
      ON CONFLICT (client) DO NOTHING RETURNING id, client),
    ids AS (SELECT id, client FROM fresh UNION ALL SELECT id, client FROM issue_client_ids WHERE client IN (SELECT client FROM keyed)),
    agg AS (
      SELECT k.occurred_at - k.occurred_at % 3600000 AS hour, k.issue_key, count(*) AS n, count(*) FILTER (WHERE k.retryable = 1) AS r,
             count(*) FILTER (WHERE k.retryable = 0) AS f, min(k.occurred_at) AS lo, max(k.occurred_at) AS hi,
             COALESCE(string_agg(DISTINCT ids.id::text, ','), '') AS cs
        FROM keyed k LEFT JOIN ids ON ids.client = k.client
       GROUP BY 1, 2),
    up AS (
      INSERT INTO issue_hours AS h (hour, issue_key, errors, retryable, terminal, first_at, last_at, clients)
      SELECT hour, issue_key, n, r, f, lo, hi, cs FROM agg ORDER BY hour, issue_key
      ON CONFLICT (hour, issue_key) DO UPDATE SET
        errors = h.errors + excluded.errors,
        retryable = h.retryable + excluded.retryable,
        terminal = h.terminal + excluded.terminal,
        first_at = least(h.first_at, excluded.first_at),
        last_at = greatest(h.last_at, excluded.last_at),
        clients = array_to_string(ARRAY(
          SELECT DISTINCT x FROM unnest(string_to_array(h.clients || ',' || excluded.clients, ',')) AS x WHERE x <> '' ORDER BY 1), ',')
      RETURNING 1),
    vers AS (
      INSERT INTO issue_hour_versions AS v (hour, issue_key, version, errors)
      SELECT occurred_at - occurred_at % 3600000, issue_key, COALESCE(service_version, ''), count(*) FROM keyed GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (hour, issue_key, version) DO UPDATE SET errors = v.errors + excluded.errors)
    SELECT (SELECT count(*) FROM ins)::int AS written, (SELECT count(*) FROM up)::int AS hours`;
}
