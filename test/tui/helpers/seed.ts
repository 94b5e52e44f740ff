/**
 * A small audit database whose contents the TUI tests know row by row. Times are relative to
 * `now` (rounded down to a minute) so the default `since 1h` window holds everything.
 *
 * - client A (`cliAAAA…`): healthy, 100 requests/min for 60 min with 5 % retries, and 6 errors
 *   (VEHICLE_NOT_FOUND, retryable=false), one of them on a skill with wide characters.
 * - client B (`cliBBBB…`): a storm 30–26 min ago: lead.submit SCHEMA_VALIDATION_FAILED
 *   (retryable=false) retried identically, 20 errors/min, 15 of them retries flagged
 *   retried_non_retryable.
 * - client C (`cliCCCC…`): a storm 12–10 min ago: DMC-12 search_inventory RATE_LIMITED
 *   (retryable=true) retried with no backoff and before retry_after_ms, 15 errors/min, 12 retries.
 * - one audit gap record (7 errors not recorded).
 */
import Database from 'better-sqlite3';
import { issueKey } from '../../../src/audit/issue-key.js';
import { rebuildIssueHours } from '../../../src/audit/issue-hours.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/audit/schema.js';

export const MINUTE = 60_000;
/** Client pseudonyms in the audit layer's shape: 16 HMAC bytes as 22 base64url characters. */
export const CLIENT_A = `cli${'A'.repeat(19)}`;
export const CLIENT_B = `cli${'B'.repeat(19)}`;
export const CLIENT_C = `cli${'C'.repeat(19)}`;
/** A skill value with CJK and an emoji (two display cells each). */
export const WIDE_SKILL = '在庫.🚗search';

/** What the seed put in, for assertions. */
export interface SeedFacts {
  /** `now` rounded down to the minute, epoch ms. */
  readonly base: number;
  readonly total: number;
  readonly byCode: Readonly<Record<string, number>>;
  /** The newest row's error_id. */
  readonly newestId: string;
  /** error_id of the wide-skill row. */
  readonly wideId: string;
  /** error_ids of client A's rows (VEHICLE_NOT_FOUND), newest first. */
  readonly clientAIds: readonly string[];
  readonly traceOfB: string;
}

let counter = 0;
function id(t: number): string {
  // Time-ordered like UUIDv7: 12 hex digits of ms, then a counter.
  counter++;
  return `err_${t.toString(16).padStart(12, '0')}7${counter.toString(16).padStart(19, '0')}`;
}

interface Row {
  error_id: string;
  occurred_at: number;
  trace_id: string | null;
  upstream_trace_id: string | null;
  service: string;
  protocol: string;
  protocol_version: string | null;
  rpc_method: string;
  skill: string | null;
  code: string;
  jsonrpc_code: number | null;
  http_status: number | null;
  retryable: number | null;
  retry_after_ms: number | null;
  client: string | null;
  fingerprint: string | null;
  attempt: number;
  retry_flags: string;
}

