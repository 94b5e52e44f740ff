#!/usr/bin/env node
// Audit writer throughput vs its ceiling (issues #4 and #14), on a fresh file and on stores that
// already hold 1 M and 10 M rows, in one run:
//   ceiling: raw better-sqlite3 on the main thread, the same rows inserted with the same
//            prepared statement, schema, indexes and pragmas, in BEGIN IMMEDIATE batches of
//            the writer's batchSize (rows pre-converted, so only SQLite is timed);
//   writer:  openAuditSink() with its defaults, fed as fast as its bounded queue accepts,
//            timed from the first write() to flush() resolving (every row committed).
// Trials alternate (ceiling, writer, …) and the medians are reported. Fresh: each trial its own
// file. Prefilled (--stores=1000000,…): one store per size, generated once by SQL into the temp
// folder and reused by later runs (`aap-bench-store-<rows>-v<schema>.db`; never commit it); each
// trial appends its rows to it, so the store grows by rows × 2 × trials per run (printed).
// --indexes: for each prefilled store, the write cost of each secondary index: the same rows
// inserted in one transaction that is rolled back, with all indexes, with one index dropped
// (inside the transaction) in turn, and with none; rounds alternate. Imports dist/: run it as
//   npm run build && node bench/audit-writer.bench.mjs [rows=200000] [trials=3] [--stores=0,1000000,10000000] [--indexes]
// The database files go to the OS temp folder (TMPDIR); say which disk it is when recording.
// Record the printed figures in docs/benchmarks.md ("audit writer").
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_SINK_DEFAULTS, ERROR_EVENT_COLUMNS, SCHEMA_VERSION, migrate, openAuditSink } from '../dist/audit/index.js';
import { eventToRow } from '../dist/audit/row.js';

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const ROWS = Number(args[0] ?? 200_000);
const TRIALS = Number(args[1] ?? 3);
const STORES = (flags.find((f) => f.startsWith('--stores='))?.slice('--stores='.length) ?? '0,1000000,10000000').split(',').map(Number);
const INDEXES = flags.includes('--indexes');
if (!(ROWS > 0) || !(TRIALS > 0) || STORES.some((n) => !Number.isInteger(n) || n < 0) || flags.some((f) => f !== '--indexes' && !f.startsWith('--stores='))) {
  console.error('usage: node bench/audit-writer.bench.mjs [rows=200000] [trials=3] [--stores=0,1000000,10000000] [--indexes]');
  process.exit(2);
}
const BATCH = AUDIT_SINK_DEFAULTS.batchSize;
const CODES = ['RATE_LIMITED', 'SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND', 'INTERNAL_ERROR', 'QUOTE_EXPIRED'];
const SKILLS = ['inventory.search', 'inventory.vehicle', 'lead.submit', 'create_reservation', 'initiate_deal_handoff'];
const INSERT_SQL = `INSERT INTO error_events (${ERROR_EVENT_COLUMNS.join(', ')}) VALUES (${ERROR_EVENT_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (error_id) DO NOTHING`;

/** Random lowercase hex of n digits (xorshift; trace ids are random on the wire, so in the index). */
let seed = 0x9e3779b9;
function hex(n) {
  let s = '';
  while (s.length < n) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    s += (seed >>> 0).toString(16).padStart(8, '0');
  }
  return s.slice(0, n);
}

function makeEvents(n) {
  const start = Date.now() - n;
  const events = new Array(n);
  for (let i = 0; i < n; i++) {
    events[i] = {
      error_id: `err_${uuidv7().replaceAll('-', '')}`,
      occurred_at: start + i,
      trace_id: hex(32),
      span_id: hex(16),
      upstream_trace_id: i % 4 === 0 ? `trc_${hex(16)}` : null,
      service: `dealer-${i % 3}`,
      protocol: i % 2 ? 'aap' : 'dmc12',
      protocol_version: i % 2 ? '2.0' : 'v0.3',
      rpc_method: i % 2 ? 'SendMessage' : 'tools/call',
      skill: SKILLS[i % SKILLS.length],
      code: CODES[i % CODES.length],
      legacy_error: i % 2 ? null : 'rate_limited',
      jsonrpc_code: i % 2 ? -32029 : null,
      http_status: 200,
      retryable: i % 3 === 0 ? true : i % 3 === 1 ? false : null,
      retry_after_ms: i % 5 === 0 ? 1000 : null,
      client: `c${(i % 997).toString(36).padStart(21, 'x')}`,
      fingerprint: `f${(i % 10007).toString(36).padStart(21, 'y')}`,
      idempotency: null,
      subject: i % 10 === 0 ? `s${(i % 5003).toString(36).padStart(21, 'z')}` : null,
      attempt: 1 + (i % 4 === 3 ? 1 : 0),
      retry_flags: i % 4 === 3 ? ['no_backoff'] : [],
      violations: i % 5 === 1 ? [{ location: '/params/message/parts/0/data/filters/make', keyword: 'enum' }] : [],
      conformance: [],
      duration_ms: (i % 100) / 10,
      key_id: 'ab12cd34',
    };
  }
  return events;
}

