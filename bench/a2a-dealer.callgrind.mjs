#!/usr/bin/env node
// Instructions per call that aap-triage adds to a dealer (issue 26, DESIGN §8), counted by callgrind.
//   npm run build && node bench/a2a-dealer.callgrind.mjs [calls=500] [--runs=3] [--warmup=8000] [--load=success|all-error|retry] [--keep]
// The dealer of bench/a2a-dealer.bench.mjs (bench/a2a-dealer-server.mjs) runs under
// `node --predictable` (V8's deterministic mode: no concurrent compiler or GC threads) inside
// `valgrind --tool=callgrind --separate-threads=yes --instr-atstart=no`, in two variants:
// (a) OpenTelemetry HTTP instrumentation only, (b) the same plus aap-triage. Each run is a fresh
// server (node --expose-gc) sent the same sequence of calls: `warmup` calls with counting off, a
// settle pause, a full GC, `callgrind_control -i on`, `calls` counted calls, a settle pause, a
// full GC, `--dump`, a second full GC, `--dump`, `-i off`, SIGTERM. Runs alternate a, b, a, b …
// (`runs` of each). A dump gives instructions on the event-loop thread (the main thread's file,
// `-01`) and on all threads (event loop, audit worker, libuv). Per run: (first dump − second
// dump) / calls; per run pair, (b) − (a); printed as the median (min…max) over the pairs, against
// the budgets. Why the collections: a major GC costs 100–130 M instructions, 200–260 k per call of
// a 500-call window, and without them one fell into one variant's window and not the other's by
// chance ((b) − (a) came out negative on success). Now every window starts from a collected heap
// and ends with a collection; the second one, right after it, marks the same live heap with no
// garbage left and is taken off, so a window is charged for collecting what its own calls left,
// not for marking the resting heap (larger in (b), which loads more modules). Fresh processes with
// one call sequence make V8's work the same from run to run (windows taken one after another in
// one long-lived process moved by ±300 k per call). Keep `calls` a multiple of the audit batch
// (500) so each window holds whole batches. Calls are distinct, as real traffic is: each has its
// own messageId,
// JSON-RPC id and search filter value (built per request by autocannon's setupRequest; its `-I`
// id replacement is not used because it declares a 27-character id in Content-Length while
// hyperid's ids are 23 + digits long, so such requests hang). Loads:
//   success   — distinct inventory.search calls, each answered with vehicles (gated);
//   all-error — distinct calls whose handler throws AapError VEHICLE_NOT_FOUND, which the SDK
//               flattens and aap-triage repairs (gated); after the run the audit store must hold
//               a row for every call sent, each attempt 1, none dropped or failed;
//   retry     — one identical all-error call sent again and again (the earlier benches' load, a
//               retry storm to the retry tracker), reported beside them, not gated.
// Timers: under valgrind a call takes ~50× longer, so work on a timer would be charged ~50× more
// per call than in production. The server runs with BENCH_QUIET_TIMERS=1 in both variants: span
// and log batches leave when 512 are queued, metric export and the traffic flush are hourly, and
// the audit sink is opened by the server (`openAuditSink`, batchSize 500, flushIntervalMs one hour,
// no idle checkpoint) so batches are filled by count as under load. Calls are counted after a
// settle pause and dumped after another one, so the work for the last calls is inside the window;
// the rest of the audit queue is flushed at SIGTERM, after the dump. No health or sweep timer
// fires: the audit health file is rewritten after a batch (at most once a second), the retry
// tracker sweeps on calls, not on a timer.
// --node-flag=<flag> (repeatable) passes a V8 flag to the server; --no-collect leaves out the
// forced collections (both for studying the method: docs/benchmarks.md). --keep leaves the dumps
// (callgrind_annotate <file> shows where the instructions go). Exit code 1 when a budget is
// missed or the audit check fails (figures with fewer than 3 runs or 8,000 warm-up calls are
// printed but not held to the budgets).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCH = 'a2a-dealer callgrind';
const USAGE = 'usage: node bench/a2a-dealer.callgrind.mjs [calls=500] [--runs=3] [--warmup=8000] [--load=success|all-error|retry] [--node-flag=<V8 flag>]… [--no-collect] [--keep]';
const LOAD_NAMES = ['success', 'all-error', 'retry'];
/** DESIGN §8: instructions (b) − (a) per call, at most; null = not gated. */
const BUDGETS = {
  success: { all: 40_000, loop: null },
  'all-error': { all: 300_000, loop: 250_000 },
  retry: null,
};
/** What the budgets are held to: at least this many runs of each variant and warm-up calls. */
const MIN_RUNS = 3;
const MIN_WARMUP = 8_000;
const CONNECTIONS = 10;
/** Pause before counting starts and before the dump, ms: the last responses' observer work and audit batch finish. */
const SETTLE_MS = 3_000;
const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';

