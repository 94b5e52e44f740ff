// PostgreSQL audit store: write throughput of four writer processes, and triage latency vs SQLite (issue #19).
//
// Run:  npm run bench -- pg-store [write|read|all] [rows per writer=50000] [read rows=1000000]
//       (or after `npm run build`: node bench/pg-store.bench.mjs all 50000 1000000)
//       The issue's figures: `npm run bench -- pg-store all 25000 10000000` (first run: the SQLite
//       data set ≈ 6 min, 7.2 GiB; the PostgreSQL copy ≈ 5 min, 7.8 GiB; both kept for reuse).
// Needs PostgreSQL at AAP_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres, the
// maintenance database; the benchmark creates and drops its own databases there).
//
// write: four processes (bench/pg-writer-child.mjs) each write the same deterministic rows into
//   one fresh store, (a) through openAuditSink — bounded queue, worker thread, 1000-row batches,
//   one transaction each — and (b) as plain multi-row INSERTs of the same rows from the same four
//   processes, one 1000-row statement at a time (the ceiling). Sustained rows/s = all rows ÷ the
//   wall time until the last process has committed its last row. Five plain/sink pairs, the order
//   alternating; the figure is the median of the per-pair sink/plain ratios.
// read: the data set of bench/triage-generate.mjs (N rows over 30 days, 300 clients, a storm
//   every 6 h) in SQLite (bench/results/triage-<n>.db) and copied into PostgreSQL (database
//   aap_bench_<n>, kept for the next run; loaded by COPY with the secondary indexes built
//   afterwards, see ensurePgCopy); then search / show / trace / storms / stats / issues through
//   the same triage functions and the one store interface, in-process, median of several runs,
//   and a check that both stores gave the same answers.
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { migrateAuditStore, openStoreReader } from '../dist/audit/store.js';
import { ensurePartitions, migratePg, PG_MIGRATIONS } from '../dist/audit/pg/schema.js';
import { rebuildPgIssueHours } from '../dist/audit/pg/issue-hours.js';
import { ERROR_EVENT_COLUMNS } from '../dist/audit/schema.js';
import { computeStats, findStorms, getError, getTrace, listIssues, searchErrors } from '../dist/triage/index.js';
import { BENCH_END, ensureBenchDb } from './triage-generate.mjs';
import { fmt, median, time } from './timing.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ADMIN = process.env.AAP_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const [part = 'all', perWriterArg = '50000', readRowsArg = '1000000'] = process.argv.slice(2);
const WRITERS = 4;
/** Plain/sink pairs of the write part (issue 31: a median of at least five rounds). */
const WRITE_PAIRS = 5;
const perWriter = Number(perWriterArg);
const readRows = Number(readRowsArg);

const urlOf = (name) => {
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
};
async function admin(sql) {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

const version = (await admin('SHOW server_version')).rows[0].server_version;
console.log(`pg-store: Node ${process.version}, PostgreSQL ${version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (shared; no core pinning)`);

function runChild(mode, url, writer) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [resolve(here, 'pg-writer-child.mjs'), mode, url, String(writer), String(perWriter)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolvePromise(JSON.parse(out.trim())) : reject(new Error(`${mode} writer ${writer} exited ${code}: ${err}`))));
  });
}

async function writeRound(mode) {
  const name = `aap_bench_write_${process.pid}`;
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = urlOf(name);
  // Same schema and partitions for both rounds, made before the clock starts.
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await migratePg(c, PG_MIGRATIONS);
  await ensurePartitions(c, [Date.UTC(2026, 11, 1, 12, 0, 0)], new Set());
  const t = performance.now();
  const results = await Promise.all(Array.from({ length: WRITERS }, (_, w) => runChild(mode, url, w)));
  const wall = performance.now() - t;
  const stored = Number((await c.query('SELECT count(*) AS n FROM error_events')).rows[0].n);
  await c.end();
  await admin(`DROP DATABASE ${name} WITH (FORCE)`);
  return { wall, stored, results };
}