function openLikeWriter(path) {
  const db = new Database(path, { timeout: AUDIT_SINK_DEFAULTS.busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`journal_size_limit = ${AUDIT_SINK_DEFAULTS.journalSizeLimitBytes}`);
  return db;
}

/**
 * The store of `n` rows, generated once by one SQL statement (same value mix as makeEvents, 30 days
 * ending now, time-ordered `err_` + UUIDv7-shaped ids) with the indexes built after the load.
 */
function prefilledStore(n) {
  const path = join(tmpdir(), `aap-bench-store-${n}-v${SCHEMA_VERSION}.db`);
  if (existsSync(path)) return path;
  const t0 = performance.now();
  const tmp = `${path}.part`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  migrate(db);
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'error_events' AND sql IS NOT NULL").all();
  for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
  const end = Date.now() - 60_000;
  const step = (30 * 86_400_000) / n;
  const list = (xs) => `json_array(${xs.map((x) => `'${x}'`).join(', ')})`;
  db.prepare(
    `WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n - 1}),
     r(i, t) AS (SELECT i, ${end} - CAST((${n} - i) * ${step} AS INTEGER) FROM c)
     INSERT INTO error_events (${ERROR_EVENT_COLUMNS.join(', ')})
     SELECT printf('err_%012x7%03x%x%015x', t, i % 4096, 8 + (i % 4), abs(random()) % 1152921504606846976), t,
       lower(hex(randomblob(16))), lower(hex(randomblob(8))), CASE WHEN i % 4 = 0 THEN 'trc_' || lower(hex(randomblob(8))) END,
       'dealer-' || (i % 3), CASE WHEN i % 2 THEN 'aap' ELSE 'dmc12' END, CASE WHEN i % 2 THEN '2.0' ELSE 'v0.3' END,
       CASE WHEN i % 2 THEN 'SendMessage' ELSE 'tools/call' END, ${list(SKILLS)} ->> (i % 5), ${list(CODES)} ->> ((i / 5) % 5),
       CASE WHEN i % 2 THEN NULL ELSE 'rate_limited' END, CASE WHEN i % 2 THEN -32029 END, 200,
       CASE i % 3 WHEN 0 THEN 1 WHEN 1 THEN 0 END, CASE WHEN i % 5 = 0 THEN 1000 END,
       printf('c%021d', (i * 7919) % 997), printf('f%021d', i % 10007), NULL, CASE WHEN i % 10 = 0 THEN printf('s%021d', i % 5003) END,
       1 + (i % 4 = 3), CASE WHEN i % 4 = 3 THEN '["no_backoff"]' ELSE '[]' END, '[]', '[]', (i % 100) / 10.0, 'ab12cd34'${
         // Schema 3 (issue #17): an issue key per (service, protocol, skill, code), no second subject.
         ERROR_EVENT_COLUMNS.includes('issue_key') ? `, printf('%016x', ((i % 3) * 1000 + (i % 2) * 100 + (i % 5) * 10 + (i / 5) % 5) * 2654435761), NULL` : ''
       }${
         // Later schemas' columns (origin: buyer calls; service_version: three releases).
         ERROR_EVENT_COLUMNS.slice(ERROR_EVENT_COLUMNS.indexOf('subject_alt') + 1).map((c) => (c === 'service_version' ? `, '1.' || (i % 3) || '.0'` : ', NULL')).join('')
       }
     FROM r`,
  ).run();
  for (const { sql } of indexes) db.exec(sql);
  db.pragma('journal_mode = WAL');
  db.close();
  renameSync(tmp, path);
  console.log(`  generated ${path} (${n} rows, ${(statSync(path).size / 2 ** 30).toFixed(2)} GiB) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return path;
}

function freshFile() {
  const dir = mkdtempSync(join(tmpdir(), 'aap-bench-audit-'));
  return { path: join(dir, 'audit.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const countRows = (path) => {
  const db = new Database(path, { readonly: true });
  const n = db.prepare('SELECT count(*) AS n FROM error_events').get().n;
  db.close();
  return n;
};

function ceiling(path, rows) {
  const db = openLikeWriter(path);
  migrate(db);
  const before = db.prepare('SELECT count(*) AS n FROM error_events').get().n;
  const insert = db.prepare(INSERT_SQL);
  const batch = db.transaction((slice) => {
    for (const row of slice) insert.run(row);
  });
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) batch.immediate(rows.slice(i, i + BATCH));
  const ms = performance.now() - t0;
  const stored = db.prepare('SELECT count(*) AS n FROM error_events').get().n - before;
  db.close();
  if (stored !== rows.length) throw new Error(`ceiling stored ${stored} of ${rows.length}`);
  return { ms, rowsPerSec: rows.length / (ms / 1000) };
}

async function writer(path, events) {
  const before = existsSync(path) ? countRows(path) : 0;
  const sink = openAuditSink({ path, handleSignals: false, logger: { info() {}, warn() {}, error: (o, m) => console.error(m) } });
  await sink.flush(); // open + migrate outside the timed part, as for the ceiling
  const limit = AUDIT_SINK_DEFAULTS.queueLimit - BATCH;
  let writeMs = 0;
  const t0 = performance.now();
  let i = 0;
  while (i < events.length) {
    const w0 = performance.now();
    while (i < events.length && sink.health().queueSize < limit) sink.write(events[i++]);
    writeMs += performance.now() - w0;
    // Wait without spinning: a busy-waiting producer would take the core the worker needs.
    if (i < events.length) await new Promise((r) => setTimeout(r, 1));
  }
  await sink.flush();
  const ms = performance.now() - t0;
  await sink.close();
  const health = sink.health();
  const stored = countRows(path) - before;
  if (stored !== events.length || health.dropped !== 0) throw new Error(`writer stored ${stored} of ${events.length}, dropped ${health.dropped}`);
  return { ms, rowsPerSec: events.length / (ms / 1000), writeUsPerRow: (writeMs * 1000) / events.length };
}

/** µs per row of inserting `rows` in one rolled-back transaction after dropping `drop` (index names). */
function insertCost(db, rows, drop) {
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const name of drop) db.exec(`DROP INDEX ${name}`);
    const insert = db.prepare(INSERT_SQL);
    const t0 = performance.now();
    for (const row of rows) insert.run(row);
    return ((performance.now() - t0) * 1000) / rows.length;
  } finally {
    db.exec('ROLLBACK');
  }
}

function indexCosts(path, n) {
  const db = openLikeWriter(path);
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'error_events' AND sql IS NOT NULL ORDER BY name").pluck().all();
  const variants = [{ label: 'all indexes', drop: [] }, ...names.map((x) => ({ label: `without ${x}`, drop: [x] })), { label: 'primary key only', drop: names }];
  const sample = Math.min(ROWS, 50_000);
  const results = new Map(variants.map((v) => [v.label, []]));
  const rounds = Math.max(3, TRIALS);
  for (let r = 0; r < rounds; r++) {
    const rows = makeEvents(sample).map((e) => eventToRow(e, undefined));
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + r) % variants.length];
      results.get(v.label).push(insertCost(db, rows, v.drop));
    }
  }
  db.close();
  const all = median(results.get('all indexes'));
  console.log(`\n  index write cost, store of ${n.toLocaleString('en')} rows: ${sample} rows in one rolled-back transaction, median of ${rounds} alternating rounds`);
  for (const v of variants) {
    const m = median(results.get(v.label));
    console.log(`    ${v.label.padEnd(36)} ${m.toFixed(2).padStart(7)} µs/row${v.drop.length ? `   index cost ${(all - m).toFixed(2)} µs/row (${(((all - m) / all) * 100).toFixed(0)} %)` : ''}`);
  }
  return Object.fromEntries(variants.map((v) => [v.label, Number(median(results.get(v.label)).toFixed(2))]));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`# audit writer  ${new Date().toISOString()}  node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}, files in ${tmpdir()}`);
const results = [];
for (const n of STORES) {
  const store = n > 0 ? prefilledStore(n) : null;
  const holds = store ? countRows(store) : 0;
  const c = [];
  const w = [];
  for (let t = 0; t < TRIALS; t++) {
    // New ids for every trial and each side: a prefilled store keeps what each trial appended.
    const rows = makeEvents(ROWS).map((e) => eventToRow(e, undefined));
    const events = makeEvents(ROWS);
    const fc = store ? null : freshFile();
    c.push(ceiling(store ?? fc.path, rows));
    fc?.cleanup();
    const fw = store ? null : freshFile();
    w.push(await writer(store ?? fw.path, events));
    fw?.cleanup();
  }
  const ceilingRate = median(c.map((r) => r.rowsPerSec));
  const writerRate = median(w.map((r) => r.rowsPerSec));
  const result = {
    store: n === 0 ? 'fresh file per trial' : `prefilled ${n.toLocaleString('en')} rows (held ${holds.toLocaleString('en')} at the start, ${(holds + 2 * ROWS * TRIALS).toLocaleString('en')} at the end)`,
    rows: ROWS,
    trials: TRIALS,
    batchSize: BATCH,
    ceilingRowsPerSec: Math.round(ceilingRate),
    writerRowsPerSec: Math.round(writerRate),
    ratio: Number((writerRate / ceilingRate).toFixed(3)),
    // Each writer trial against the ceiling trial just before it: robust to load that drifts.
    pairedRatioMedian: Number(median(w.map((r, k) => r.rowsPerSec / c[k].rowsPerSec)).toFixed(3)),
    loadAverage1m: Number(loadavg()[0].toFixed(2)),
    writerMainThreadUsPerWrite: Number(median(w.map((r) => r.writeUsPerRow)).toFixed(2)),
    trialsCeiling: c.map((r) => Math.round(r.rowsPerSec)),
    trialsWriter: w.map((r) => Math.round(r.rowsPerSec)),
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(`audit writer, ${result.store}: ${result.writerRowsPerSec} rows/s vs ceiling ${result.ceilingRowsPerSec} rows/s = ${result.ratio}, paired median ${result.pairedRatioMedian} (target ≥ 0.7; load ${result.loadAverage1m})`);
  if (store && INDEXES) result.indexCostUsPerRow = indexCosts(store, n);
  results.push(result);
}
