/**
 * The audit store's schema: the allow-list of what may ever be stored (DESIGN §5).
 *
 * Migrations are numbered and keyed on `PRAGMA user_version`; migration n brings a database
 * from version n-1 to n. Never edit a released migration: add one.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { applyMigrations } from './migrate.js';

/** Column names of `error_events`, in table order: from the column table (columns.ts). */
export { ERROR_EVENT_COLUMNS } from './columns.js';

/** Column names of `traffic`. */
export const TRAFFIC_COLUMNS = ['minute', 'service', 'skill', 'client', 'requests', 'errors', 'retries'] as const;

/**
 * Numbered migrations. Storage notes:
 * - `occurred_at`, `minute`, gap times: epoch milliseconds (INTEGER).
 * - `retryable`: 1 / 0 / NULL (unknown).
 * - `retry_flags`, `violations`, `conformance`: JSON arrays as TEXT (`[]` when empty).
 * - `error_id` is `err_` + UUIDv7 hex, so the primary key grows at its right edge.
 */
/**
 * The statement that adds up `error_events` into `issue_hour_versions` (migration 8's backfill,
 * and `rebuildIssueHours` with `range` = ` AND occurred_at >= ? AND occurred_at < ?`).
 */
export const issueHourVersionsFromRows = (range = ''): string => `INSERT INTO issue_hour_versions (hour, issue_key, version, errors)
    SELECT occurred_at - occurred_at % 3600000, issue_key, IFNULL(service_version, ''), count(*)
      FROM error_events WHERE issue_key IS NOT NULL${range} GROUP BY 1, 2, 3`;