if (part === 'write' || part === 'all') {
  console.log(`\nwrite: ${WRITERS} processes × ${perWriter.toLocaleString('en')} rows into one store (wall time includes process start-up, ~0.1 s)`);
  const rounds = {};
  // Five pairs, the order alternating (plain/sink, sink/plain, …) so the machine's drift hits both;
  // the figure is the median of the five per-pair ratios (issue 31: ±27 % between rounds here).
  const order = Array.from({ length: WRITE_PAIRS }, (_, i) => (i % 2 === 0 ? ['plain', 'sink'] : ['sink', 'plain'])).flat();
  for (const mode of order) {
    const r = await writeRound(mode);
    const total = WRITERS * perWriter;
    if (r.stored !== total) throw new Error(`${mode}: ${r.stored} rows stored, expected ${total}`);
    const dropped = r.results.reduce((a, x) => a + (x.health?.dropped ?? 0) + (x.health?.failed ?? 0), 0);
    (rounds[mode] ??= []).push(total / (r.wall / 1000));
    console.log(`  ${mode.padEnd(5)} ${(total / (r.wall / 1000)).toFixed(0).padStart(7)} rows/s  (${fmt(r.wall)}; stored ${r.stored.toLocaleString('en')}${mode === 'sink' ? `, dropped+failed ${dropped}` : ''})`);
  }
  const ratios = rounds.sink.map((x, i) => x / rounds.plain[i]);
  console.log(
    `  median of ${WRITE_PAIRS} pairs: sink ${median(rounds.sink).toFixed(0)} rows/s, plain INSERT ceiling ${median(rounds.plain).toFixed(0)} rows/s; ` +
      `sink/plain per pair: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)} … ${Math.max(...ratios).toFixed(2)})`,
  );
}

/** One value in COPY's text format: `\\N` for NULL; backslash, tab, newline and CR escaped. */
const copyValue = (v) => (v === null || v === undefined ? '\\N' : typeof v === 'string' ? v.replace(/[\\\t\n\r]/g, (ch) => COPY_ESCAPES[ch]) : String(v));
const COPY_ESCAPES = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** COPY every row of `iterator` (objects with `columns`) into `table`, 2 000 rows per chunk. */
async function copyRows(c, table, columns, iterator) {
  const source = Readable.from(
    (function* () {
      let lines = [];
      for (const r of iterator) {
        lines.push(columns.map((col) => copyValue(r[col])).join('\t'));
        if (lines.length === 2000) {
          yield lines.join('\n') + '\n';
          lines = [];
        }
      }
      if (lines.length) yield lines.join('\n') + '\n';
    })(),
  );
  await pipeline(source, c.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)));
}

/** Every index of the schema as (table, name, definition), the partitions' included, sorted: to compare two stores. */
async function indexList(c) {
  const r = await c.query("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2");
  return r.rows.map((x) => `${x.tablename} ${x.indexname} ${x.indexdef}`);
}

/** The UTC day starts (epoch ms) from the day of `lo` to the day of `hi`. */
const daysOf = (lo, hi) => {
  const out = [];
  for (let d = Math.floor(lo / 86_400_000) * 86_400_000; d <= hi; d += 86_400_000) out.push(d);
  return out;
};

/**
 * Copies the SQLite bench store into PostgreSQL database `name` (once: reused when complete).
 * Fast path, same result as a store the writers filled: the store's own migrations and day
 * partitions, then its secondary indexes dropped, the rows in by COPY (primary keys live), the
 * indexes rebuilt from their own definitions, VACUUM ANALYZE. The index list is then compared
 * with a fresh migrated store holding the same partitions (throws when they differ). The PG
 * schema keeps no issue summary (migration 4: issue_hours is not filled on PostgreSQL), so
 * there is nothing more to build.
 */
