// A seeded audit database whose every row the tests know (used by test/triage and test/cli).
//
// Time origin T0 = 2026-11-30T10:00:00Z. Three clients (22-character pseudonyms, the shape the
// audit layer stores) plus stray rows:
// - STORM_CLIENT retries a non-retryable SCHEMA_VALIDATION_FAILED on lead.submit identically:
//   minutes 0–4, each minute 4 calls × 4 attempts = 16 errors (4 first attempts, 12 retries,
//   every retry flagged retried_non_retryable + no_backoff). Traffic: 16 requests, 16 errors,
//   12 retries a minute. → one episode [T0, T0+5m): 80 requests, 80 errors, 60 retries, ratio 0.75.
// - RATE_CLIENT retries RATE_LIMITED (retry_after_ms 30 000) with no backoff: minutes 20–22,
//   each minute 14 errors (2 first attempts, 12 retries flagged ignored_retry_after + no_backoff)
//   out of 30 requests with 12 retries. → one episode [T0+20m, T0+23m): 90 requests, 42 errors,
//   36 retries, ratio 0.4, amplification 90/54.
// - HEALTHY_CLIENT: minutes 0–29, 100 requests, 5 errors, 5 retries a minute (5 %); one error
//   row a minute (RATE_LIMITED, attempt 2, no flags). → no episode.
// - Stray rows (STRAY): a DMC-12 error with an upstream trace and subject, an A2A error with
//   NULL retryable, and a row whose values are SQL metacharacters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { issueKey } from '../../src/audit/issue-key.js';
import { rebuildIssueHours } from '../../src/audit/issue-hours.js';
import { ERROR_EVENT_COLUMNS, MIGRATIONS } from '../../src/audit/schema.js';
import type { ErrorEvent, TrafficSample } from '../../src/protocol/error-event.js';

export const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);
export const MIN = 60_000;
export const STORM_CLIENT = 'stormClientAAAAAAAAAAA';
export const RATE_CLIENT = 'rateClientBBBBBBBBBBBB';
export const HEALTHY_CLIENT = 'healthyClientCCCCCCCCC';
export const STRAY_CLIENT = 'strayClientDDDDDDDDDDD';
/** Error ids are time-ordered like the real ones: err_ + 12 hex of ms + a counter. */
let counter = 0;
export function errId(at: number): string {
  counter += 1;
  return `err_${at.toString(16).padStart(12, '0')}7${counter.toString(16).padStart(19, '0')}`;
}
const hex32 = (n: number): string => n.toString(16).padStart(32, '0');

/** A full ErrorEvent with defaults for what a test does not care about. */
export function event(over: Partial<ErrorEvent> & Pick<ErrorEvent, 'occurred_at'>): ErrorEvent {
  return {
    error_id: errId(over.occurred_at),
    trace_id: null,
    span_id: null,
    upstream_trace_id: null,
    service: 'dealer-test',
    protocol: 'aap',
    protocol_version: '2.0',
    rpc_method: 'SendMessage',
    skill: null,
    code: 'INTERNAL_ERROR',
    legacy_error: null,
    jsonrpc_code: -32603,
    http_status: 200,
    retryable: true,
    retry_after_ms: null,
    client: null,
    fingerprint: null,
    idempotency: null,
    subject: null,
    attempt: 1,
    retry_flags: [],
    violations: [],
    conformance: [],
    duration_ms: 1.5,
    key_id: 'testkey1',
    ...over,
  };
}

/** Creates an empty, migrated audit database at `path`. */
export function createStore(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(MIGRATIONS.join('\n'));
  db.pragma(`user_version = ${MIGRATIONS.length}`);
  return db;
}