/** Creates `path` and fills it; returns what it holds. */
export function seedTuiDb(path: string, now: number): SeedFacts {
  const base = Math.floor(now / MINUTE) * MINUTE;
  const db = new Database(path);
  for (const m of MIGRATIONS) db.exec(m);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  const rows: Row[] = [];
  const traffic = new Map<string, { minute: number; skill: string; client: string; requests: number; errors: number; retries: number }>();
  const addTraffic = (minute: number, skill: string, client: string, requests: number, errors: number, retries: number) => {
    const k = `${minute}|${skill}|${client}`;
    const t = traffic.get(k) ?? { minute, skill, client, requests: 0, errors: 0, retries: 0 };
    t.requests += requests;
    t.errors += errors;
    t.retries += retries;
    traffic.set(k, t);
  };
  const aap = (t: number, over: Partial<Row>): Row => ({
    error_id: id(t),
    occurred_at: t,
    trace_id: null,
    upstream_trace_id: null,
    service: 'dealer-aap',
    protocol: 'aap',
    protocol_version: '2.0',
    rpc_method: 'SendMessage',
    skill: 'inventory.vehicle',
    code: 'VEHICLE_NOT_FOUND',
    jsonrpc_code: -32602,
    http_status: 200,
    retryable: 0,
    retry_after_ms: null,
    client: CLIENT_A,
    fingerprint: null,
    attempt: 1,
    retry_flags: '[]',
    ...over,
  });

  // Client A: healthy traffic and 6 scattered errors.
  for (let m = 59; m >= 0; m--) addTraffic(base - m * MINUTE, 'inventory.search', CLIENT_A, 100, 0, 5);
  const aTimes = [55, 45, 35, 20, 5, 1].map((m) => base - m * MINUTE + 7_000);
  aTimes.forEach((t, i) => {
    const skill = i === 3 ? WIDE_SKILL : 'inventory.vehicle';
    rows.push(aap(t, { skill, trace_id: `${(i + 1).toString(16).padStart(32, 'a')}`, fingerprint: `fpA${i}` }));
    addTraffic(Math.floor(t / MINUTE) * MINUTE, skill, CLIENT_A, 0, 1, 0);
  });

  // Client B: identical retries of a non-retryable lead.submit, 30..26 minutes ago.
  const traceOfB = 'b'.repeat(32);
  for (let m = 30; m >= 26; m--) {
    const minute = base - m * MINUTE;
    for (let k = 0; k < 20; k++) {
      const attempt = (k % 4) + 1; // 5 first attempts and 15 retries a minute
      rows.push(
        aap(minute + k * 2_500, {
          skill: 'lead.submit',
          code: 'SCHEMA_VALIDATION_FAILED',
          client: CLIENT_B,
          fingerprint: `fpB${m}-${Math.floor(k / 4)}`,
          trace_id: m === 30 && k < 4 ? traceOfB : `${(m * 100 + k).toString(16).padStart(32, '0')}`,
          attempt,
          retry_flags: attempt > 1 ? '["retried_non_retryable"]' : '[]',
        }),
      );
    }
    addTraffic(minute, 'lead.submit', CLIENT_B, 20, 20, 15);
  }

  // Client C: DMC-12 RATE_LIMITED retried with no backoff, 12..10 minutes ago.
  for (let m = 12; m >= 10; m--) {
    const minute = base - m * MINUTE;
    for (let k = 0; k < 15; k++) {
      const attempt = k < 3 ? 1 : 2 + (k % 3);
      rows.push(
        aap(minute + k * 3_000 + 500, {
          service: 'dealer-dmc12',
          protocol: 'dmc12',
          protocol_version: 'v0.3',
          rpc_method: 'tools/call',
          skill: 'search_inventory',
          code: 'RATE_LIMITED',
          jsonrpc_code: null,
          retryable: 1,
          retry_after_ms: 2000,
          client: CLIENT_C,
          upstream_trace_id: `trc_${(m * 100 + k).toString(16).padStart(16, '0')}`,
          fingerprint: `fpC${k % 3}`,
          attempt,
          retry_flags: attempt > 1 ? '["ignored_retry_after","no_backoff"]' : '[]',
        }),
      );
    }
    addTraffic(minute, 'search_inventory', CLIENT_C, 15, 15, 12);
  }

  const insert = db.prepare(
    `INSERT INTO error_events (error_id, occurred_at, trace_id, upstream_trace_id, service, protocol, protocol_version, rpc_method, skill, code,
       jsonrpc_code, http_status, retryable, retry_after_ms, client, fingerprint, attempt, retry_flags, key_id, issue_key)
     VALUES (@error_id, @occurred_at, @trace_id, @upstream_trace_id, @service, @protocol, @protocol_version, @rpc_method, @skill, @code,
       @jsonrpc_code, @http_status, @retryable, @retry_after_ms, @client, @fingerprint, @attempt, @retry_flags, 'k1', @issue_key)`,
  );
  const insertTraffic = db.prepare(
    `INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES (@minute, 'dealer', @skill, @client, @requests, @errors, @retries)`,
  );
  db.transaction(() => {
    // The issue key the store computes on write (src/audit/issue-key.ts): no violations or rules here.
    for (const r of rows) insert.run({ ...r, issue_key: issueKey({ ...r, violations: [], conformance: [] }) });
    // The hourly issue summary the writer keeps per batch (src/audit/issue-hours.ts).
    rebuildIssueHours(db);
    for (const t of traffic.values()) insertTraffic.run(t);
    db.prepare(`INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('dealer-aap', ?, ?, 7, 'queue-overflow')`).run(
      base - 20 * MINUTE,
      base - 19 * MINUTE,
    );
  })();
  db.close();

  const sorted = [...rows].sort((a, b) => b.occurred_at - a.occurred_at || (a.error_id < b.error_id ? 1 : -1));
  const byCode: Record<string, number> = {};
  for (const r of rows) byCode[r.code] = (byCode[r.code] ?? 0) + 1;
  const wide = rows.find((r) => r.skill === WIDE_SKILL);
  return {
    base,
    total: rows.length,
    byCode,
    newestId: sorted[0]?.error_id ?? '',
    wideId: wide?.error_id ?? '',
    clientAIds: sorted.filter((r) => r.client === CLIENT_A).map((r) => r.error_id),
    traceOfB,
  };
}