const opts = readArgs(process.argv.slice(2));
if (spawnSync('valgrind', ['--version']).status !== 0 || spawnSync('callgrind_control', ['-h']).error) {
  console.error(`${BENCH}: valgrind (with callgrind_control) is not installed (Debian: apt-get install valgrind)`);
  process.exit(2);
}

/** Reads the arguments; --help prints the usage, anything wrong is one line on stderr and exit 2. */
function readArgs(argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const out = { calls: 500, runs: MIN_RUNS, warmup: MIN_WARMUP, loads: LOAD_NAMES, keep: false, nodeFlags: [], collect: true };
  const fail = (what) => {
    console.error(`${BENCH}: ${what} — ${USAGE}`);
    process.exit(2);
  };
  const whole = (text, name, max) => {
    if (!/^[1-9]\d{0,6}$/.test(text)) fail(`${name} is not a positive whole number: ${JSON.stringify(text)}`);
    if (Number(text) > max) fail(`${name} is at most ${max}: ${text}`);
    return Number(text);
  };
  const positional = [];
  for (const a of argv) {
    const [flag, value] = a.startsWith('--') ? [a.slice(0, a.includes('=') ? a.indexOf('=') : undefined), a.includes('=') ? a.slice(a.indexOf('=') + 1) : null] : [null, a];
    if (flag === null) positional.push(value);
    else if (flag === '--runs' && value !== null) out.runs = whole(value, 'runs', 99);
    else if (flag === '--warmup' && value !== null) out.warmup = whole(value, 'warmup', 1_000_000);
    else if (flag === '--load' && value !== null) {
      if (!LOAD_NAMES.includes(value)) fail(`unknown load ${JSON.stringify(value)} (${LOAD_NAMES.join(', ')})`);
      out.loads = [value];
    } else if (flag === '--node-flag' && value !== null && /^--[a-z0-9-]+(=[\w.-]+)?$/.test(value)) out.nodeFlags.push(value);
    else if (a === '--no-collect') out.collect = false;
    else if (a === '--keep') out.keep = true;
    else fail(`unknown option ${a}`);
  }
  if (positional.length > 1) fail('too many arguments');
  if (positional.length === 1) out.calls = whole(positional[0], 'calls', 1_000_000);
  return out;
}

/** JSON-RPC SendMessage for inventory.search; `n` null gives the one fixed call of the retry load. */
function body(n, data) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: n ?? 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: `msg-${n ?? 'retry'}`,
        role: 'ROLE_USER',
        parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda', maxPrice: 20_000 + (n ?? 0) }, ...data }, mediaType: 'application/json' }],
      },
    },
  });
}
const fail = { failInHandler: 'VEHICLE_NOT_FOUND' };
/** Per load: the body of the n-th call (n counts on over warm-up and counted calls, so no call repeats). */
const LOADS = {
  success: (n) => body(n, {}),
  'all-error': (n) => body(n, fail),
  retry: () => body(null, fail),
};

const WORK = mkdtempSync(join(tmpdir(), 'aap-callgrind-'));
/** Servers alive now, so an interrupted run leaves none behind. */
const live = new Set();
function cleanUp() {
  for (const p of live) p.kill('SIGKILL');
  live.clear();
  if (opts.keep) console.log(`callgrind dumps kept in ${WORK} (callgrind_annotate <file>)`);
  else rmSync(WORK, { recursive: true, force: true, maxRetries: 3 });
}
process.on('exit', cleanUp);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) process.on(signal, () => process.exit(code));

/** Sends `amount` calls over CONNECTIONS keep-alive connections; `next()` gives each request's body. */
async function send(port, amount, next) {
  let odd = null;
  const run = autocannon({
    url: `http://127.0.0.1:${port}/a2a/jsonrpc`,
    connections: CONNECTIONS,
    amount,
    timeout: 300,
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': EXTENSION_URI },
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({ ...req, body: next() }),
        onResponse: (status, answer) => {
          if (status !== 200) odd ??= `HTTP ${status}: ${String(answer).slice(0, 300)}`;
        },
      },
    ],
  });
  run.on('reqError', (e) => (odd ??= `${e?.code ?? ''} ${e?.message ?? e}`));
  const r = await run;
  if (r.errors || r.timeouts || r.non2xx || r.requests.total !== amount) {
    throw new Error(`autocannon: ${r.requests.total}/${amount} answered, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx${odd ? ` (first: ${odd})` : ''}`);
  }
}

