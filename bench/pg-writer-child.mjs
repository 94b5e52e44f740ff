// One writer process of bench/pg-store.bench.mjs (run by it; by hand after `npm run build`):
//   node bench/pg-writer-child.mjs sink  <url> <writer> <rows>   # through openAuditSink (queue, worker, batches)
//   node bench/pg-writer-child.mjs plain <url> <writer> <rows>   # the same rows, plain multi-row INSERTs (the ceiling)
// Prints one JSON line: { mode, writer, rows, ms, health? }.
import pg from 'pg';
import { openAuditSink } from '../dist/audit/index.js';
import { ERROR_EVENT_COLUMNS } from '../dist/audit/schema.js';
import { eventToRow } from '../dist/audit/row.js';

const [mode, url, writerArg, rowsArg] = process.argv.slice(2);
const writer = Number(writerArg);
const total = Number(rowsArg);
const BATCH = 1000;
const base = Date.UTC(2026, 11, 1, 12, 0, 0);
const codes = ['RATE_LIMITED', 'SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND', 'INTERNAL_ERROR'];

/** The n-th event of this writer: time-ordered ids, a realistic mix of fields. */
function event(n) {
  return {
    error_id: `err_${(base + n).toString(16).padStart(12, '0')}7${writer.toString(16)}${n.toString(16).padStart(18, '0')}`,
    occurred_at: base + Math.floor(n / 10),
    trace_id: (n * 7919 + writer).toString(16).padStart(32, '0'),
    span_id: (n * 104729).toString(16).padStart(16, '0').slice(-16),
    upstream_trace_id: null,
    service: `bench-dealer-${writer}`,
    protocol: 'aap',
    protocol_version: '2.0',
    rpc_method: 'SendMessage',
    skill: n % 3 ? 'inventory.search' : 'lead.submit',
    code: codes[n % codes.length],
    legacy_error: null,
    jsonrpc_code: -32000,
    http_status: 200,
    retryable: n % 4 === 0,
    retry_after_ms: n % 4 === 0 ? 1000 : null,
    client: `client${(n % 50).toString().padStart(16, 'x')}`,
    fingerprint: `fp${(n % 5000).toString().padStart(20, '0')}`,
    idempotency: null,
    subject: null,
    attempt: 1 + (n % 3),
    retry_flags: n % 3 ? ['no_backoff'] : [],
    violations: [],
    conformance: [],
    duration_ms: 1.5,
    key_id: 'benchkey',
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const start = performance.now();
let health;
if (mode === 'sink') {
  const logger = { info: () => undefined, warn: (o, m) => process.stderr.write(`${m}\n`), error: (o, m) => process.stderr.write(`${m}\n`) };
  const queueLimit = 20_000;
  const sink = openAuditSink({ path: url, batchSize: BATCH, queueLimit, logger, handleSignals: false });
  let sent = 0;
  while (sent < total) {
    // Keep the queue fed without overflowing it: what the host would see at this rate.
    if (sink.health().queueSize > queueLimit - BATCH) {
      await sleep(1);
      continue;
    }
    const end = Math.min(total, sent + BATCH);
    for (; sent < end; sent++) sink.write(event(sent));
    await sleep(0);
  }
  await sink.close();
  health = sink.health();
} else {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const cols = ERROR_EVENT_COLUMNS.join(', ');
  for (let from = 0; from < total; from += BATCH) {
    const values = [];
    const tuples = [];
    for (let n = from; n < Math.min(total, from + BATCH); n++) {
      const row = eventToRow(event(n), undefined);
      tuples.push(`(${row.map((_, j) => `$${values.length + j + 1}`).join(', ')})`);
      values.push(...row);
    }
    await client.query(`INSERT INTO error_events (${cols}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, values);
  }
  await client.end();
}
process.stdout.write(`${JSON.stringify({ mode, writer, rows: total, ms: performance.now() - start, health })}\n`);
