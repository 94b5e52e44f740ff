#!/usr/bin/env node
// Terminal UI frame latency on the 10-million-row audit database of the triage benchmark
// (issue 6 "Benchmark"): time from process start to the first full frame, and from the filter
// keystroke (Enter on `/code:X`) to the redrawn frame. Targets: < 500 ms and < 100 ms.
//
// Run: npm run build && node bench/tui-frame.bench.mjs [runs=5] [db=bench/results/triage-10m.db]
// Two variants in one run: what `npm run build` ships (ink, React and the UI bundled into
// dist/tui/bundle/render.js by rolldown), then the plain modules with the bundle set aside, for
// comparison (the bundle is put back afterwards).
// (the database comes from `node bench/triage-generate.mjs`; this script generates a 1-million-
// row one into bench/results/tui-1m.db when the 10-million-row file is absent, and says so).
//
// Each run is a fresh `node` child that calls the real entry point, `runTui` from dist/tui, with
// a TTY-like in-memory stdout (120 × 40) and stdin, so every ink write is seen as it happens:
// - first frame: performance.now() in the child (ms since its process started: Node startup,
//   loading ink/React/yoga, opening the store, the first queries and render) at the first write
//   holding a whole frame (footer `rows a–b of N` and the status line);
// - filter: from writing Enter on a typed `/code:X` to the first frame write after it (search,
//   count, histogram, React render, ink's 30 fps write throttle included);
// - move: from `j` to its frame, for scale.
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const CODES = ['RATE_LIMITED', 'VEHICLE_NOT_FOUND', 'SCHEMA_VALIDATION_FAILED', 'INTERNAL_ERROR', 'UPSTREAM_UNAVAILABLE'];
const ROUNDS = 4; // filter keystrokes per code per run
const HOUR = 3_600_000;

async function parent() {
  const runs = Number(process.argv[2] ?? 5);
  let db = resolve(process.argv[3] ?? resolve(here, 'results/triage-10m.db'));
  let note = '';
  if (!existsSync(db)) {
    const { ensureBenchDb } = await import('./triage-generate.mjs');
    db = resolve(here, 'results/tui-1m.db');
    note = ` (the 10-million-row database is absent: generated ${db} with 1 million rows instead)`;
    await ensureBenchDb(db, 1_000_000);
  }
  const { BENCH_END } = await import('./triage-generate.mjs');
  console.log(`tui-frame: ${db}${note}, ${(statSync(db).size / 2 ** 30).toFixed(2)} GiB, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadavg()[0]?.toFixed(1)}`);
  // `npm run build` bundles ink, React and the UI into dist/tui/bundle (see RENDER_BUNDLE in
  // src/tui/index.ts): measure that, then the plain modules with the bundle set aside, then put it back.
  const bundleDir = resolve(here, '../dist/tui/bundle');
  if (!existsSync(bundleDir)) throw new Error('dist/tui/bundle is missing: run `npm run build` first');
  const summary = { bundle: measure(runs, db, BENCH_END, 'as built (single-file bundle)') };
  const parked = `${bundleDir}.parked`;
  rmSync(parked, { recursive: true, force: true });
  renameSync(bundleDir, parked);
  try {
    summary.plain = measure(runs, db, BENCH_END, 'plain modules (bundle set aside)');
  } finally {
    renameSync(parked, bundleDir);
  }
  console.log(JSON.stringify(summary));
}

/** `runs` fresh children; prints and returns the figures. */
function measure(runs, db, BENCH_END, label) {
  console.log(`${label}:`);
  const first = [];
  const firstCpu = [];
  const filter = [];
  const filterCpu = [];
  const move = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', db, String(BENCH_END)], { encoding: 'utf8', timeout: 300_000 });
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
    if (r.status !== 0 || !line) throw new Error(`child failed (${r.status}): ${r.stderr || r.stdout}`);
    const res = JSON.parse(line);
    first.push(res.firstFrame);
    firstCpu.push(res.firstFrameCpu);
    filter.push(...res.filter);
    filterCpu.push(...res.filterCpu);
    move.push(...res.move);
    console.log(
      `  run ${i + 1}: first frame ${res.firstFrame.toFixed(0)} ms wall, ${res.firstFrameCpu.toFixed(0)} ms CPU (${res.rowsLabel}); filter median ${median(res.filter).toFixed(1)} ms wall, ${median(res.filterCpu).toFixed(1)} ms CPU`,
    );
  }
  const out = {
    firstFrameMs: { median: median(first), min: Math.min(...first), max: Math.max(...first) },
    firstFrameCpuMs: { median: median(firstCpu) },
    filterMs: { median: median(filter), p95: quantile(filter, 0.95), max: Math.max(...filter), n: filter.length },
    filterCpuMs: { median: median(filterCpu), p95: quantile(filterCpu, 0.95) },
    moveMs: { median: median(move), p95: quantile(move, 0.95), n: move.length },
    load: loadavg()[0],
  };
  console.log(
    `first full frame: median ${out.firstFrameMs.median.toFixed(0)} ms wall (min ${out.firstFrameMs.min.toFixed(0)}, max ${out.firstFrameMs.max.toFixed(0)}), ${out.firstFrameCpuMs.median.toFixed(0)} ms CPU — target < 500 ms`,
  );
  console.log(
    `filter keystroke → frame: median ${out.filterMs.median.toFixed(1)} ms wall, p95 ${out.filterMs.p95.toFixed(1)}, max ${out.filterMs.max.toFixed(1)} (n=${out.filterMs.n}); CPU median ${out.filterCpuMs.median.toFixed(1)} ms — target < 100 ms`,
  );
  console.log(`j → frame: median ${out.moveMs.median.toFixed(1)} ms, p95 ${out.moveMs.p95.toFixed(1)} ms`);
  return out;
}