/** Sum of the `totals:` lines of the dump files named `<prefix>…`, for the main thread and all threads. */
function readDump(prefix) {
  let all = 0;
  let loop = 0;
  let files = 0;
  for (const f of readdirSync(WORK).filter((n) => n.startsWith(prefix))) {
    const text = readFileSync(join(WORK, f), 'utf8');
    const m = /^totals:\s+(\d+)/m.exec(text);
    if (!m) continue;
    files++;
    all += Number(m[1]);
    // --separate-threads names each thread's file …-<thread>; thread 1 is the main (event-loop) thread.
    if (/-0*1$/.test(f)) loop += Number(m[1]);
  }
  if (files === 0 || loop === 0) throw new Error(`no callgrind dump of the counted calls (${prefix}*)`);
  return { all, loop };
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One run: a fresh server of `mode` under callgrind (counting off) sent `opts.warmup` calls of
 * `load`, then one counted window of `opts.calls` calls, then SIGTERM (the server flushes its
 * audit queue and prints its AUDIT line). Every run sends the same sequence of calls. Returns
 * instructions per counted call on the event loop and on all threads, and the AUDIT line (null
 * without one).
 */
async function measure(mode, load, tag) {
  const out = join(WORK, `${tag}.out`);
  const proc = spawn(
    'valgrind',
    ['--tool=callgrind', '--separate-threads=yes', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, '--predictable', '--expose-gc', ...opts.nodeFlags, join(HERE, 'a2a-dealer-server.mjs'), mode],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_QUIET_TIMERS: '1', BENCH_DIR: WORK } },
  );
  live.add(proc);
  const closed = new Promise((r) => proc.on('close', r));
  let text = '';
  let errText = '';
  proc.stdout.on('data', (c) => (text += c));
  proc.stderr.on('data', (c) => (errText = (errText + c).slice(-4000)));
  const started = Date.now();
  for (let i = 0; !/PORT (\d+)/.test(text); i++) {
    if (proc.exitCode !== null || i > 3000) throw new Error(`${tag}: the server did not start under valgrind within 300 s\n${errText}`);
    await pause(100);
  }
  const port = Number(/PORT (\d+)/.exec(text)[1]);
  let sent = 0;
  const next = () => LOADS[load](sent++);
  await send(port, opts.warmup, next);
  await pause(SETTLE_MS);
  const control = (...a) => {
    const r = spawnSync('callgrind_control', [...a, String(proc.pid)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`callgrind_control ${a.join(' ')}: ${r.stderr || r.stdout}`);
  };
  /** A full GC in the server (SIGUSR2 under --expose-gc); resolves when it has answered. */
  const collect = async () => {
    const before = text.length;
    proc.kill('SIGUSR2');
    for (let i = 0; !/CPU \d+/.test(text.slice(before)); i++) {
      if (i > 1200) throw new Error(`${tag}: the server did not answer SIGUSR2 within 120 s`);
      await pause(100);
    }
  };
  if (opts.collect) await collect();
  control('-i', 'on');
  const counted = Date.now();
  await send(port, opts.calls, next);
  await pause(SETTLE_MS);
  if (opts.collect) await collect();
  control('--dump=counted');
  // A second collection right after the first marks the same live heap with no garbage left:
  // its count (dump 2) is taken off, so a window is charged for collecting what its calls left,
  // not for marking the resting heap (larger in (b): more modules loaded).
  if (opts.collect) await collect();
  control('--dump=resting');
  control('-i', 'off');
  const countedS = (Date.now() - counted) / 1000;
  proc.kill('SIGTERM');
  await closed;
  live.delete(proc);
  // Dump files: <out>.<dump number>-<thread>; the requested dumps are 1 (the window) and 2 (the
  // resting collection); the one at exit, with counting off, holds nothing.
  const window = readDump(`${tag}.out.1-`);
  const resting = readDump(`${tag}.out.2-`);
  const all = window.all - resting.all;
  const loop = window.loop - resting.loop;
  const audit = /AUDIT (.*)/.exec(text);
  return {
    all: all / opts.calls,
    loop: loop / opts.calls,
    restingGc: resting.all / opts.calls,
    seconds: (Date.now() - started) / 1000,
    countedS,
    sent,
    audit: audit ? Object.fromEntries(audit[1].split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])) : null,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const k = (x) => `${x >= 0 ? '+' : ''}${(x / 1000).toFixed(1)} k`;