export const MIGRATIONS: readonly string[] = [
  // 1: initial schema
  `
  CREATE TABLE error_events (
    error_id          TEXT PRIMARY KEY NOT NULL,
    occurred_at       INTEGER NOT NULL,
    trace_id          TEXT,
    span_id           TEXT,
    upstream_trace_id TEXT,
    service           TEXT NOT NULL,
    protocol          TEXT NOT NULL,
    protocol_version  TEXT,
    rpc_method        TEXT NOT NULL,
    skill             TEXT,
    code              TEXT NOT NULL,
    legacy_error      TEXT,
    jsonrpc_code      INTEGER,
    http_status       INTEGER,
    retryable         INTEGER,
    retry_after_ms    INTEGER,
    client            TEXT,
    fingerprint       TEXT,
    idempotency       TEXT,
    subject           TEXT,
    attempt           INTEGER NOT NULL DEFAULT 1,
    retry_flags       TEXT NOT NULL DEFAULT '[]',
    violations        TEXT NOT NULL DEFAULT '[]',
    conformance       TEXT NOT NULL DEFAULT '[]',
    duration_ms       REAL,
    key_id            TEXT
  ) WITHOUT ROWID;
  CREATE INDEX error_events_time ON error_events (occurred_at);
  CREATE INDEX error_events_code_time ON error_events (code, occurred_at);
  CREATE INDEX error_events_skill_time ON error_events (skill, occurred_at);
  CREATE INDEX error_events_client_time ON error_events (client, occurred_at);
  CREATE INDEX error_events_trace ON error_events (trace_id) WHERE trace_id IS NOT NULL;
  CREATE INDEX error_events_upstream_trace ON error_events (upstream_trace_id) WHERE upstream_trace_id IS NOT NULL;

  CREATE TABLE traffic (
    minute   INTEGER NOT NULL,
    service  TEXT NOT NULL,
    skill    TEXT NOT NULL,
    client   TEXT NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0,
    errors   INTEGER NOT NULL DEFAULT 0,
    retries  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (minute, service, skill, client)
  ) WITHOUT ROWID;

  -- Errors that were seen but could not be recorded (queue overflow, write failure).
  CREATE TABLE audit_gaps (
    id         INTEGER PRIMARY KEY,
    service    TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL,
    dropped    INTEGER NOT NULL,
    reason     TEXT NOT NULL
  );
  CREATE INDEX audit_gaps_time ON audit_gaps (ended_at);
  `,
  // 2: retries only, covering the storm scan (triage/storms.ts loadStormMinutes): per minute,
  // client and skill, how many retries and which were flagged. Partial, so it holds only rows
  // with attempt > 1, and keyed by time, so it grows at its right edge. Measured on 10 M rows /
  // 30 days: the 24 h retry scan drops from ~630 ms (time index + table lookups) to tens of ms.
  `
  CREATE INDEX error_events_retries ON error_events (occurred_at, client, skill, retry_flags) WHERE attempt > 1;
  `,
  // 3: issues, client labels, a second subject (issue #17).
  // - `issue_key` (src/audit/issue-key.ts) groups rows into issues; rows written before this
  //   migration have NULL and are in no issue. Its index serves `issue:` and "list this issue's
  //   errors"; few distinct keys, so it grows at a few hundred right edges, like the code index.
  // - `issue_hours`: per hour × issue × client, the errors, retryable / terminal counts and the
  //   first and last time, kept by the two triggers below for every writer (and `prune` /
  //   `forget`), so `listIssues` reads ~10⁴ summary rows for 24 h instead of ~10⁵–10⁶ errors.
  //   `client` is '' for calls without a credential. (Replaced by migration 4: no triggers.)
  // - `subject_alt`: the second subject pseudonym when a request held both an email (in
  //   `subject`) and a phone, so erasure by either finds the row.
  // - `client_labels`: an operator's name and support contact for a client pseudonym. Business
  //   data about a partner company, not customer data (docs/audit-store.md).
  `
  ALTER TABLE error_events ADD COLUMN issue_key TEXT;
  ALTER TABLE error_events ADD COLUMN subject_alt TEXT;
  CREATE INDEX error_events_issue_time ON error_events (issue_key, occurred_at) WHERE issue_key IS NOT NULL;

  CREATE TABLE issue_hours (
    hour      INTEGER NOT NULL,
    issue_key TEXT NOT NULL,
    client    TEXT NOT NULL,
    errors    INTEGER NOT NULL,
    retryable INTEGER NOT NULL,
    terminal  INTEGER NOT NULL,
    first_at  INTEGER NOT NULL,
    last_at   INTEGER NOT NULL,
    PRIMARY KEY (hour, issue_key, client)
  ) WITHOUT ROWID;

  CREATE TRIGGER error_events_issue_hours_insert AFTER INSERT ON error_events WHEN NEW.issue_key IS NOT NULL
  BEGIN
    INSERT INTO issue_hours (hour, issue_key, client, errors, retryable, terminal, first_at, last_at)
    VALUES (NEW.occurred_at - NEW.occurred_at % 3600000, NEW.issue_key, IFNULL(NEW.client, ''), 1,
            NEW.retryable IS 1, NEW.retryable IS 0, NEW.occurred_at, NEW.occurred_at)
    ON CONFLICT (hour, issue_key, client) DO UPDATE SET
      errors = errors + 1,
      retryable = retryable + excluded.retryable,
      terminal = terminal + excluded.terminal,
      first_at = min(first_at, excluded.first_at),
      last_at = max(last_at, excluded.last_at);
  END;

  -- Deletes (prune, forget) take the row out of its hour; first_at / last_at of a partly
  -- emptied hour stay as they were (listIssues reads exact times from error_events).
  CREATE TRIGGER error_events_issue_hours_delete AFTER DELETE ON error_events WHEN OLD.issue_key IS NOT NULL
  BEGIN
    UPDATE issue_hours SET errors = errors - 1, retryable = retryable - (OLD.retryable IS 1), terminal = terminal - (OLD.retryable IS 0)
     WHERE hour = OLD.occurred_at - OLD.occurred_at % 3600000 AND issue_key = OLD.issue_key AND client = IFNULL(OLD.client, '');
    DELETE FROM issue_hours
     WHERE hour = OLD.occurred_at - OLD.occurred_at % 3600000 AND issue_key = OLD.issue_key AND client = IFNULL(OLD.client, '') AND errors <= 0;
  END;

  CREATE TABLE client_labels (
    client     TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    contact    TEXT,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 4: issue_hours becomes one row per hour × issue with its clients as ids (issue #17).
  // Migration 3 kept a row per hour × issue × client through triggers; measured on the 10 M-row
  // benchmark store that barely compressed (6 M summary rows for 10 M errors: 24 h of issues
  // took ~750 ms), and any AFTER INSERT trigger on error_events (even `SELECT 1`) costs ~80 µs a
  // row here, more than the insert. Now the writer adds each batch (ISSUE_HOURS_UPSERT_SQL) and
  // `prune` / `forget` rebuild the hours they touch (src/audit/issue-hours.ts). This migration
  // rebuilds the summary from the rows (the same statements as `rebuildIssueHours`).
  // - `issue_hours`: per hour × issue, the errors, retryable / terminal counts, the first and
  //   last time, and the hour's clients as distinct ids of `issue_client_ids`, comma-separated.
  // - `issue_client_ids`: a small integer per client pseudonym, for those lists. A call without
  //   a credential has none (it is not a client affected).
  `
  DROP TRIGGER IF EXISTS error_events_issue_hours_insert;
  DROP TRIGGER IF EXISTS error_events_issue_hours_delete;
  DROP TABLE issue_hours;

  CREATE TABLE issue_hours (
    hour      INTEGER NOT NULL,
    issue_key TEXT NOT NULL,
    errors    INTEGER NOT NULL,
    retryable INTEGER NOT NULL,
    terminal  INTEGER NOT NULL,
    first_at  INTEGER NOT NULL,
    last_at   INTEGER NOT NULL,
    clients   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (hour, issue_key)
  ) WITHOUT ROWID;

  CREATE TABLE issue_client_ids (
    id     INTEGER PRIMARY KEY,
    client TEXT NOT NULL UNIQUE
  );

  INSERT OR IGNORE INTO issue_client_ids (client)
    SELECT DISTINCT client FROM error_events WHERE issue_key IS NOT NULL AND client IS NOT NULL AND client <> '';
  INSERT INTO issue_hours (hour, issue_key, errors, retryable, terminal, first_at, last_at, clients)
    SELECT e.occurred_at - e.occurred_at % 3600000, e.issue_key, count(*), sum(e.retryable IS 1), sum(e.retryable IS 0),
           min(e.occurred_at), max(e.occurred_at), IFNULL(group_concat(DISTINCT c.id), '')
      FROM error_events e LEFT JOIN issue_client_ids c ON c.client = e.client
     WHERE e.issue_key IS NOT NULL
     GROUP BY 1, 2;
  `,
  // 5 (issue 31): nothing changes here. On PostgreSQL the writer starts keeping issue_hours, as
  // this store's has since migration 4, and migration 5 there backfills it; the numbers of both
  // stores' migrations stay the same (pg/schema.ts).
  `SELECT 1;`,
  // 6: where a call came from when it was not a buyer's (issue 28): `origin` = 'probe' for
  // `aap-triage probe` calls (User-Agent aap-triage-probe/<version>), NULL for ordinary traffic.
  // Views leave probe rows out unless asked; the partial index holds only the probe's rows, so
  // "does this window hold any?" (listIssues) is one tiny index probe.
  `
  ALTER TABLE error_events ADD COLUMN origin TEXT;
  CREATE INDEX error_events_origin_time ON error_events (occurred_at) WHERE origin IS NOT NULL;
  `,
  // 7: releases (issue 29).
  // - `service_version`: the dealer's own deployed version (its resource's `service.version`,
  //   else the `serviceVersion` option; value-patterns.ts SAFE_SERVICE_VERSION), NULL when it
  //   names none and on rows written before this migration. No index: it is read per issue
  //   through the issue index (triage/releases.ts).
  // - `issue_states`: the operator's state of an issue (resolved / muted / open again), one row
  //   per issue, with who set it and when. Operator data, like client_labels (DESIGN §5):
  //   `resolved_mode` 'now' | 'next_release' | 'version'; `resolved_in` the version a fix ships
  //   in ('version'), or the newest version seen when it was resolved ('next_release': a later
  //   one regresses it); `mute_until` epoch ms and `mute_count` errors after `set_at`, either or
  //   both, or neither for "forever".
  `
  ALTER TABLE error_events ADD COLUMN service_version TEXT;
  CREATE TABLE issue_states (
    issue_key     TEXT PRIMARY KEY NOT NULL,
    state         TEXT NOT NULL,
    resolved_mode TEXT,
    resolved_in   TEXT,
    mute_until    INTEGER,
    mute_count    INTEGER,
    set_by        TEXT NOT NULL,
    set_at        INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 8 (issue 31): `issue_hour_versions`, the errors of each hour × issue × `service_version`
  // ('' when the rows name none), kept beside issue_hours by the writer (ISSUE_HOUR_VERSIONS_UPSERT_SQL)
  // and rebuilt with it, so `issues` reads an issue's versions over a day from the summary
  // instead of grouping every row of the day. Backfilled from the rows.
  `
  CREATE TABLE issue_hour_versions (
    hour      INTEGER NOT NULL,
    issue_key TEXT NOT NULL,
    version   TEXT NOT NULL,
    errors    INTEGER NOT NULL,
    PRIMARY KEY (hour, issue_key, version)
  ) WITHOUT ROWID;

  ${issueHourVersionsFromRows()};
  `,
  // 9 (issue 31): nothing changes here. On PostgreSQL the identifier columns get a statistics
  // target of 1 (pg/schema.ts IDENTIFIER_COLUMNS); SQLite plans without per-column statistics.
  `SELECT 1;`,
];

/** Hour buckets of `issue_hours`, ms. */
export const ISSUE_HOUR_MS = 3_600_000;

/**
 * Adds one (hour, issue) aggregate of a batch to `issue_hours`; parameters in column order:
 * hour, issue_key, errors, retryable, terminal, first_at, last_at, clients — `clients` already
 * merged with the stored list (the writer reads it first, in the same transaction). The writer
 * runs it once per distinct (hour, issue) of each batch.
 */
export const ISSUE_HOURS_UPSERT_SQL = `INSERT INTO issue_hours (hour, issue_key, errors, retryable, terminal, first_at, last_at, clients)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (hour, issue_key) DO UPDATE SET
    errors = errors + excluded.errors,
    retryable = retryable + excluded.retryable,
    terminal = terminal + excluded.terminal,
    first_at = min(first_at, excluded.first_at),
    last_at = max(last_at, excluded.last_at),
    clients = excluded.clients`;

/**
 * Adds one (hour, issue, version) count of a batch to `issue_hour_versions`; parameters: hour,
 * issue_key, version ('' for none), errors. The writer runs it beside {@link ISSUE_HOURS_UPSERT_SQL}.
 */
export const ISSUE_HOUR_VERSIONS_UPSERT_SQL = `INSERT INTO issue_hour_versions (hour, issue_key, version, errors) VALUES (?, ?, ?, ?)
  ON CONFLICT (hour, issue_key, version) DO UPDATE SET errors = errors + excluded.errors`;

/** Schema version a fully migrated database reports in `PRAGMA user_version`. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Apply {@link MIGRATIONS} to an open read-write better-sqlite3 database, keyed on
 * `PRAGMA user_version`, in one `BEGIN IMMEDIATE` transaction. Returns the schema version.
 * Throws an `Error` with `code` `AAP_SCHEMA_TOO_NEW` or `AAP_NOT_AUDIT_DB`, or the SQLite error.
 */
export function migrate(db: BetterSqlite3.Database): number {
  return applyMigrations(db, MIGRATIONS);
}
