/**
 * Retention and erasure (DESIGN §5, issue #4 "Retention and erasure"), exposed by the CLI's
 * `prune` and `forget` commands. Deletes run in chunks, each its own `BEGIN IMMEDIATE`
 * transaction, so live writers wait at most one chunk (well inside their busy timeout).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { AuditStoreError } from './errors.js';
import type { Pseudonymizer } from './pseudonym.js';
import { rebuildIssueHoursAt } from './issue-hours.js';
import { openAuditMaintenance, openReadOnly } from './reader.js';
import { ISSUE_HOUR_MS } from './schema.js';

/** Rows deleted per transaction. */
const CHUNK = 5_000;

/** Rows deleted by {@link pruneOlderThan}, per table. */
export interface PruneResult {
  errorEvents: number;
  traffic: number;
  gaps: number;
}

/** Runs a chunked DELETE (its last parameter the chunk size) until it deletes fewer than CHUNK rows. */
function deleteInChunks(db: BetterSqlite3.Database, sql: string, ...params: unknown[]): number {
  const statement = db.prepare(sql);
  const chunk = db.transaction(() => statement.run(...params, CHUNK).changes);
  let total = 0;
  for (;;) {
    const changes = chunk.immediate();
    total += changes;
    if (changes < CHUNK) return total;
  }
}

function finish(db: BetterSqlite3.Database): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // readers active: the writers' idle checkpoints will get to it
  }
  db.close();
}

/**
 * Delete what is older than `olderThanMs` before `now`: error_events by `occurred_at`, traffic
 * by `minute`, audit_gaps by `ended_at`. Returns the rows deleted per table.
 *
 * @param olderThanMs age in milliseconds (e.g. `DEFAULT_RETENTION_MS`, retention.ts); must be ≥ 0.
 * @param now reference time, epoch ms (default `Date.now()`).
 * @throws {AuditStoreError} when the database cannot be opened; RangeError for a bad age.
 */
export function pruneOlderThan(path: string, olderThanMs: number, now: number = Date.now()): PruneResult {
  if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new RangeError(`Expected olderThanMs to be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`);
  }
  const cutoff = now - olderThanMs;
  const db = openAuditMaintenance(path);
  try {
    const errorEvents = deleteInChunks(
      db,
      'DELETE FROM error_events WHERE error_id IN (SELECT error_id FROM error_events WHERE occurred_at < ? LIMIT ?)',
      cutoff,
    );
    // issue_hours: whole hours before the cutoff go; the cutoff's own hour is counted anew.
    db.transaction(() => {
      db.prepare('DELETE FROM issue_hours WHERE hour < ?').run(cutoff - (cutoff % ISSUE_HOUR_MS));
      db.prepare('DELETE FROM issue_hour_versions WHERE hour < ?').run(cutoff - (cutoff % ISSUE_HOUR_MS));
      rebuildIssueHoursAt(db, [cutoff - (cutoff % ISSUE_HOUR_MS)]);
    }).immediate();
    return {
      errorEvents,
      traffic: deleteInChunks(
        db,
        'DELETE FROM traffic WHERE (minute, service, skill, client) IN (SELECT minute, service, skill, client FROM traffic WHERE minute < ? LIMIT ?)',
        cutoff,
      ),
      gaps: deleteInChunks(db, 'DELETE FROM audit_gaps WHERE id IN (SELECT id FROM audit_gaps WHERE ended_at < ? LIMIT ?)', cutoff),
    };
  } catch (error) {
    throw error instanceof AuditStoreError ? error : new AuditStoreError('unreadable', path, `prune failed: ${(error as Error).message}`, { cause: error });
  } finally {
    finish(db);
  }
}

/** What {@link previewPrune} found: what `pruneOlderThan` with the same age would delete. */
export interface PrunePreview extends PruneResult {
  /** The cutoff: rows before this time (epoch ms) would go. */
  cutoff: number;
  /** Oldest and newest error that would go, epoch ms; null when none. */
  oldestError: number | null;
  newestError: number | null;
  /** Errors that would stay. */
  keptErrors: number;
}

