#!/usr/bin/env node
// Terminal UI, whole process on the demo store (issue 28): time from spawning `aap-triage tui` to its first frame and to its first data frame (the Issues footer `issues a–b of N`). Target: data within 600 ms.
//
// Run: npm run build && node bench/tui-first-frame.bench.mjs [runs=7] [db]
// Without `db`, a 10 s demo store is written to a temp folder first (`aap-triage demo`, no terminal).
// Each run spawns the CLI as a user starts it from a checkout, `node bin/aap-triage.js tui --db <db>
// --since 1h`, inside a real pseudo-terminal (util-linux `script`, 120 × 40), and timestamps the
// bytes it writes: the clock starts just before spawn (so Node's own start-up, 70–100 ms here,
// is in the figure), "first frame" is the first write holding the title bar, "first data frame"
// the first write holding the footer `issues a–b of N`. The run is then ended with `q`.
// Prints each run, then the median and the worst, and one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const CLI = resolve(here, '../bin/aap-triage.js');
const runs = Number(process.argv[2] ?? 7);
let db = process.argv[3];
let tmp;
if (!db) {
  tmp = mkdtempSync(join(tmpdir(), 'aap-tui-first-frame-'));
  db = join(tmp, 'demo.db');
  const demo = spawnSync(process.execPath, [CLI, 'demo', '--duration', '10s', '--db', db], { env: { ...process.env, CI: 'true' }, encoding: 'utf8' });
  if (demo.status !== 0) throw new Error(`demo failed: ${demo.stderr}`);
}

function once() {
  return new Promise((resolveRun, reject) => {
    const env = { ...process.env, COLUMNS: '120', LINES: '40' };
    delete env.CI;
    delete env.CONTINUOUS_INTEGRATION;
    const cmd = `stty cols 120 rows 40; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} tui --db ${JSON.stringify(db)} --since 1h`;
    const started = performance.now();
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let text = '';
    let first = null;
    let data = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no data frame within 20 s; got: ${text.slice(-300)}`));
    }, 20_000);
    child.stdout.on('data', (chunk) => {
      const at = performance.now() - started;
      text += chunk.toString('utf8');
      if (first === null && text.includes('aap-triage')) first = at;
      if (data === null && /issues \d+–\d+ of \d+/.test(text)) {
        data = at;
        child.stdin.write('q');
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (data === null) reject(new Error(`exited without a data frame: ${text.slice(-300)}`));
      else resolveRun({ first, data });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`tui-first-frame: ${db}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadavg()[0]?.toFixed(1)}`);
const results = [];
try {
  await once(); // warm the file cache once, not counted
  for (let i = 0; i < runs; i++) {
    const r = await once();
    results.push(r);
    console.log(`  run ${i + 1}: first frame ${r.first.toFixed(0)} ms, first data frame ${r.data.toFixed(0)} ms`);
  }
} finally {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
const firsts = results.map((r) => r.first);
const datas = results.map((r) => r.data);
console.log(`median: first frame ${median(firsts).toFixed(0)} ms, first data frame ${median(datas).toFixed(0)} ms; worst data frame ${Math.max(...datas).toFixed(0)} ms (target 600 ms)`);
console.log(JSON.stringify({ runs, first_frame_ms: { median: median(firsts), max: Math.max(...firsts) }, data_frame_ms: { median: median(datas), max: Math.max(...datas) } }));
