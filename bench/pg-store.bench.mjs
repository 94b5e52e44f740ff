// PostgreSQL audit store: write throughput of four writer processes, and triage latency vs SQLite (issue #19).
//
// Run:  npm run bench -- pg-store [write|read|all] [rows per writer=50000] [read rows=1000000] [read rounds=3]
//       (or after `npm run build`: node bench/pg-store.bench.mjs all 50000 1000000)
//       The issue's figures: `npm run bench -- pg-store all 25000 10000000`.
// Needs PostgreSQL at AAP_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres, the
// maintenance database; the benchmark creates and drops its own databases there).
//
// write: four processes (bench/pg-writer-child.mjs) each write the same deterministic rows into
//   one fresh store, (a) through openAuditSink — bounded queue, worker thread, 1000-row batches,
//   one transaction each — and (b) as plain multi-row INSERTs of the same rows from the same four
//   processes, one 1000-row statement at a time (the ceiling). Sustained rows/s = all rows ÷ the
//   wall time until the last process has committed its last row. Five plain/sink pairs, the order
//   alternating; the figure is the median of the per-pair sink/plain ratios.
// read: the data set of bench/pg-store-data.mjs (N rows over 30 days, 12 services, 5 000 clients,
//   a storm every 6 h), built set-based for this run in a SQLite file in a temporary folder and in
//   a PostgreSQL database aap_bench_read_<pid>, side by side (10 M rows: 13–17 min at load ~12), both
//   removed at the end (also on SIGINT / SIGTERM); the PostgreSQL store's indexes are checked
//   against a freshly migrated store's. Then search / show / trace / storms / stats / issues
//   through the same triage functions and the one store interface, in-process, median of several
//   runs, and a check that both stores gave the same answers; in rounds, each with its own readers
//   and its own 31 ids for show (rows no earlier round read), the store read first alternating;
//   the figure is the median of the rounds' medians.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStoreReader } from '../dist/audit/store.js';
import { ensurePartitions, migratePg, PG_MIGRATIONS } from '../dist/audit/pg/schema.js';
import { computeStats, findStorms, getError, getTrace, listIssues, searchErrors } from '../dist/triage/index.js';
import { buildPg, DATA_DAYS, dataDays, issueCount } from './pg-store-data.mjs';
import { BENCH_END } from './triage-generate.mjs';
import { fmt, median, time } from './timing.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ADMIN = process.env.AAP_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const [part = 'all', perWriterArg = '50000', readRowsArg = '1000000', readRoundsArg = '3'] = process.argv.slice(2);
const WRITERS = 4;
/** Plain/sink pairs of the write part (issue 31: a median of at least five rounds). */
const WRITE_PAIRS = 5;
const perWriter = Number(perWriterArg);
const readRows = Number(readRowsArg);
/** Rounds of the read part (issue 31: one round's medians moved ±30 % between runs here). */
const READ_ROUNDS = Number(readRoundsArg);
if (!Number.isInteger(READ_ROUNDS) || READ_ROUNDS < 1) {
  console.error(`pg-store: read rounds must be a whole number of at least 1, not ${readRoundsArg}`);
  process.exit(2);
}

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

/** Every index of the schema as (table, name, definition), the partitions' included, sorted: to compare two stores. */
async function indexList(c) {
  const r = await c.query("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2");
  return r.rows.map((x) => `${x.tablename} ${x.indexname} ${x.indexdef}`);
}

/** Throws unless the store behind `c` has the indexes a fresh migrated store with the same partitions has. */
async function checkIndexes(c) {
  const scratch = `aap_bench_schema_${process.pid}`;
  await admin(`CREATE DATABASE ${scratch}`);
  try {
    const s = new pg.Client({ connectionString: urlOf(scratch) });
    await s.connect();
    await migratePg(s, PG_MIGRATIONS);
    await ensurePartitions(s, dataDays(), new Set());
    const want = await indexList(s);
    await s.end();
    const got = await indexList(c);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      throw new Error(`the generated store's indexes differ from the migrations':\n- ${want.filter((x) => !got.includes(x)).join('\n- ')}\n+ ${got.filter((x) => !want.includes(x)).join('\n+ ')}`);
    }
    return got.length;
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
}

/** Builds the SQLite store at `path` in a child process (bench/pg-store-data.mjs sqlite), progress to stderr. */
function buildSqliteChild(path, rows) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [resolve(here, 'pg-store-data.mjs'), 'sqlite', path, String(rows)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolvePromise(JSON.parse(out.trim())) : reject(new Error(`the SQLite data set's builder exited ${code}`))));
  });
}

const stepsText = (r) => Object.entries(r.steps).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ');

