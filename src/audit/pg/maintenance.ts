/**
 * Retention, erasure, inspection and migration of the PostgreSQL store (issue #19 "Retention by
 * time partitions"): `prune` drops whole daily partitions of error_events that lie entirely
 * before the cutoff (no row-by-row delete, no lock on what writers touch) and deletes the rest
 * of the cutoff day, traffic and gap rows in chunks of {@link CHUNK}, each its own short
 * transaction. `forget` deletes through the partitioned parent, so it reaches every partition.
 */
import pg from 'pg';
import type { ForgetResult, PrunePreview, PruneResult } from '../maintenance.js';
import { AuditStoreError } from '../errors.js';
import { ISSUE_STATE_UPSERT_SQL, issueStateValues, type IssueStateRow } from '../issue-states.js';
import { redactPostgresUrl } from '../paths.js';
import type { Pseudonymizer } from '../pseudonym.js';
import { classifyPgError, openPgReader } from './reader.js';
import { rebuildPgIssueHours } from './issue-hours.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION, migratePg, pgMigrationNotes, readPgVersion } from './schema.js';
import { poolConfig } from './sql.js';

/** Rows deleted per transaction. */
const CHUNK = 5_000;

/** What {@link inspectPgStore} found. */
export interface PgStoreInspection {
  /** The URL without its password. */
  path: string;
  schemaVersion: number;
  expectedVersion: number;
  /** Daily partitions of error_events. */
  partitions: number;
  /** Size of the audit tables with their indexes and partitions, bytes. */
  totalBytes: number;
  /** Server version string (`PostgreSQL 15.20 …` shortened to `15.20`). */
  serverVersion: string;
}

/** Runs `run` on one connection to `url`, ended after; errors become `AuditStoreError`s (classifyPgError). */
export async function withClient<T>(url: string, run: (client: pg.PoolClient, label: string) => Promise<T>): Promise<T> {
  const label = redactPostgresUrl(url);
  const pool = new pg.Pool({ ...poolConfig(url, { max: 1, applicationName: 'aap-triage-maintenance' }) });
  pool.on('error', () => undefined);
  let client: pg.PoolClient | undefined;
  try {
    client = await pool.connect();
    return await run(client, label);
  } catch (error) {
    throw classifyPgError(error, label);
  } finally {
    client?.release();
    await pool.end().catch(() => undefined);
  }
}

/** The store's schema version; throws {@link AuditStoreError} for no store, not ours, or too new. */
export async function requireVersion(client: pg.PoolClient, label: string): Promise<number> {
  const version = await readPgVersion(client);
  if (version === 0) throw new AuditStoreError('missing', label, `no audit store at ${label}: check --db / AAP_TRIAGE_DB`);
  if (version < 0) throw new AuditStoreError('not-an-audit-db', label, `${label} is not an aap-triage audit store (tables but no schema version): check --db / AAP_TRIAGE_DB`);
  if (version > PG_SCHEMA_VERSION) throw new AuditStoreError('schema-too-new', label, `${label} has schema version ${version}, newer than this aap-triage's ${PG_SCHEMA_VERSION}: upgrade aap-triage`);
  return version;
}