const spread = (xs) => `${k(median(xs))} (${k(Math.min(...xs))}…${k(Math.max(...xs))})`;

const startedAt = new Date();
console.log(`# a2a-dealer instructions per call (callgrind --separate-threads=yes, node --predictable)  ${startedAt.toISOString()}`);
console.log(`node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`${opts.warmup} warm-up calls, then ${opts.calls} counted calls per run, ${CONNECTIONS} connections; ${opts.runs} runs of each variant, alternating (a) otel, (b) triage`);
console.log(`server: node --predictable --expose-gc ${opts.nodeFlags.join(' ')}; ${opts.collect ? 'a full GC before the window and two after it (the second taken off)' : 'no forced GC'}`);
let failed = false;
const results = [];
for (const load of opts.loads) {
  const runs = { otel: [], triage: [] };
  for (let r = 0; r < opts.runs; r++) {
    for (const mode of ['otel', 'triage']) {
      const m = await measure(mode, load, `${load}-${mode}-${r + 1}`);
      runs[mode].push(m);
      let check = '';
      if (mode === 'triage' && load !== 'success') {
        const a = m.audit;
        // Every call of the error loads is an error: one row each, none dropped; distinct calls are attempt 1 each.
        const ok = a !== null && a.stored === m.sent && a.dropped === 0 && a.failed === 0 && a.gaps === 0 && (load === 'retry' || (a.maxAttempt === 1 && a.fingerprints === m.sent));
        if (!ok && load === 'all-error') failed = true;
        check = a
          ? `; audit: ${a.stored} rows for ${m.sent} calls, dropped ${a.dropped}, failed ${a.failed}, gaps ${a.gaps}, ${a.fingerprints} fingerprints, max attempt ${a.maxAttempt}${ok ? ' ok' : ' — CHECK FAILED'}`
          : '; audit: no AUDIT line — CHECK FAILED';
      }
      console.log(
        `  ${load.padEnd(9)} run ${r + 1} ${mode.padEnd(6)} ${(m.loop / 1000).toFixed(1).padStart(7)} k event loop, ${(m.all / 1000).toFixed(1).padStart(7)} k all threads per call, resting GC ${(m.restingGc / 1000).toFixed(1)} k taken off  (run ${m.seconds.toFixed(0)} s, counted ${m.countedS.toFixed(0)} s${check})`,
      );
    }
  }
  results.push({
    load,
    loop: runs.triage.map((b, i) => b.loop - runs.otel[i].loop),
    all: runs.triage.map((b, i) => b.all - runs.otel[i].all),
    base: runs.otel,
  });
}

console.log(`\n(b) − (a) per call, median (min…max) over ${opts.runs} run pairs; (a) for scale`);
const held = opts.runs >= MIN_RUNS && opts.warmup >= MIN_WARMUP;
for (const r of results) {
  const b = BUDGETS[r.load];
  const verdict = (value, budget) => {
    if (!b || budget === null) return '';
    if (!held) return `  (budget ≤ +${budget / 1000} k: not held, needs ≥ ${MIN_RUNS} runs and ≥ ${MIN_WARMUP} warm-up calls)`;
    if (value <= budget) return `  (budget ≤ +${budget / 1000} k: met)`;
    failed = true;
    return `  (budget ≤ +${budget / 1000} k: MISSED)`;
  };
  const base = (key) => `${(median(r.base.map((x) => x[key])) / 1000).toFixed(1)} k`;
  console.log(`${r.load}${b ? '' : ' (not gated)'}`);
  console.log(`  event loop   ${spread(r.loop).padEnd(32)} (a) ${base('loop')}${verdict(median(r.loop), b?.loop ?? null)}`);
  console.log(`  all threads  ${spread(r.all).padEnd(32)} (a) ${base('all')}${verdict(median(r.all), b?.all ?? null)}`);
}
console.log(`\nfinished ${new Date().toISOString()} (${((Date.now() - startedAt) / 60_000).toFixed(1)} min)`);
if (failed) process.exitCode = 1;