if (part === 'read' || part === 'all') {
  // Both data sets are built for this run, side by side, and removed at its end (issue 31).
  const dir = mkdtempSync(join(tmpdir(), 'aap-pg-store-bench-'));
  const sqlitePath = join(dir, 'audit.db');
  const dbName = `aap_bench_read_${process.pid}`;
  const cleanup = async () => {
    rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  };
  const onSignal = (signal) => void cleanup().finally(() => process.kill(process.pid, signal));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await admin(`CREATE DATABASE ${dbName}`);
    const pgUrl = urlOf(dbName);
    console.log(`\nread: ${readRows.toLocaleString('en')} rows over ${DATA_DAYS} days, ${issueCount()} issue keys; building both stores (load ${loadavg().map((x) => x.toFixed(1)).join(' ')})…`);
    const pc = new pg.Client({ connectionString: pgUrl });
    // The cleanup's DROP … WITH (FORCE) ends this connection when a build step failed.
    pc.on('error', () => undefined);
    await pc.connect();
    const progress = (line) => console.log(`  ${line}`);
    const [lite, pgBuilt] = await Promise.all([buildSqliteChild(sqlitePath, readRows), buildPg(pc, readRows, progress)]);
    const indexes = await checkIndexes(pc);
    await pc.end();
    const pgSize = Number((await admin(`SELECT pg_database_size('${dbName}') AS n`)).rows[0].n);
    console.log(`SQLite built in ${lite.seconds.toFixed(0)} s (${stepsText(lite)}; ${(statSync(sqlitePath).size / 2 ** 30).toFixed(2)} GiB)`);
    console.log(`PostgreSQL built in ${pgBuilt.seconds.toFixed(0)} s (${stepsText(pgBuilt)}; ${indexes} indexes, same as the migrations'; ${(pgSize / 2 ** 30).toFixed(2)} GiB)`);
    await readPart(sqlitePath, pgUrl);
  } catch (error) {
    process.exitCode = 1;
    console.error(`pg-store read: ${error.stack ?? error}`);
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function readPart(sqlitePath, pgUrl) {
  console.log(`load average before the reads: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const now = BENCH_END;
  const day = { since: now - 86_400_000, until: now + 1 };
  const raw = new Database(sqlitePath, { readonly: true });
  const pickAt = raw.prepare('SELECT error_id, trace_id, upstream_trace_id FROM error_events WHERE occurred_at >= ? ORDER BY occurred_at LIMIT 1');
  // Each round its own 31 ids (rows no earlier round read, so their pages are first touched there)
  // and its own readers (new connections, which load each partition's catalog entries anew).
  const picksOf = (round) => {
    let seed = 7 + round;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    return Array.from({ length: 31 }, () => pickAt.get(now - 30 * 86_400_000 + Math.floor(rand() * 30 * 86_400_000)));
  };
  const picks = Array.from({ length: READ_ROUNDS }, (_, r) => picksOf(r));
  raw.close();
  // One round's median is one sample of the machine's state; the figure is the median of these.
  const medians = { sqlite: {}, postgres: {} };
  for (let round = 0; round < READ_ROUNDS; round++) {
    const table = {};
    // The store read first alternates, so the machine's drift and the OS cache hit both alike.
    const stores = [
      ['sqlite', sqlitePath],
      ['postgres', pgUrl],
    ];
    for (const [store, target] of round % 2 ? stores.reverse() : stores) {
      const db = await openStoreReader(target);
      const r = {};
      const ids = picks[round];
      r.search = await time(() => searchErrors(db, 'code:RATE_LIMITED since:1h', day, { now, limit: 50 }), 31);
      const shown = [];
      const traced = [];
      r.show = await time(async (i) => (shown[i] = await getError(db, ids[i].error_id)), 31);
      // The same ids again: their pages now in the store's cache (PostgreSQL's shared buffers, 128 MB
      // by default, copy each page from the OS cache on first touch; SQLite reads the OS cache).
      r.showAgain = await time((i) => getError(db, ids[i].error_id), 31);
      r.trace = await time(async (i) => (traced[i] = await getTrace(db, ids[i].upstream_trace_id ?? ids[i].trace_id)), 31);
      r.storms = await time(() => findStorms(db, day), 5);
      r.stats = await time(() => computeStats(db, null, day, { now }), 5);
      // `aap-triage issues --since 24h` at half past an hour (SQLite: summary + edge rows).
      r.issues = await time(() => listIssues(db, { window: { since: now - 1_800_000 - 86_400_000, until: now - 1_800_000 }, now: now - 1_800_000 }), 5);
      table[store] = { ...r, shown, traced };
      for (const [k, v] of Object.entries(r)) (medians[store][k] ??= []).push(v.median);
      if (round === 0) {
        console.log(
          `  ${store}: first page ${r.search.last.rows.length} of ${r.search.last.total}; ${r.storms.last.length} storms in 24 h; stats ${r.stats.last.errors} errors; ` +
            `${r.issues.last.total} issues (${r.issues.last.source}), ${r.issues.last.issues.reduce((a, i) => a + i.count, 0)} errors`,
        );
      }
      await db.close();
    }
    // Same answers: every show and trace, the last result of the other questions, `source` of
    // issues aside (how, not what).
    const answer = (r) => ({
      search: r.search.last,
      show: r.shown,
      trace: r.traced,
      storms: r.storms.last,
      stats: r.stats.last,
      issues: { ...r.issues.last, source: undefined },
    });
    const a = answer(table.sqlite);
    const b = answer(table.postgres);
    const differ = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    console.log(`  round ${round + 1}: ${differ.length ? `ANSWERS DIFFER: ${differ.join(', ')}` : 'same answers on both stores (search, show, trace, storms, stats, issues)'}`);
  }
  console.log(`load average after the reads: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`\nin-process, median of ${READ_ROUNDS} rounds' medians (lowest–highest round), each round its own readers and ids:`);
  console.log(`${''.padEnd(36)}${'SQLite'.padStart(30)}${'PostgreSQL'.padStart(30)}`);
  for (const [label, key] of [
    ['search code:RATE_LIMITED since:1h', 'search'],
    ['show <id> (31 ids over 30 days)', 'show'],
    ['show <id> (the same ids again)', 'showAgain'],
    ['trace <id>', 'trace'],
    ['storms --since 24h', 'storms'],
    ['stats --since 24h', 'stats'],
    ['issues --since 24h (at half past)', 'issues'],
  ]) {
    const cell = (xs) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`.padStart(30);
    console.log(`${label.padEnd(36)}${cell(medians.sqlite[key])}${cell(medians.postgres[key])}`);
  }
}