async function ensurePgCopy(sqlitePath, rows, name) {
  const exists = (await admin(`SELECT 1 FROM pg_database WHERE datname = '${name}'`)).rowCount > 0;
  const url = urlOf(name);
  if (exists) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const done = await c.query("SELECT to_regclass('bench_meta') IS NOT NULL AS ok").then((r) => r.rows[0].ok && c.query('SELECT value FROM bench_meta').then((m) => Number(m.rows[0]?.value)));
    await c.end();
    if (done === rows) return { url, seconds: 0, steps: null };
    await admin(`DROP DATABASE ${name} WITH (FORCE)`);
  }
  await admin(`CREATE DATABASE ${name}`);
  const t = performance.now();
  const steps = {};
  const step = (label, t0) => (steps[label] = (performance.now() - t0) / 1000);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await migratePg(c, PG_MIGRATIONS);
  const src = new Database(sqlitePath, { readonly: true });
  const { lo, hi } = src.prepare('SELECT min(occurred_at) AS lo, max(occurred_at) AS hi FROM error_events').get();
  const days = daysOf(lo, hi);
  await ensurePartitions(c, days, new Set());
  const secondary = (
    await c.query(
      `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid = 'error_events'::regclass AND NOT x.indisprimary ORDER BY 1`,
    )
  ).rows;
  for (const ix of secondary) await c.query(`DROP INDEX ${ix.name}`);
  let t0 = performance.now();
  await copyRows(c, 'error_events', ERROR_EVENT_COLUMNS, src.prepare(`SELECT ${ERROR_EVENT_COLUMNS.join(', ')} FROM error_events`).iterate());
  step('copy error_events', t0);
  t0 = performance.now();
  const trafficCols = ['minute', 'service', 'skill', 'client', 'requests', 'errors', 'retries'];
  await copyRows(c, 'traffic', trafficCols, src.prepare(`SELECT ${trafficCols.join(', ')} FROM traffic`).iterate());
  step('copy traffic', t0);
  src.close();
  t0 = performance.now();
  await c.query("SET maintenance_work_mem = '512MB'");
  // pg_get_indexdef gives a partitioned index as `ON ONLY error_events` (the parent alone):
  // without ONLY it is built on every partition, as the migration's CREATE INDEX did.
  for (const ix of secondary) await c.query(ix.def.replace(' ON ONLY ', ' ON '));
  step(`build ${secondary.length} indexes`, t0);
  // COPY bypasses the writer, which keeps the hourly issue summary per batch: build it as
  // migration 5's backfill does (issue 31).
  t0 = performance.now();
  await rebuildPgIssueHours(c);
  step('issue summary', t0);
  t0 = performance.now();
  await c.query('VACUUM (ANALYZE)');
  step('VACUUM ANALYZE', t0);
  // Same indexes as the store's own migrations give, partitions included.
  const scratch = `aap_bench_schema_${process.pid}`;
  await admin(`CREATE DATABASE ${scratch}`);
  const s = new pg.Client({ connectionString: urlOf(scratch) });
  await s.connect();
  await migratePg(s, PG_MIGRATIONS);
  await ensurePartitions(s, days, new Set());
  const want = await indexList(s);
  await s.end();
  await admin(`DROP DATABASE ${scratch} WITH (FORCE)`);
  const got = await indexList(c);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`the loaded store's indexes differ from the migrations':\n- ${want.filter((x) => !got.includes(x)).join('\n- ')}\n+ ${got.filter((x) => !want.includes(x)).join('\n+ ')}`);
  }
  await c.query('CREATE TABLE bench_meta (value TEXT)');
  await c.query('INSERT INTO bench_meta VALUES ($1)', [String(rows)]);
  await c.end();
  return { url, seconds: (performance.now() - t) / 1000, steps, indexes: got.length };
}

