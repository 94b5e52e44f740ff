// Triage query latency on a 10-million-row audit store over 30 days (issue 5 "Benchmark").
//
// Run:  npm run build && node bench/triage-queries.bench.mjs [rows]
// The database is generated once by bench/triage-generate.mjs into bench/results/ (gitignored)
// and reused; so is the JSON-lines copy used for the grep / jq comparison. First run: several
// minutes (generation, then the JSON-lines file). Needs grep, tail and jq on PATH.
//
// Measures, in-process (one Node process, the database opened once, the way the TUI uses it):
//   search code:RATE_LIMITED since:1h (first page of 50, with the total), show <id>, trace <id>,
//   storms --since 24h — median of several runs, ids picked at random over the 30 days.
// Also whole-process (`node bin/aap-triage.js search …`, Node start-up included) for the search,
// and the same first question asked of the same rows as JSON lines with grep and with jq.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, renameSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAuditReader, sqliteReader } from '../dist/audit/index.js';
import { migrateStore } from '../dist/audit/inspect.js';
import { findStorms, getError, getTrace, searchErrors } from '../dist/triage/index.js';
import { BENCH_END, ensureBenchDb } from './triage-generate.mjs';
import { fmt, time } from './timing.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const rows = Number(process.argv[2] ?? 10_000_000);
const tag = rows >= 1e6 ? `${rows / 1e6}m` : String(rows);
const dbPath = resolve(here, 'results', `triage-${tag}.db`);
const jsonlPath = resolve(here, 'results', `triage-${tag}.jsonl`);
const CODE = 'RATE_LIMITED';
const HOUR = 3_600_000;


console.log(`triage-queries: ${rows.toLocaleString('en')} rows, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
const gen = ensureBenchDb(dbPath, rows);
console.log(gen.generatedNow ? `generated ${dbPath} in ${gen.seconds.toFixed(0)} s` : `reusing ${dbPath}`);
console.log(`database file: ${(statSync(dbPath).size / 2 ** 30).toFixed(2)} GiB`);

// The reader refuses a store with an older schema (it never migrates; `aap-triage doctor
// --migrate` upgrades one). A database cached in bench/results/ by an older build would be
// refused, so upgrade it first with the writer's migration (a no-op when it is current).
const migrated = migrateStore(dbPath);
if (migrated.from !== migrated.to) console.log(`migrated ${dbPath} from schema ${migrated.from} to ${migrated.to}`);
const db = openAuditReader(dbPath); // read-only
const store = sqliteReader(db); // the store interface the triage functions read (answers at once on SQLite)
const now = BENCH_END;

// Random ids over the 30 days, found through the time index.
const pickAt = db.prepare('SELECT error_id, trace_id, upstream_trace_id FROM error_events WHERE occurred_at >= ? ORDER BY occurred_at LIMIT 1');
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const picks = Array.from({ length: 31 }, () => pickAt.get(now - 30 * 86_400_000 + Math.floor(rand() * 30 * 86_400_000)));

const results = {};
results.search = await time(() => searchErrors(store, `code:${CODE} since:1h`, { since: now - 86_400_000, until: now + 1 }, { now, limit: 50 }), 31);
results.show = await time((i) => getError(store, picks[i].error_id), 31);
results.trace = await time((i) => getTrace(store, picks[i].upstream_trace_id ?? picks[i].trace_id), 31);
results.storms = await time(() => findStorms(store, { since: now - 86_400_000, until: now + 1 }), 5);
const page = results.search.last;
console.log(`search first page: ${page.rows.length} rows of ${page.total}; storms in 24 h: ${results.storms.last.length}`);

// Whole process: node start-up, open, query, JSON out.
const cliArgs = [
  resolve(here, '..', 'bin', 'aap-triage.js'),
  '--db', dbPath, 'search', '--json',
  '--since', new Date(now - HOUR).toISOString(), '--until', new Date(now + 1).toISOString(), `code:${CODE}`,
];
results.searchProcess = await time(() => {
  const r = spawnSync(process.execPath, cliArgs, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`aap-triage exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout).length;
}, 5);

// The same rows as JSON lines (what a pino log of the same errors would hold), time-ordered.
if (!existsSync(jsonlPath)) {
  const t = performance.now();
  const tmp = `${jsonlPath}.partial`;
  const out = createWriteStream(tmp);
  const it = db.prepare('SELECT * FROM error_events ORDER BY occurred_at, error_id').iterate();
  let buf = '';
  let n = 0;
  for (const r of it) {
    buf += JSON.stringify({ level: 50, time: r.occurred_at, pid: 1234, hostname: 'dealer-1', msg: 'aap error', ...r, retryable: r.retryable === null ? null : r.retryable === 1 }) + '\n';
    if (++n % 20_000 === 0) {
      if (!out.write(buf)) await new Promise((res) => out.once('drain', res));
      buf = '';
    }
  }
  out.end(buf);
  await new Promise((res) => out.on('finish', res));
  renameSync(tmp, jsonlPath);
  console.log(`wrote ${jsonlPath} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}
console.log(`JSON lines file: ${(statSync(jsonlPath).size / 2 ** 30).toFixed(2)} GiB`);
const sh = (cmd) => {
  const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};
// First page, newest first = the last 50 matches of a time-ordered file. grep cannot compare
// times, so it answers only "code X, newest 50" (a lower bound on the work); jq does the question.
const since = now - HOUR;
results.grep = await time(() => sh(`LC_ALL=C grep -F '"code":"${CODE}"' '${jsonlPath}' | tail -n 50`), 3);
results.jq = await time(() => sh(`jq -c 'select(.code == "${CODE}" and .time >= ${since}) | .error_id' '${jsonlPath}' | tail -n 50`), 1);
const jqIds = results.jq.last.trim().split('\n').map((l) => JSON.parse(l)).reverse();
const sameRows = JSON.stringify(jqIds) === JSON.stringify(page.rows.map((r) => r.error_id));

const line = (name, r, target) => `${name.padEnd(34)} median ${fmt(r.median).padStart(9)}  (min ${fmt(r.min)}, max ${fmt(r.max)}, n=${r.n})${target ? `  target < ${target}` : ''}`;
console.log('\nin-process (database open, statements warm after the first run):');
console.log(line(`search code:${CODE} since:1h`, results.search, '50 ms'));
console.log(line('show <id>', results.show, '5 ms'));
console.log(line('trace <id>', results.trace, '10 ms'));
console.log(line('storms --since 24h', results.storms, '2 s'));
console.log('\nwhole process (node bin/aap-triage.js, start-up included):');
console.log(line(`search --json code:${CODE} (1 h)`, results.searchProcess));
console.log('\nsame question over the same rows as JSON lines:');
console.log(line(`grep -F code | tail -50`, results.grep));
console.log(line(`jq select(code, time) | tail -50`, results.jq));
console.log(`jq first page equals search first page: ${sameRows ? 'yes' : 'NO'}`);
console.log('\nratios (JSON lines ÷ aap-triage search):');
console.log(`grep ÷ in-process: ${(results.grep.median / results.search.median).toFixed(0)}×   grep ÷ whole process: ${(results.grep.median / results.searchProcess.median).toFixed(1)}×`);
console.log(`jq ÷ in-process:   ${(results.jq.median / results.search.median).toFixed(0)}×   jq ÷ whole process:   ${(results.jq.median / results.searchProcess.median).toFixed(1)}×`);
db.close();
