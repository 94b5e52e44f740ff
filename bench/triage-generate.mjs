// Generates (once) the benchmark audit database for bench/triage-queries.bench.mjs:
// N error rows over 30 days plus the matching per-minute `traffic` rows, with realistic code,
// skill, protocol and client distributions and a retry storm every 6 hours.
//
// Run by hand:  npm run build && node bench/triage-generate.mjs [rows] [path]
// Default: 10,000,000 rows into bench/results/triage-10m.db (reused when it exists and is complete).
//
// Speed: the schema is created by MIGRATIONS, then its indexes are dropped, rows go in with
// prepared statements, one transaction per 100k rows, journal off; after the load the indexes
// are rebuilt (a sort is much faster than 10 M random B-tree inserts) and `issue_hours` is
// filled in one GROUP BY (`rebuildIssueHours`: what the writer's per-batch upserts add up to).
// Every row carries its issue key, computed by the store's own `issueKey`. Deterministic: a
// seeded PRNG, a fixed end time.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS } from '../dist/audit/schema.js';
import { rebuildIssueHours } from '../dist/audit/issue-hours.js';
import { issueKey } from '../dist/audit/issue-key.js';

export const BENCH_END = Date.UTC(2026, 10, 29, 0, 0, 0); // fixed "now" of the data set, epoch ms
export const BENCH_DAYS = 30;
const DAY = 86_400_000;
const MINUTE = 60_000;

/** mulberry32: small, fast, seeded. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pickWeighted(r, table) {
  let x = r * table.total;
  for (const [value, w] of table.items) {
    x -= w;
    if (x < 0) return value;
  }
  return table.items[table.items.length - 1][0];
}
const weighted = (items) => ({ items, total: items.reduce((s, [, w]) => s + w, 0) });

export const AAP_SKILLS = weighted([
  ['inventory.search', 50],
  ['inventory.vehicle', 20],
  ['inventory.facets', 10],
  ['dealer.information', 5],
  ['lead.submit', 15],
]);
export const DMC_TOOLS = weighted([
  ['search_inventory', 45],
  ['get_vehicle', 15],
  ['create_quote', 10],
  ['create_reservation', 12],
  ['initiate_deal_handoff', 8],
  ['get_reservation', 10],
]);
// [code, retryable, jsonrpc_code, http]
export const AAP_CODES = weighted([
  [['RATE_LIMITED', 1, -32000, 200], 30],
  [['SCHEMA_VALIDATION_FAILED', 0, -32602, 200], 22],
  [['VEHICLE_NOT_FOUND', 0, -32000, 200], 14],
  [['VEHICLE_UNAVAILABLE', 0, -32000, 200], 8],
  [['INTERNAL_ERROR', 1, -32603, 200], 6],
  [['MISSING_REQUIRED_FIELD', 0, -32602, 200], 5],
  [['CONTACT_CONSENT_REQUIRED', 0, -32000, 200], 4],
  [['INVALID_CONSENT', 0, -32000, 200], 3],
  [['IDEMPOTENCY_CONFLICT', 0, -32000, 200], 2],
  [['INVALID_CONDITION', 0, -32602, 200], 2],
  [['APPOINTMENT_TIME_UNAVAILABLE', 0, -32000, 200], 2],
  [['UNSUPPORTED_SKILL', 0, -32004, 200], 2],
]);
export const A2A_CODES = weighted([
  [['EXTENSION_SUPPORT_REQUIRED', 0, -32008, 200], 50],
  [['VERSION_NOT_SUPPORTED', 0, -32009, 200], 30],
  [['UNSUPPORTED_OPERATION', 0, -32004, 200], 20],
]);
export const DMC_CODES = weighted([
  [['RATE_LIMITED', 1, null, 200], 25],
  [['VALIDATION_FAILED', 0, null, 200], 20],
  [['VEHICLE_NOT_FOUND', 0, null, 200], 12],
  [['RESERVATION_CONFLICT', 0, null, 200], 8],
  [['QUOTE_EXPIRED', 0, null, 200], 8],
  [['UPSTREAM_UNAVAILABLE', 1, null, 200], 6],
  [['INTERNAL_ERROR', 1, null, 200], 4],
  [['NOT_AUTHORIZED', 0, null, 200], 5],
  [['RESERVATION_EXPIRED', 0, null, 200], 4],
  [['CONSENT_INVALID', 0, null, 200], 3],
  [['-32001', 0, -32001, 401], 5],
]);
export const JSONRPC_CODES = weighted([
  [['-32700', 0, -32700, 200], 30],
  [['-32600', 0, -32600, 200], 30],
  [['-32601', 0, -32601, 200], 40],
]);
const SERVICES = ['dealer-east', 'dealer-west', 'mm-dmc12'];
const CLIENTS = 300;

const hex = (r, n) => {
  let s = '';
  while (s.length < n) s += Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, n);
};
export const clientName = (i) => 'c' + (i * 2654435761 >>> 0).toString(16).padStart(8, '0') + 'p' + String(i).padStart(4, '0');

/**
 * Generates `rows` error rows ending at BENCH_END into `path`, unless a complete file is there.
 * Returns { path, rows, generatedNow, seconds }.
 */