async function child(db, end) {
  const stdout = new FakeStdout(120, 40);
  const stdin = new FakeStdin();
  const { runTui } = await import('../dist/tui/index.js');
  const done = runTui({
    dbPath: db,
    since: new Date(end - HOUR).toISOString(),
    until: new Date(end).toISOString(),
    stdin,
    stdout,
    stderr: process.stderr,
    env: {},
    draftDir: '/tmp',
    // The Errors view (the UI opens on Issues since issue 17): the figures stay comparable.
    view: 'errors',
  });
  const firstWrite = await stdout.nextFrame();
  const firstFrame = firstWrite.at;
  const firstFrameCpu = cpuMs(firstWrite.cpu);
  const rowsLabel = /rows \d+–\d+ of \d+/.exec(firstWrite.text)?.[0] ?? '?';
  const filter = [];
  const filterCpu = [];
  const move = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const code of CODES) {
      stdin.write('/'); // opens the prompt holding the current filter
      await stdout.nextFrame();
      if (filter.length > 0) {
        stdin.write('\u0015'); // Ctrl+U clears it
        await stdout.nextFrame();
      }
      stdin.write(`code:${code}`);
      await stdout.nextFrame();
      const t = performance.now();
      const c = process.cpuUsage();
      stdin.write('\r');
      const f = await stdout.nextFrame();
      if (!f.text.includes(`/ code:${code}`)) throw new Error(`frame after Enter does not show the filter code:${code}`);
      filter.push(f.at - t);
      filterCpu.push(cpuMs(f.cpu) - cpuMs(c));
      const t2 = performance.now();
      stdin.write('j');
      const f2 = await stdout.nextFrame();
      move.push(f2.at - t2);
    }
  }
  stdin.write('q');
  const code = await done;
  console.log(JSON.stringify({ firstFrame, firstFrameCpu, rowsLabel, filter, filterCpu, move, exit: code }));
}

/** A TTY-like stdout that records when ink writes a whole frame (footer and status line). */
class FakeStdout extends EventEmitter {
  isTTY = true;
  constructor(columns, rows) {
    super();
    this.columns = columns;
    this.rows = rows;
    this.waiters = [];
  }
  write(chunk) {
    const text = String(chunk);
    if (/rows \d+–\d+ of \d+/.test(text) && text.includes('refreshed ')) {
      const at = performance.now();
      const cpu = process.cpuUsage();
      const w = this.waiters.shift();
      if (w) w({ at, cpu, text });
    }
    return true;
  }
  /** Resolves at the next whole-frame write. */
  nextFrame() {
    return new Promise((r, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame within 60 s')), 60_000);
      this.waiters.push((f) => {
        clearTimeout(timer);
        r(f);
      });
    });
  }
  cursorTo() {
    return true;
  }
  moveCursor() {
    return true;
  }
  clearLine() {
    return true;
  }
  getColorDepth() {
    return 8;
  }
  hasColors() {
    return true;
  }
}

/** A TTY-like stdin in raw mode that hands ink what the benchmark types. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  data = null;
  write(data) {
    this.data = data;
    this.emit('readable');
  }
  read() {
    const d = this.data;
    this.data = null;
    return d;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

/** CPU time (user + system) in ms from a `process.cpuUsage()` value (µs). */
function cpuMs(u) {
  return (u.user + u.system) / 1000;
}

function median(xs) {
  return quantile(xs, 0.5);
}
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return (s[lo] ?? 0) + ((s[hi] ?? 0) - (s[lo] ?? 0)) * (i - lo);
}

// Dispatch last: the classes above are not hoisted.
if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]));
else await parent();