/**
 * What {@link pruneOlderThan} would delete, read on a read-only connection (a dry run writes
 * nothing, not even a migration). Same arguments and errors as `pruneOlderThan`.
 */
export function previewPrune(path: string, olderThanMs: number, now: number = Date.now()): PrunePreview {
  if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new RangeError(`Expected olderThanMs to be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`);
  }
  const cutoff = now - olderThanMs;
  const { db } = openReadOnly(path, true);
  try {
    const e = db.prepare('SELECT count(*) AS n, min(occurred_at) AS lo, max(occurred_at) AS hi FROM error_events WHERE occurred_at < ?').get(cutoff) as {
      n: number;
      lo: number | null;
      hi: number | null;
    };
    const count = (sql: string): number => db.prepare(sql).pluck().get(cutoff) as number;
    return {
      cutoff,
      errorEvents: e.n,
      traffic: count('SELECT count(*) FROM traffic WHERE minute < ?'),
      gaps: count('SELECT count(*) FROM audit_gaps WHERE ended_at < ?'),
      oldestError: e.lo,
      newestError: e.hi,
      keptErrors: count('SELECT count(*) FROM error_events WHERE occurred_at >= ?'),
    };
  } finally {
    db.close();
  }
}

/** What {@link forgetSubject} did and could not do. */
export interface ForgetResult {
  /** Rows of the subject deleted (matched under the current key). */
  deleted: number;
  /**
   * Rows that have a subject but were written under another key (a `key_id` other than the
   * current key's, or none): they could not be checked against this value.
   */
  otherKeyRows: number;
  /** The distinct other `key_id`s of those rows, sorted (the keys that would be needed). */
  otherKeyIds: string[];
}

/**
 * Delete every error_events row of one subject: the raw email or phone is pseudonymised with
 * the current key (normalised the same way as when written) and rows with that pseudonym in
 * `subject` or `subject_alt` go.
 * Rows written under another key (`key_id`) cannot be matched: they are counted, with their key
 * ids, in `otherKeyRows` / `otherKeyIds` so the caller can say which key would be needed.
 * The raw value is never logged or stored.
 *
 * @throws {AuditStoreError} when the database cannot be opened; TypeError when the value
 *   normalises to nothing (neither an email nor a phone).
 */
export function forgetSubject(path: string, pseudonymizer: Pseudonymizer, emailOrPhone: string): ForgetResult {
  const subject = pseudonymizer.subject(emailOrPhone);
  if (subject === null) throw new TypeError('Expected an email address or a phone number to forget');
  const db = openAuditMaintenance(path);
  try {
    // A request that held an email and a phone keeps both pseudonyms (subject, subject_alt).
    const hours = (
      db.prepare(`SELECT DISTINCT occurred_at - occurred_at % ${ISSUE_HOUR_MS} AS h FROM error_events WHERE subject = ? OR subject_alt = ?`).all(subject, subject) as {
        h: number;
      }[]
    ).map((r) => r.h);
    const deleted = deleteInChunks(
      db,
      'DELETE FROM error_events WHERE error_id IN (SELECT error_id FROM error_events WHERE subject = ? OR subject_alt = ? LIMIT ?)',
      subject,
      subject,
    );
    // The issue counts of the hours those rows were in, from what is left.
    if (deleted > 0) db.transaction(() => rebuildIssueHoursAt(db, hours)).immediate();
    const others = db
      .prepare(
        'SELECT key_id, count(*) AS n FROM error_events WHERE (subject IS NOT NULL OR subject_alt IS NOT NULL) AND (key_id IS NULL OR key_id <> ?) GROUP BY key_id ORDER BY key_id',
      )
      .all(pseudonymizer.keyId) as { key_id: string | null; n: number }[];
    return {
      deleted,
      otherKeyRows: others.reduce((a, r) => a + r.n, 0),
      otherKeyIds: others.flatMap((r) => (r.key_id === null ? [] : [r.key_id])),
    };
  } catch (error) {
    throw error instanceof AuditStoreError ? error : new AuditStoreError('unreadable', path, `forget failed: ${(error as Error).message}`, { cause: error });
  } finally {
    finish(db);
  }
}
