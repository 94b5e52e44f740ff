/**
 * Gives rows written before schema version 3 their issue key (issue #17), so an upgraded store
 * groups its history too — otherwise every issue would look `new` after the upgrade. Run by
 * `migrateStore` (`aap-triage doctor --migrate`) after migration 3, never by a reader.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { issueKey } from './issue-key.js';
import { parseJsonArray } from './json-column.js';
import { rebuildIssueHours } from './issue-hours.js';

/** Rows keyed per transaction: live writers wait at most one chunk. */
const CHUNK = 5_000;

interface KeyRow {
  error_id: string;
  service: string;
  protocol: string;
  rpc_method: string;
  skill: string | null;
  code: string;
  violations: string;
  conformance: string;
}

/**
 * Sets `issue_key` on every row that has none, in chunks (each its own `BEGIN IMMEDIATE`
 * transaction, walking the primary key), then rebuilds `issue_hours` from the rows in one
 * transaction. Returns the rows keyed; 0 (and no rebuild)
 * when every row had a key. Throws the SQLite error.
 */
export function backfillIssueKeys(db: BetterSqlite3.Database): number {
  const select = db.prepare(
    `SELECT error_id, service, protocol, rpc_method, skill, code, violations, conformance FROM error_events
      WHERE error_id > ? AND issue_key IS NULL ORDER BY error_id LIMIT ${CHUNK}`,
  );
  const update = db.prepare('UPDATE error_events SET issue_key = ? WHERE error_id = ?');
  const chunk = db.transaction((after: string): { last: string | null; n: number } => {
    const rows = select.all(after) as KeyRow[];
    for (const r of rows) {
      update.run(
        issueKey({
          service: r.service,
          protocol: r.protocol,
          rpc_method: r.rpc_method,
          skill: r.skill,
          code: r.code,
          violations: parseJsonArray(r.violations),
          conformance: parseJsonArray(r.conformance),
        }),
        r.error_id,
      );
    }
    return { last: rows.at(-1)?.error_id ?? null, n: rows.length };
  });
  let total = 0;
  let after = '';
  for (;;) {
    const { last, n } = chunk.immediate(after);
    total += n;
    if (last === null || n < CHUNK) break;
    after = last;
  }
  if (total > 0) db.transaction(() => rebuildIssueHours(db)).immediate();
  return total;
}