export function ensureBenchDb(path, rows = 10_000_000, log = console.log) {
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true });
    const done = db.prepare("SELECT value FROM bench_meta WHERE key = 'rows'").pluck().get();
    db.close();
    if (Number(done) === rows) return { path, rows, generatedNow: false, seconds: 0 };
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = path + '.partial';
  rmSync(tmp, { force: true });
  const t0 = performance.now();
  const db = new Database(tmp);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -2000000');
  db.pragma('temp_store = MEMORY');
  for (const m of MIGRATIONS) db.exec(m);
  const deferred = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all();
  for (const d of deferred) db.exec(`DROP INDEX ${d.name}`);
  const indexes = deferred.map((d) => d.sql);
  db.exec('CREATE TABLE bench_meta (key TEXT PRIMARY KEY, value TEXT)');
  const keys = new Map();
  const keyOf = (service, protocol, rpc_method, skill, code, violations) => {
    const id = [service, protocol, rpc_method, skill, code, violations].join('\u0000');
    let k = keys.get(id);
    if (k === undefined) {
      k = issueKey({ service, protocol, rpc_method, skill, code, violations: JSON.parse(violations), conformance: [] });
      keys.set(id, k);
    }
    return k;
  };

  const insert = db.prepare(
    `INSERT INTO error_events (error_id, occurred_at, trace_id, span_id, upstream_trace_id, service, protocol,
      protocol_version, rpc_method, skill, code, legacy_error, jsonrpc_code, http_status, retryable, retry_after_ms,
      client, fingerprint, idempotency, subject, attempt, retry_flags, violations, conformance, duration_ms, key_id, issue_key)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const insertTraffic = db.prepare(
    'INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES (?,?,?,?,?,?,?)',
  );
  const r = prng(12345);
  const start = BENCH_END - BENCH_DAYS * DAY;
  const step = (BENCH_DAYS * DAY) / rows;
  let traffic = new Map();
  let trafficMinute = -1;
  const flushTraffic = () => {
    for (const [key, t] of traffic) {
      const [service, skill, client] = key.split('\u0000');
      // errors are ~4 % of a healthy client's calls; retries ~2 % of calls besides the error retries
      const requests = t.stormy ? t.errors + 2 : t.errors * 25;
      const retries = t.stormy ? t.retries : t.retries + Math.floor(requests * 0.02);
      insertTraffic.run(trafficMinute, service, skill, client, requests, t.errors, retries);
    }
    traffic = new Map();
  };
  let last = null; // previous row of a retry chain
  const batch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const at = Math.floor(start + i * step);
      const minute = at - (at % MINUTE);
      if (minute !== trafficMinute) {
        if (trafficMinute >= 0) flushTraffic();
        trafficMinute = minute;
      }
      // Storm: the first 15 minutes of every 6th hour, one client hammers one call.
      const hourIndex = Math.floor((at - start) / 3_600_000);
      const inStorm = hourIndex % 6 === 0 && (at - start) % 3_600_000 < 15 * MINUTE && r() < 0.5;
      let protocol, skill, code, retryable, jsonrpc, http, client, attempt, flags, retryAfter, trace, fingerprint;
      if (inStorm) {
        const stormClient = (hourIndex * 7) % CLIENTS;
        const nonRetryable = hourIndex % 12 === 0;
        protocol = 'aap';
        skill = nonRetryable ? 'lead.submit' : 'inventory.search';
        code = nonRetryable ? 'SCHEMA_VALIDATION_FAILED' : 'RATE_LIMITED';
        retryable = nonRetryable ? 0 : 1;
        jsonrpc = nonRetryable ? -32602 : -32000;
        http = 200;
        client = clientName(stormClient);
        retryAfter = nonRetryable ? null : 30_000;
        const same = last && last.client === client && last.attempt < 5;
        attempt = same ? last.attempt + 1 : 1;
        fingerprint = same ? last.fingerprint : 'f' + hex(r, 21);
        trace = same && r() < 0.3 ? last.trace : hex(r, 32);
        flags = attempt === 1 ? '[]' : nonRetryable ? '["retried_non_retryable","no_backoff"]' : '["ignored_retry_after","no_backoff"]';
        last = { client, attempt, fingerprint, trace };
      } else {
        const p = r();
        protocol = p < 0.6 ? 'aap' : p < 0.7 ? 'a2a' : p < 0.95 ? 'dmc12' : 'jsonrpc';
        const table = protocol === 'aap' ? AAP_CODES : protocol === 'a2a' ? A2A_CODES : protocol === 'dmc12' ? DMC_CODES : JSONRPC_CODES;
        [code, retryable, jsonrpc, http] = pickWeighted(r(), table);
        skill = protocol === 'dmc12' ? pickWeighted(r(), DMC_TOOLS) : protocol === 'jsonrpc' ? null : pickWeighted(r(), AAP_SKILLS);
        client = clientName(Math.floor(CLIENTS * r() ** 3));
        attempt = r() < 0.92 ? 1 : 2 + Math.floor(r() * 3);
        flags = attempt > 1 && r() < 0.02 ? (retryable ? '["no_backoff"]' : '["retried_non_retryable"]') : '[]';
        retryAfter = code === 'RATE_LIMITED' ? 1000 * (1 + Math.floor(r() * 30)) : null;
        trace = hex(r, 32);
        fingerprint = 'f' + hex(r, 21);
      }
      const service = protocol === 'dmc12' ? SERVICES[2] : SERVICES[i & 1];
      const rpcMethod = protocol === 'dmc12' ? 'tools/call' : protocol === 'jsonrpc' ? '_OTHER' : 'SendMessage';
      const idHex = Math.floor(at).toString(16).padStart(12, '0') + '7' + hex(r, 19);
      const violations = code.includes('VALIDATION') ? '[{"location":"/filters/*","keyword":"type"}]' : '[]';
      insert.run(
        'err_' + idHex,
        at,
        trace,
        hex(r, 16),
        protocol === 'dmc12' ? 'trc_' + hex(r, 24) : null,
        service,
        protocol,
        protocol === 'aap' ? '2.0' : protocol === 'a2a' ? '1.0' : protocol === 'dmc12' ? 'v0.3' : '2.0',
        rpcMethod,
        skill,
        code,
        protocol === 'dmc12' && !code.startsWith('-') ? code.toLowerCase() : null,
        jsonrpc,
        http,
        retryable,
        retryAfter,
        client,
        fingerprint,
        skill === 'lead.submit' || skill === 'create_reservation' ? 'i' + hex(r, 21) : null,
        skill === 'lead.submit' ? 's' + hex(r, 21) : null,
        attempt,
        flags,
        violations,
        '[]',
        Math.round(r() * 4000) / 100,
        'k1',
        keyOf(service, protocol, rpcMethod, skill, code, violations),
      );
      const tkey = service + '\u0000' + (skill ?? '') + '\u0000' + client;
      const t = traffic.get(tkey) ?? { errors: 0, retries: 0, stormy: false };
      t.errors += 1;
      if (attempt > 1) t.retries += 1;
      if (inStorm) t.stormy = true;
      traffic.set(tkey, t);
    }
  });
  const chunk = 100_000;
  for (let from = 0; from < rows; from += chunk) {
    batch(from, Math.min(rows, from + chunk));
    if ((from / chunk) % 10 === 9) log(`  ${((from + chunk) / 1e6).toFixed(1)} M rows, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  db.transaction(flushTraffic)();
  log(`  rows in, building ${indexes.length} indexes and the issue summary…`);
  for (const s of indexes) db.exec(s);
  rebuildIssueHours(db);
  db.pragma(`user_version = ${MIGRATIONS.length}`);
  db.prepare("INSERT INTO bench_meta (key, value) VALUES ('rows', ?), ('end', ?)").run(String(rows), String(BENCH_END));
  db.close();
  renameSync(tmp, path);
  return { path, rows, generatedNow: true, seconds: (performance.now() - t0) / 1000 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = Number(process.argv[2] ?? 10_000_000);
  const here = dirname(fileURLToPath(import.meta.url));
  const path = resolve(process.argv[3] ?? `${here}/results/triage-${rows >= 1e6 ? rows / 1e6 + 'm' : rows}.db`);
  const res = ensureBenchDb(path, rows);
  console.log(JSON.stringify(res));
}
