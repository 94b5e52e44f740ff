// Issues over 24 h of a 10-million-row, 30-day audit store (issue #17 "Issues": ≤ 300 ms in-process).
//
// Run:  npm run build && node bench/issues.bench.mjs [rows]
// The database is generated once by bench/triage-generate.mjs into bench/results/ (gitignored)
// and reused (first run: ≈ 10–15 min for 10 M rows on this machine).
//
// Measures, in-process (the database opened once, read-only, as the TUI holds it), the median of
// several runs of `listIssues` for the last 24 h:
//   - at an hour boundary (the summary alone) and at half past (partial hours at both edges
//     read from error_events);
//   - the same question answered from the rows alone (`source: rows`, forced with a query that
//     matches every row): the plain GROUP BY the summary replaces, for comparison;
// and whole-process `node bin/aap-triage.js issues --json` (Node start-up included).
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAuditReader } from '../dist/audit/index.js';
import { migrateStore } from '../dist/audit/inspect.js';
import { listIssues } from '../dist/triage/index.js';
import { BENCH_END, ensureBenchDb } from './triage-generate.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const rows = Number(process.argv[2] ?? 10_000_000);
const tag = rows >= 1e6 ? `${rows / 1e6}m` : String(rows);
const dbPath = resolve(process.argv[3] ?? resolve(here, 'results', `triage-${tag}.db`));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
// Wall time and this process's CPU time (user + system) per call: on a shared machine the wall
// time includes waiting for a core; the CPU time is what the call costs.
function time(fn, n) {
  const out = [];
  const cpu = [];
  let last;
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    last = fn(i);
    out.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return { median: median(out), min: Math.min(...out), max: Math.max(...out), cpu: median(cpu), n, last };
}

console.log(`issues: ${rows.toLocaleString('en')} rows, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0].toFixed(1)}`);
const gen = ensureBenchDb(dbPath, rows);
console.log(gen.generatedNow ? `generated ${dbPath} in ${gen.seconds.toFixed(0)} s` : `reusing ${dbPath}`);
console.log(`database file: ${(statSync(dbPath).size / 2 ** 30).toFixed(2)} GiB`);
const migrated = migrateStore(dbPath);
if (migrated.from !== migrated.to) console.log(`migrated ${dbPath} from schema ${migrated.from} to ${migrated.to}`);
const db = openAuditReader(dbPath);

const at = (now) => ({ window: { since: now - DAY, until: now }, now });
const results = {
  'listIssues 24 h, hour boundary (summary)': time(() => listIssues(db, at(BENCH_END)), 11),
  'listIssues 24 h, half past (summary + edges)': time(() => listIssues(db, at(BENCH_END - HOUR / 2)), 11),
  'listIssues 24 h, --sort last_seen': time(() => listIssues(db, { ...at(BENCH_END - HOUR / 2), sort: 'last_seen' }), 11),
  'same from the rows (plain GROUP BY)': time(() => listIssues(db, { ...at(BENCH_END - HOUR / 2), query: '-code:NONE' }), 3),
};
const last = results['listIssues 24 h, half past (summary + edges)'].last;
const check = results['same from the rows (plain GROUP BY)'].last;
const same = JSON.stringify(last.issues.map((i) => [i.key, i.count, i.clients])) === JSON.stringify(check.issues.map((i) => [i.key, i.count, i.clients]));
console.log(`${last.total} issues in 24 h, ${last.issues.reduce((a, i) => a + i.count, 0).toLocaleString('en')} errors; summary and rows agree: ${same}`);

const cli = [resolve(here, '..', 'bin', 'aap-triage.js'), '--db', dbPath, 'issues', '--json', '--since', new Date(BENCH_END - DAY).toISOString(), '--until', new Date(BENCH_END).toISOString()];
results['whole process: aap-triage issues --json'] = time(() => {
  const r = spawnSync(process.execPath, cli, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`aap-triage exited ${r.status}: ${r.stderr}`);
}, 5);

console.log(`load after: ${loadavg()[0].toFixed(1)}`);
console.log('\n| what | median wall | min – max wall | median CPU | runs |\n| --- | --- | --- | --- | --- |');
for (const [name, r] of Object.entries(results)) console.log(`| ${name} | ${fmt(r.median)} | ${fmt(r.min)} – ${fmt(r.max)} | ${name.startsWith('whole') ? '—' : fmt(r.cpu)} | ${r.n} |`);
db.close();