/** Daily partitions of error_events with their bounds (epoch ms), oldest first. */
async function listPartitions(client: pg.PoolClient): Promise<{ name: string; from: number; to: number }[]> {
  const rows = await client.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'error_events'::regclass`,
  );
  const out: { name: string; from: number; to: number }[] = [];
  for (const r of rows.rows) {
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(r.bound);
    if (m) out.push({ name: r.name, from: Number(m[1]), to: Number(m[2]) });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** `DETACH PARTITION`, `CONCURRENTLY` where the server has it; a pending detach left by an interrupted one is finished. */
async function detachPartition(client: pg.PoolClient, name: string, concurrently: boolean): Promise<void> {
  if (!concurrently) {
    await client.query(`ALTER TABLE error_events DETACH PARTITION ${name}`);
    return;
  }
  try {
    await client.query(`ALTER TABLE error_events DETACH PARTITION ${name} CONCURRENTLY`);
  } catch (error) {
    // 55000 object_not_in_prerequisite_state: "partition … already pending detach" (an earlier prune stopped half way).
    if ((error as { code?: string }).code !== '55000') throw error;
    await client.query(`ALTER TABLE error_events DETACH PARTITION ${name} FINALIZE`);
  }
}

/** Runs `work` in one transaction on `client`; rolls back and rethrows on error. */
async function inTransaction(client: pg.PoolClient, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function deleteInChunks(client: pg.PoolClient, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await client.query(sql, [...params, CHUNK]);
    const n = result.rowCount ?? 0;
    total += n;
    if (n < CHUNK) return total;
  }
}

/**
 * Delete what is older than `olderThanMs` before `now` (see the module comment). Returns rows
 * deleted per table; `errorEvents` counts the rows of dropped partitions too.
 * @throws {AuditStoreError}; RangeError for a bad age.
 */
export async function prunePgStore(url: string, olderThanMs: number, now: number = Date.now()): Promise<PruneResult & { droppedPartitions: number }> {
  if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new RangeError(`Expected olderThanMs to be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`);
  }
  const cutoff = now - olderThanMs;
  return withClient(url, async (client, label) => {
    await requireVersion(client, label);
    let errorEvents = 0;
    let droppedPartitions = 0;
    let droppedUntil = Number.NEGATIVE_INFINITY;
    // DETACH … CONCURRENTLY (PostgreSQL 14+) takes no lock that blocks writers or readers of the
    // other partitions; it cannot run in a transaction block, which this pooled client is not in.
    const concurrently = Number((await client.query<{ v: string }>('SHOW server_version_num')).rows[0]?.v ?? 0) >= 140000;
    for (const p of await listPartitions(client)) {
      if (p.to > cutoff) continue;
      droppedUntil = Math.max(droppedUntil, p.to);
      const count = await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${p.name}`);
      // DETACH first, then DROP the now-independent table.
      await detachPartition(client, p.name, concurrently);
      await client.query(`DROP TABLE ${p.name}`);
      errorEvents += Number(count.rows[0]?.n ?? 0);
      droppedPartitions += 1;
    }
    // The dropped days leave the hourly summary here (whole hours: partitions are whole days).
    if (droppedPartitions > 0) {
      await client.query('DELETE FROM issue_hours WHERE hour + 3600000 <= $1', [droppedUntil]);
      await client.query('DELETE FROM issue_hour_versions WHERE hour + 3600000 <= $1', [droppedUntil]);
    }
    const rowsFrom = droppedUntil === Number.NEGATIVE_INFINITY ? Number.MIN_SAFE_INTEGER : droppedUntil;
    const deleted = await deleteInChunks(
      client,
      'DELETE FROM error_events WHERE (error_id, occurred_at) IN (SELECT error_id, occurred_at FROM error_events WHERE occurred_at < $1 LIMIT $2)',
      [cutoff],
    );
    errorEvents += deleted;
    // The rows deleted one by one leave their hours: those hours are rebuilt from what is left.
    if (deleted > 0) await inTransaction(client, () => rebuildPgIssueHours(client, rowsFrom, cutoff));
    const traffic = await deleteInChunks(
      client,
      'DELETE FROM traffic WHERE ctid IN (SELECT ctid FROM traffic WHERE minute < $1 LIMIT $2)',
      [cutoff],
    );
    const gaps = await deleteInChunks(client, 'DELETE FROM audit_gaps WHERE id IN (SELECT id FROM audit_gaps WHERE ended_at < $1 LIMIT $2)', [cutoff]);
    return { errorEvents, traffic, gaps, droppedPartitions };
  });
}

/**
 * Delete every error_events row of one subject (email or phone, pseudonymised with the current
 * key), across all partitions; rows of other keys are counted as in `forgetSubject`.
 * @throws {AuditStoreError}; TypeError when the value is neither an email nor a phone.
 */
export async function forgetPgSubject(url: string, pseudonymizer: Pseudonymizer, emailOrPhone: string): Promise<ForgetResult> {
  const subject = pseudonymizer.subject(emailOrPhone);
  if (subject === null) throw new TypeError('Expected an email address or a phone number to forget');
  return withClient(url, async (client, label) => {
    await requireVersion(client, label);
    // A request that held an email and a phone keeps both pseudonyms (subject, subject_alt).
    // The hours its rows counted in are rebuilt after the delete, so issue_hours keeps in step.
    const hours = await client.query<{ h: number }>(
      'SELECT DISTINCT occurred_at - occurred_at % 3600000 AS h FROM error_events WHERE (subject = $1 OR subject_alt = $1) AND issue_key IS NOT NULL',
      [subject],
    );
    const deleted = await deleteInChunks(
      client,
      'DELETE FROM error_events WHERE (error_id, occurred_at) IN (SELECT error_id, occurred_at FROM error_events WHERE subject = $1 OR subject_alt = $1 LIMIT $2)',
      [subject],
    );
    if (hours.rows.length > 0) {
      await inTransaction(client, async () => {
        for (const { h } of hours.rows) await rebuildPgIssueHours(client, Number(h), Number(h) + 3_600_000);
      });
    }
    const others = await client.query<{ key_id: string | null; n: number }>(
      'SELECT key_id, count(*)::int AS n FROM error_events WHERE (subject IS NOT NULL OR subject_alt IS NOT NULL) AND (key_id IS NULL OR key_id <> $1) GROUP BY key_id ORDER BY key_id',
      [pseudonymizer.keyId],
    );
    return {
      deleted,
      otherKeyRows: others.rows.reduce((a, r) => a + Number(r.n), 0),
      otherKeyIds: others.rows.flatMap((r) => (r.key_id === null ? [] : [r.key_id])),
    };
  });
}

/**
 * Schema version, partitions, size and server version of the store; never writes.
 * @throws {AuditStoreError} `missing`, `unreadable`, `not-an-audit-db`, `schema-too-new`.
 */