export function insertEvents(db: Database.Database, events: readonly ErrorEvent[]): void {
  const st = db.prepare(
    `INSERT INTO error_events (${ERROR_EVENT_COLUMNS.join(', ')}) VALUES (${ERROR_EVENT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  db.transaction(() => {
    for (const e of events) {
      st.run({
        ...e,
        retryable: e.retryable === null ? null : e.retryable ? 1 : 0,
        retry_flags: JSON.stringify(e.retry_flags),
        violations: JSON.stringify(e.violations),
        conformance: JSON.stringify(e.conformance),
        subject_alt: e.subject_alt ?? null,
        origin: e.origin ?? null,
        service_version: e.service_version ?? null,
        // The key the store computes (src/audit/row.ts); the seed's ids are not all wire-safe, so
        // rows go in directly rather than through eventToRow.
        issue_key: issueKey(e),
      });
    }
    // What the writer adds per batch: the hourly issue summary (here rebuilt from all rows).
    rebuildIssueHours(db);
  })();
}

export function insertTraffic(db: Database.Database, rows: readonly TrafficSample[]): void {
  const st = db.prepare('INSERT INTO traffic VALUES (@minute, @service, @skill, @client, @requests, @errors, @retries)');
  db.transaction(() => {
    for (const r of rows) st.run(r);
  })();
}

/** The known data set described at the top of this file. */
export function seedEvents(): { events: ErrorEvent[]; traffic: TrafficSample[] } {
  counter = 0;
  const events: ErrorEvent[] = [];
  const traffic: TrafficSample[] = [];
  // STORM_CLIENT: 5 minutes × 4 chains × 4 attempts.
  for (let m = 0; m < 5; m++) {
    for (let chain = 0; chain < 4; chain++) {
      for (let attempt = 1; attempt <= 4; attempt++) {
        const at = T0 + m * MIN + chain * 10_000 + attempt * 500;
        events.push(
          event({
            occurred_at: at,
            trace_id: hex32(0x1000 + m * 16 + chain * 4 + attempt),
            skill: 'lead.submit',
            code: 'SCHEMA_VALIDATION_FAILED',
            jsonrpc_code: -32602,
            retryable: false,
            client: STORM_CLIENT,
            fingerprint: `fpStorm${m}${chain}`.padEnd(22, 'x'),
            attempt,
            retry_flags: attempt > 1 ? ['retried_non_retryable', 'no_backoff'] : [],
            violations: [{ location: '/lead/customer/email', keyword: 'format' }],
          }),
        );
      }
    }
    traffic.push({ minute: T0 + m * MIN, service: 'dealer-test', skill: 'lead.submit', client: STORM_CLIENT, requests: 16, errors: 16, retries: 12 });
  }
  // RATE_CLIENT: minutes 20–22, 2 chains of 7 attempts a minute.
  for (let m = 20; m < 23; m++) {
    for (let chain = 0; chain < 2; chain++) {
      for (let attempt = 1; attempt <= 7; attempt++) {
        const at = T0 + m * MIN + chain * 20_000 + attempt * 200;
        events.push(
          event({
            occurred_at: at,
            trace_id: hex32(0x2000 + m * 16 + chain * 8 + attempt),
            skill: 'inventory.search',
            code: 'RATE_LIMITED',
            jsonrpc_code: -32000,
            retryable: true,
            retry_after_ms: 30_000,
            client: RATE_CLIENT,
            fingerprint: `fpRate${m}${chain}`.padEnd(22, 'x'),
            attempt,
            retry_flags: attempt > 1 ? ['ignored_retry_after', 'no_backoff'] : [],
          }),
        );
      }
    }
    traffic.push({ minute: T0 + m * MIN, service: 'dealer-test', skill: 'inventory.search', client: RATE_CLIENT, requests: 30, errors: 14, retries: 12 });
  }
  // HEALTHY_CLIENT: 30 minutes at 5 % retries.
  for (let m = 0; m < 30; m++) {
    events.push(
      event({
        occurred_at: T0 + m * MIN + 30_000,
        trace_id: hex32(0x3000 + m),
        skill: 'inventory.search',
        code: 'RATE_LIMITED',
        jsonrpc_code: -32000,
        retryable: true,
        retry_after_ms: 1_000,
        client: HEALTHY_CLIENT,
        fingerprint: `fpHealthy${m}`.padEnd(22, 'x'),
        attempt: 2,
      }),
    );
    traffic.push({ minute: T0 + m * MIN, service: 'dealer-test', skill: 'inventory.search', client: HEALTHY_CLIENT, requests: 100, errors: 5, retries: 5 });
  }
  // Stray rows.
  events.push(
    event({
      error_id: 'err_dmc12stray000000000000000000001',
      occurred_at: T0 + 40 * MIN,
      trace_id: hex32(0x4001),
      upstream_trace_id: 'trc_0123456789abcdef01234567',
      service: 'mm-dmc12',
      protocol: 'dmc12',
      protocol_version: 'v0.3',
      rpc_method: 'tools/call',
      skill: 'create_reservation',
      code: 'RESERVATION_CONFLICT',
      legacy_error: 'reservation_conflict',
      jsonrpc_code: null,
      retryable: false,
      client: STRAY_CLIENT,
      subject: 'subjectPseudonymEEEEEE',
      idempotency: 'idemPseudonymFFFFFFFFF',
    }),
    event({
      error_id: 'err_a2astray00000000000000000000002',
      occurred_at: T0 + 41 * MIN,
      trace_id: hex32(0x4001),
      protocol: 'a2a',
      protocol_version: '1.0',
      code: 'EXTENSION_SUPPORT_REQUIRED',
      jsonrpc_code: -32008,
      retryable: null,
      client: STRAY_CLIENT,
    }),
    event({
      error_id: "err_quote'; DROP TABLE error_events;--",
      occurred_at: T0 + 42 * MIN,
      protocol: 'jsonrpc',
      rpc_method: '_OTHER',
      code: '-32601',
      jsonrpc_code: -32601,
      retryable: false,
      skill: "lead.submit' OR '1'='1",
      client: STRAY_CLIENT,
    }),
  );
  return { events, traffic };
}

/** Number of rows `seedEvents` makes. */
export const SEED_COUNTS = { storm: 80, rate: 42, healthy: 30, stray: 3, total: 155 } as const;

/** A temp folder with a seeded `audit.db`; `cleanup()` removes it. */
export function seededStore(): { dir: string; path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aap-triage-test-'));
  const path = join(dir, 'audit.db');
  const db = createStore(path);
  const { events, traffic } = seedEvents();
  insertEvents(db, events);
  insertTraffic(db, traffic);
  db.close();
  return { dir, path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
