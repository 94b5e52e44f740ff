#!/usr/bin/env node
// Audit writer throughput vs its ceiling (issue #4 "Benchmark"), in one run:
//   ceiling: raw better-sqlite3 on the main thread, the same rows inserted with the same
//            prepared statement, schema, indexes and pragmas, in BEGIN IMMEDIATE batches of
//            the writer's batchSize (rows pre-converted, so only SQLite is timed);
//   writer:  openAuditSink() with its defaults, fed as fast as its bounded queue accepts,
//            timed from the first write() to flush() resolving (every row committed).
// Each trial uses a fresh database file; trials alternate (ceiling, writer, …) and the
// medians are reported. Imports dist/: run it as
//   npm run build && node bench/audit-writer.bench.mjs [rows=200000] [trials=3]
// The database files go to the OS temp folder (TMPDIR); say which disk it is when recording.
// Record the printed figures in docs/benchmarks.md ("audit writer").
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_SINK_DEFAULTS, ERROR_EVENT_COLUMNS, migrate, openAuditSink } from '../dist/audit/index.js';
import { eventToRow } from '../dist/audit/row.js';

const ROWS = Number(process.argv[2] ?? 200_000);
const TRIALS = Number(process.argv[3] ?? 3);
const BATCH = AUDIT_SINK_DEFAULTS.batchSize;
const CODES = ['RATE_LIMITED', 'SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND', 'INTERNAL_ERROR', 'QUOTE_EXPIRED'];
const SKILLS = ['inventory.search', 'inventory.vehicle', 'lead.submit', 'create_reservation', 'initiate_deal_handoff'];

function makeEvents(n) {
  const start = Date.now() - n;
  const events = new Array(n);
  for (let i = 0; i < n; i++) {
    events[i] = {
      error_id: `err_${uuidv7().replaceAll('-', '')}`,
      occurred_at: start + i,
      trace_id: (i * 2654435761).toString(16).padStart(32, '0').slice(-32),
      span_id: (i * 40503).toString(16).padStart(16, '0').slice(-16),
      upstream_trace_id: i % 4 === 0 ? `trc_${i.toString(36)}` : null,
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

function freshFile() {
  const dir = mkdtempSync(join(tmpdir(), 'aap-bench-audit-'));
  return { path: join(dir, 'audit.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function ceiling(rows) {
  const { path, cleanup } = freshFile();
  const db = new Database(path, { timeout: AUDIT_SINK_DEFAULTS.busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`journal_size_limit = ${AUDIT_SINK_DEFAULTS.journalSizeLimitBytes}`);
  migrate(db);
  const insert = db.prepare(
    `INSERT INTO error_events (${ERROR_EVENT_COLUMNS.join(', ')}) VALUES (${ERROR_EVENT_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (error_id) DO NOTHING`,
  );
  const batch = db.transaction((slice) => {
    for (const row of slice) insert.run(row);
  });
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) batch.immediate(rows.slice(i, i + BATCH));
  const ms = performance.now() - t0;
  const stored = db.prepare('SELECT count(*) AS n FROM error_events').get().n;
  db.close();
  cleanup();
  if (stored !== rows.length) throw new Error(`ceiling stored ${stored} of ${rows.length}`);
  return { ms, rowsPerSec: rows.length / (ms / 1000) };
}

async function writer(events) {
  const { path, cleanup } = freshFile();
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
  const db = new Database(path, { readonly: true });
  const stored = db.prepare('SELECT count(*) AS n FROM error_events').get().n;
  db.close();
  cleanup();
  if (stored !== events.length || health.dropped !== 0) throw new Error(`writer stored ${stored} of ${events.length}, dropped ${health.dropped}`);
  return { ms, rowsPerSec: events.length / (ms / 1000), writeUsPerRow: (writeMs * 1000) / events.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const events = makeEvents(ROWS);
const rows = events.map((e) => eventToRow(e, undefined));
const c = [];
const w = [];
for (let t = 0; t < TRIALS; t++) {
  c.push(ceiling(rows));
  w.push(await writer(events));
}
const ceilingRate = median(c.map((r) => r.rowsPerSec));
const writerRate = median(w.map((r) => r.rowsPerSec));
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
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
console.log(`audit writer: ${result.writerRowsPerSec} rows/s vs ceiling ${result.ceilingRowsPerSec} rows/s = ${result.ratio}, paired median ${result.pairedRatioMedian} (target ≥ 0.7; load ${result.loadAverage1m})`);