export async function inspectPgStore(url: string): Promise<PgStoreInspection> {
  return withClient(url, async (client, label) => {
    const version = await requireVersion(client, label);
    const partitions = await listPartitions(client);
    const size = await client.query<{ bytes: number }>(
      `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
        WHERE c.relkind IN ('r', 'p') AND (c.relname IN ('error_events', 'traffic', 'audit_gaps', 'aap_triage_schema') OR c.relname LIKE 'error\\_events\\_p%')
          AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`,
    );
    const server = await client.query<{ server_version: string }>('SHOW server_version');
    return {
      path: label,
      schemaVersion: version,
      expectedVersion: PG_SCHEMA_VERSION,
      partitions: partitions.length,
      totalBytes: Number(size.rows[0]?.bytes ?? 0),
      serverVersion: String(server.rows[0]?.server_version ?? '').split(' ')[0] ?? '',
    };
  });
}

/** Brings the store to this aap-triage's schema (creating it when empty). Returns the versions before and after. */
export async function migratePgStore(url: string): Promise<{ from: number; to: number; notes: string[] }> {
  return withClient(url, async (client, label) => {
    const from = await readPgVersion(client);
    if (from < 0) throw new AuditStoreError('not-an-audit-db', label, `${label} is not an aap-triage audit store (tables but no schema version): check --db / AAP_TRIAGE_DB`);
    const to = await migratePg(client, PG_MIGRATIONS);
    return { from, to, notes: pgMigrationNotes(from, to) };
  });
}

/**
 * Empties the audit tables of the store at `url` (TRUNCATE; the schema, partitions and version
 * stay). For the demo, which replaces its own store. Returns false when there was no audit schema.
 * @throws {AuditStoreError}
 */
export async function truncatePgStore(url: string): Promise<boolean> {
  return withClient(url, async (client, label) => {
    const version = await readPgVersion(client);
    if (version === 0) return false;
    if (version < 0) throw new AuditStoreError('not-an-audit-db', label, `${label} is not an aap-triage audit store: check --db`);
    await client.query('TRUNCATE error_events, traffic, audit_gaps, issue_hours, issue_hour_versions');
    return true;
  });
}

/** Stores (or replaces) a client label in the PostgreSQL store (as `setClientLabel`). @throws {AuditStoreError} */
export async function setPgClientLabel(url: string, row: { client: string; name: string; contact: string | null; updated_at: number }): Promise<void> {
  await withClient(url, async (client, label) => {
    await requireVersion(client, label);
    await client.query(
      `INSERT INTO client_labels (client, name, contact, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (client) DO UPDATE SET name = excluded.name, contact = excluded.contact, updated_at = excluded.updated_at`,
      [row.client, row.name, row.contact, row.updated_at],
    );
  });
}

/** Deletes a client label from the PostgreSQL store; true when there was one. @throws {AuditStoreError} */
export async function removePgClientLabel(url: string, clientId: string): Promise<boolean> {
  return withClient(url, async (client, label) => {
    await requireVersion(client, label);
    return ((await client.query('DELETE FROM client_labels WHERE client = $1', [clientId])).rowCount ?? 0) > 0;
  });
}

/**
 * The PostgreSQL side of `setIssueState` (issue 29): stores `row`, migrating an older schema
 * first as `prune` does. @throws {AuditStoreError} when the server cannot be reached or written.
 */
export async function setPgIssueState(url: string, row: IssueStateRow): Promise<void> {
  await withClient(url, async (client, label) => {
    await requireVersion(client, label);
    await migratePg(client, PG_MIGRATIONS);
    await client.query(ISSUE_STATE_UPSERT_SQL, issueStateValues(row));
  });
}

/**
 * What {@link prunePgStore} would delete (`prune --dry-run`), read through a read-only reader:
 * the same counts as SQLite's `previewPrune`. @throws {AuditStoreError}; RangeError for a bad age.
 */
export async function previewPgPrune(url: string, olderThanMs: number, now: number = Date.now()): Promise<PrunePreview> {
  if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new RangeError(`Expected olderThanMs to be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`);
  }
  const cutoff = now - olderThanMs;
  const db = await openPgReader(url);
  try {
    const e = await db.get<{ n: number; lo: number | null; hi: number | null }>(
      'SELECT count(*) AS n, min(occurred_at) AS lo, max(occurred_at) AS hi FROM error_events WHERE occurred_at < ?',
      [cutoff],
    );
    const count = async (sql: string): Promise<number> => (await db.get<{ n: number }>(sql, [cutoff]))?.n ?? 0;
    return {
      cutoff,
      errorEvents: e?.n ?? 0,
      traffic: await count('SELECT count(*) AS n FROM traffic WHERE minute < ?'),
      gaps: await count('SELECT count(*) AS n FROM audit_gaps WHERE ended_at < ?'),
      oldestError: e?.lo ?? null,
      newestError: e?.hi ?? null,
      keptErrors: await count('SELECT count(*) AS n FROM error_events WHERE occurred_at >= ?'),
    };
  } finally {
    await db.close();
  }
}
