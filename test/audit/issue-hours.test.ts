/**
 * The hourly issue summary (`issue_hours`, schema 3) as the real writer keeps it: one upsert per
 * (hour, issue, client) of each batch, duplicates not counted, and `forget` / `prune` rebuilding
 * the hours they touch — always what the rows add up to.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createPseudonymizer, forgetSubject, openAuditSink, pruneOlderThan } from '../../src/audit/index.js';
import { captureLogger, makeEvent, tempDir } from './helpers.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 30, 10, 0, 0);
const p = createPseudonymizer('issue-hours-test-secret-0123');

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

/** issue_hours (client ids resolved to pseudonyms), and what error_events adds up to per (hour, issue). */
function compare(path: string): { summary: unknown[]; rows: unknown[] } {
  const db = new Database(path, { readonly: true });
  const names = new Map((db.prepare('SELECT id, client FROM issue_client_ids').all() as { id: number; client: string }[]).map((r) => [String(r.id), r.client]));
  const summary = (
    db.prepare('SELECT hour, issue_key, errors, retryable, terminal, first_at, last_at, clients FROM issue_hours ORDER BY 1, 2').all() as { clients: string }[]
  ).map((r) => ({ ...r, clients: r.clients.split(',').filter(Boolean).map((id) => names.get(id)).sort().join(',') }));
  const rows = (
    db
      .prepare(
        `SELECT occurred_at - occurred_at % 3600000 AS hour, issue_key, count(*) AS errors, sum(retryable IS 1) AS retryable,
                sum(retryable IS 0) AS terminal, min(occurred_at) AS first_at, max(occurred_at) AS last_at, group_concat(DISTINCT client) AS clients
           FROM error_events GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all() as { clients: string | null }[]
  ).map((r) => ({ ...r, clients: (r.clients ?? '').split(',').filter(Boolean).sort().join(',') }));
  db.close();
  return { summary, rows };
}

describe('issue_hours', () => {
  it('is what the rows add up to after the writer, forget and prune', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false, batchSize: 7 });
    const events = Array.from({ length: 40 }, (_, i) =>
      makeEvent(i + 1, {
        occurred_at: T + Math.floor(i / 10) * HOUR + i * 1000,
        code: i % 3 === 0 ? 'RATE_LIMITED' : 'VEHICLE_NOT_FOUND',
        retryable: i % 3 === 0 ? true : i % 5 === 0 ? null : false,
        client: i % 4 === 0 ? null : i % 2 ? 'clientOddAAAAAAAAAAAAA' : 'clientEvenBBBBBBBBBBBB',
        subject: i % 7 === 0 ? p.subject('pat@example.com') : null,
        subject_alt: i % 7 === 0 ? p.subject('+1 555 555 0100') : null,
      }),
    );
    for (const e of events) sink.write(e);
    sink.write(events[3]!); // the same error_id again: stored once, counted once
    await sink.close();
    let c = compare(t.db);
    expect(c.summary.length).toBeGreaterThan(6);
    expect(c.summary).toEqual(c.rows);

    expect(forgetSubject(t.db, p, '(555) 555-0100').deleted).toBe(6);
    c = compare(t.db);
    expect(c.summary).toEqual(c.rows);

    pruneOlderThan(t.db, 0, T + 2 * HOUR + 25_000);
    c = compare(t.db);
    expect(c.summary).toEqual(c.rows);
    expect((c.rows as { hour: number }[]).every((r) => r.hour >= T + 2 * HOUR)).toBe(true);
  });
});