if (part === 'read' || part === 'all') {
  const tag = readRows >= 1e6 ? `${readRows / 1e6}m` : String(readRows);
  const sqlitePath = resolve(here, 'results', `triage-${tag}.db`);
  const gen = ensureBenchDb(sqlitePath, readRows, () => undefined);
  console.log(`\nread: ${readRows.toLocaleString('en')} rows over 30 days; SQLite ${gen.generatedNow ? `generated in ${gen.seconds.toFixed(0)} s` : 'reused'} (${sqlitePath})`);
  const copy = await ensurePgCopy(sqlitePath, readRows, `aap_bench_${tag}`);
  const pgSize = Number((await admin(`SELECT pg_database_size('aap_bench_${tag}') AS n`)).rows[0].n);
  const steps = copy.steps ? ` (${Object.entries(copy.steps).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')}; ${copy.indexes} indexes, same as the migrations')` : '';
  console.log(`PostgreSQL copy ${copy.seconds ? `loaded in ${copy.seconds.toFixed(0)} s${steps}` : 'reused'} (database aap_bench_${tag}, ${(pgSize / 2 ** 30).toFixed(2)} GiB; SQLite file ${(statSync(sqlitePath).size / 2 ** 30).toFixed(2)} GiB)`);
  console.log(`load average before the reads: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const now = BENCH_END;
  const day = { since: now - 86_400_000, until: now + 1 };
  const raw = new Database(sqlitePath, { readonly: true });
  const pickAt = raw.prepare('SELECT error_id, trace_id, upstream_trace_id FROM error_events WHERE occurred_at >= ? ORDER BY occurred_at LIMIT 1');
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const picks = Array.from({ length: 31 }, () => pickAt.get(now - 30 * 86_400_000 + Math.floor(rand() * 30 * 86_400_000)));
  raw.close();
  // A copy made by an older build has an older schema, which readers refuse: upgrade both first.
  for (const target of [sqlitePath, copy.url]) await migrateAuditStore(target);
  // A copy kept from before the PostgreSQL writer kept the issue summary (migration 5 ran on it
  // after its rows were loaded by COPY, so the backfill is there; a copy made between may lack it).
  {
    const c = new pg.Client({ connectionString: copy.url });
    await c.connect();
    if (Number((await c.query('SELECT count(*) AS n FROM issue_hours')).rows[0].n) === 0) await rebuildPgIssueHours(c);
    await c.end();
  }
  const table = {};
  for (const [store, target] of [
    ['sqlite', sqlitePath],
    ['postgres', copy.url],
  ]) {
    const db = await openStoreReader(target);
    const r = {};
    r.search = await time(() => searchErrors(db, 'code:RATE_LIMITED since:1h', day, { now, limit: 50 }), 31);
    r.show = await time((i) => getError(db, picks[i].error_id), 31);
    r.trace = await time((i) => getTrace(db, picks[i].upstream_trace_id ?? picks[i].trace_id), 31);
    r.storms = await time(() => findStorms(db, day), 5);
    r.stats = await time(() => computeStats(db, null, day, { now }), 5);
    // `aap-triage issues --since 24h` at half past an hour (SQLite: summary + edge rows).
    r.issues = await time(() => listIssues(db, { window: { since: now - 1_800_000 - 86_400_000, until: now - 1_800_000 }, now: now - 1_800_000 }), 5);
    table[store] = r;
    console.log(
      `  ${store}: first page ${r.search.last.rows.length} of ${r.search.last.total}; ${r.storms.last.length} storms in 24 h; stats ${r.stats.last.errors} errors; ` +
        `${r.issues.last.total} issues (${r.issues.last.source}), ${r.issues.last.issues.reduce((a, i) => a + i.count, 0)} errors`,
    );
    await db.close();
  }
  // Same answers: the last result of each question, `source` of issues aside (how, not what).
  const answer = (r) => ({
    search: r.search.last,
    show: r.show.last,
    trace: r.trace.last,
    storms: r.storms.last,
    stats: r.stats.last,
    issues: { ...r.issues.last, source: undefined },
  });
  const a = answer(table.sqlite);
  const b = answer(table.postgres);
  const differ = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  console.log(differ.length ? `  ANSWERS DIFFER: ${differ.join(', ')}` : '  same answers on both stores (search, show, trace, storms, stats, issues)');
  console.log(`load average after the reads: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('\nin-process median (min–max, n), same triage functions over the one store interface:');
  console.log(`${''.padEnd(36)}${'SQLite'.padStart(30)}${'PostgreSQL'.padStart(30)}`);
  for (const [label, key] of [
    ['search code:RATE_LIMITED since:1h', 'search'],
    ['show <id>', 'show'],
    ['trace <id>', 'trace'],
    ['storms --since 24h', 'storms'],
    ['stats --since 24h', 'stats'],
    ['issues --since 24h (at half past)', 'issues'],
  ]) {
    const cell = (x) => `${fmt(x.median)} (${fmt(x.min)}–${fmt(x.max)})`.padStart(30);
    console.log(`${label.padEnd(36)}${cell(table.sqlite[key])}${cell(table.postgres[key])}`);
  }
}
