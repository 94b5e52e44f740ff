#!/usr/bin/env node
// Instrumentation overhead (issues 3 and 14): CPU per call and requests/s of an @a2a-js/sdk dealer
// serving inventory.search on loopback with (a) OpenTelemetry HTTP instrumentation only and (b) the
// same plus aap-triage, on a success-only load and an all-error load, in one run.
//   npm run build && node bench/a2a-dealer.bench.mjs [seconds=5] [rounds=10] [connections=10] [--breakdown] [--load=success|all-error]
// Per load, one long-lived server process per variant (bench/a2a-dealer-server.mjs) is started
// and warmed up; then trials alternate between them (a, b, a, b …, each round starting with the
// next variant) so that drift on a shared machine hits all alike. A server waits stopped
// (SIGSTOP) while another is measured. With taskset and ≥ 2 cores every server (with its audit
// worker thread) is pinned to CPU 0 and autocannon to CPU 1: a one-core dealer.
// Per trial: the server's CPU per call for the event-loop thread (/proc/<pid>/task/<pid>/schedstat,
// ns) and for all its threads (process.cpuUsage in the server: GC helpers, the audit worker,
// libuv), and req/s. Per round, (b) − (a) and (b)/(a) of that round's two trials; the summary
// gives the median of these paired figures with their quartiles and range, reported, not gated
// (issue 26: the budgets are in instructions, bench/a2a-dealer.callgrind.mjs). For the
// all-error load it checks that the store holds a row for every request sent and dropped nothing. --breakdown adds variants of (b) that each leave one part out through
// public options (call spans, metrics, audit store, log line). Record in docs/benchmarks.md.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = 'usage: node bench/a2a-dealer.bench.mjs [seconds=5] [rounds=10] [connections=10] [--breakdown] [--load=success|all-error]';
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
if (flags.includes('--help') || flags.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const badFlag = flags.find((f) => f !== '--breakdown' && !/^--load=(success|all-error)$/.test(f));
const badArg = args.find((a) => !/^[1-9]\d{0,3}$/.test(a));
if (badFlag || badArg || args.length > 3) {
  console.error(`a2a-dealer bench: ${badFlag ? `unknown option ${badFlag}` : badArg ? `not a positive whole number: ${badArg}` : 'too many arguments'} — ${USAGE}`);
  process.exit(2);
}
const BREAKDOWN = flags.includes('--breakdown');
const SECONDS = Number(args[0] ?? 5);
const ROUNDS = Number(args[1] ?? 10);
const ONLY_LOAD = flags.find((f) => f.startsWith('--load='))?.slice('--load='.length);
const CONNECTIONS = Number(args[2] ?? 10);
const WARMUP_S = 3;
const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;
const pin = (cpu, cmd, argv) => (canPin ? ['taskset', ['-c', String(cpu), cmd, ...argv]] : [cmd, argv]);
/** The servers' audit databases live here; removed at the end, also after a failure or Ctrl-C. */
const WORK_DIR = mkdtempSync(join(tmpdir(), 'aap-bench-'));
/** Server processes alive now (with a promise of their exit), so an interrupted run leaves none behind. */
const live = new Map();
process.on('exit', () => {
  for (const proc of live.keys()) {
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
  }
  rmSync(WORK_DIR, { recursive: true, force: true, maxRetries: 3 });
});
async function interrupted() {
  for (const proc of live.keys()) {
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
  }
  await Promise.all(live.values());
  process.exit(130);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, interrupted);

/** Variants: (a), (b) and, with --breakdown, (b) without one part (BENCH_OMIT of the server). */
const VARIANTS = [
  { name: 'otel', mode: 'otel', label: '(a) OTel HTTP only' },
  { name: 'triage', mode: 'triage', label: '(b) + aap-triage' },
  ...(BREAKDOWN
    ? ['spans', 'metrics', 'audit', 'log'].map((part) => ({ name: `-${part}`, mode: 'triage', omit: part, label: `(b) without ${part}` }))
    : []),
];

function body(data) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, ...data }, mediaType: 'application/json' }] } },
  });
}
const LOADS = Object.fromEntries(
  Object.entries({ success: body({}), 'all-error': body({ failInHandler: 'VEHICLE_NOT_FOUND' }) }).filter(([load]) => !ONLY_LOAD || load === ONLY_LOAD),
);

/** CPU time of the process's event-loop thread so far, µs (the kernel's per-thread run time). */
function loopCpuUs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return NaN; // no /proc (not Linux): the event-loop figure is left out
  }
}

async function startServer(variant) {
  const [cmd, argv] = pin(0, process.execPath, [join(HERE, 'a2a-dealer-server.mjs'), variant.mode]);
  const env = { ...process.env, BENCH_OMIT: variant.omit ?? '', BENCH_DIR: WORK_DIR };
  const proc = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const exited = new Promise((resolve) => proc.on('close', resolve)); // after its stdout is read
  live.set(proc, exited);
  exited.then(() => live.delete(proc));
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${variant.name} server did not start within 20 s`));
    }, 20_000);
    const check = () => {
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      } else setTimeout(check, 20);
    };
    check();
  });
  /** The server's CPU time so far, µs: all threads, and the event-loop thread alone. */
  const cpu = async () => {
    const before = out.length;
    proc.kill('SIGUSR2');
    for (let i = 0; i < 200; i++) {
      const m = /CPU (\d+)/.exec(out.slice(before));
      if (m) return { all: Number(m[1]), loop: loopCpuUs(proc.pid) };
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${variant.name} server did not report its CPU time`);
  };
  /** Requests answered and sent to this server so far (warm-up included). */
  const count = { total: 0, sent: 0 };
  /** The server's `AUDIT …` line after it stopped, parsed (null without an audit store). */
  const audit = () => {
    const m = /AUDIT (.*)/.exec(out);
    return m ? Object.fromEntries(m[1].split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])) : null;
  };
  // Servers wait stopped (SIGSTOP) between their trials, so their timers and GC never run while
  // another variant is being measured on the same CPU.
  const pause = () => proc.kill('SIGSTOP');
  const resume = () => proc.kill('SIGCONT');
  /** SIGTERM (the server flushes and exits), SIGKILL if it has not exited after 10 s. */
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGCONT');
    proc.kill('SIGTERM');
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };
  return { variant, port, cpu, pause, resume, stop, count, audit };
}

function autocannon(port, payload, seconds) {
  const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
  const ac = join(HERE, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const [cmd, argv] = pin(1, process.execPath, [
    ac, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), '-m', 'POST',
    '-H', 'content-type=application/json', '-H', 'A2A-Version=1.0', '-H', `A2A-Extensions=${EXTENSION_URI}`,
    '-b', payload, url,
  ]);
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const j = JSON.parse(r.stdout);
  return { rps: j.requests.average, total: j.requests.total, sent: j.requests.sent, non2xx: j.non2xx, errors: j.errors, timeouts: j.timeouts };
}

const median = (xs) => quantile(xs, 0.5);
/** Linear-interpolated quantile of a non-empty list. */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const k = (s.length - 1) * q;
  const lo = Math.floor(k);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (k - lo);
}
/** "median [p25…p75] (min…max)" with d decimals. */
const spread = (xs, d = 1) => `${median(xs).toFixed(d)} [${quantile(xs, 0.25).toFixed(d)}…${quantile(xs, 0.75).toFixed(d)}] (${Math.min(...xs).toFixed(d)}…${Math.max(...xs).toFixed(d)})`;
const load1 = () => loadavg().map((x) => x.toFixed(2)).join(' ');

console.log(`# a2a-dealer instrumentation overhead  ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${load1()} (1, 5, 15 min)`);
console.log(
  `cores: ${canPin ? 'each server process (event loop, audit worker, all its threads) pinned to CPU 0, autocannon to CPU 1 (taskset -c)' : 'NOT pinned (no taskset or < 2 cores)'}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, then ${ROUNDS} rounds of ${SECONDS} s trials alternating ${VARIANTS.map((v) => v.name).join(', ')}`,
);
const summary = [];
const checks = [];
for (const [load, payload] of Object.entries(LOADS)) {
  const servers = [];
  const trials = new Map();
  try {
    for (const v of VARIANTS) servers.push(await startServer(v));
    for (const s of servers) {
      const r = autocannon(s.port, payload, WARMUP_S);
      s.count.total += r.total;
      s.count.sent += r.sent;
      s.pause();
    }
    for (const s of servers) trials.set(s.variant.name, []);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next variant, so no variant always runs first.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const s of order) {
        s.resume();
        const c0 = await s.cpu();
        const r = autocannon(s.port, payload, SECONDS);
        const c1 = await s.cpu();
        s.pause();
        s.count.total += r.total;
        s.count.sent += r.sent;
        if (r.non2xx || r.errors || r.timeouts) console.log(`  ${load} ${s.variant.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
        trials.get(s.variant.name).push({ rps: r.rps, allUs: (c1.all - c0.all) / r.total, loopUs: (c1.loop - c0.loop) / r.total });
      }
      console.log(
        `  ${load.padEnd(9)} round ${String(round + 1).padStart(2)} (load ${loadavg()[0].toFixed(1)}): ${servers
          .map((s) => {
            const t = trials.get(s.variant.name).at(-1);
            return `${s.variant.name} ${t.rps.toFixed(0)} req/s ${t.allUs.toFixed(0)}/${t.loopUs.toFixed(0)} µs`;
          })
          .join(' | ')}`,
      );
    }
  } finally {
    for (const s of servers) await s.stop();
  }
  const a = trials.get('otel');
  for (const v of VARIANTS) {
    const t = trials.get(v.name);
    summary.push({
      load,
      v,
      rps: t.map((x) => x.rps),
      allUs: t.map((x) => x.allUs),
      loopUs: t.map((x) => x.loopUs),
      // Paired with (a)'s trial of the same round.
      dAll: t.map((x, k) => x.allUs - a[k].allUs),
      dLoop: t.map((x, k) => x.loopUs - a[k].loopUs),
      ratio: t.map((x, k) => x.rps / a[k].rps),
    });
  }
  for (const s of servers) {
    const au = s.audit();
    if (!au) {
      // A server with an audit store that did not report it (killed before its flush ended).
      if (load === 'all-error' && s.variant.mode === 'triage' && s.variant.omit !== 'audit') {
        checks.push(false);
        console.log(`  ${load} ${s.variant.name}: no AUDIT line (the server did not finish its flush) — CHECK FAILED`);
      }
      continue;
    }
    // Every request of the all-error load is an error: one row each, none dropped. A request
    // sent when a trial's time ran out may be answered (and stored) but not counted as answered.
    const ok = load !== 'all-error' || (au.dropped === 0 && au.failed === 0 && au.gaps === 0 && au.stored >= s.count.total && au.stored <= s.count.sent);
    checks.push(ok);
    console.log(
      `  ${load} ${s.variant.name}: audit store holds ${au.stored} rows; requests answered ${s.count.total}, sent ${s.count.sent}; written ${au.written}, dropped ${au.dropped}, failed ${au.failed}, gap rows for ${au.gaps}${load === 'all-error' ? (ok ? ' — stored = sent, dropped = 0: ok' : ' — CHECK FAILED') : ''}`,
    );
  }
}

console.log(`\nload avg at the end ${load1()}`);
console.log('medians over rounds [p25…p75] (min…max); Δ and ratio are paired with (a) in the same round\n');
for (const r of summary) {
  const isBase = r.v.name === 'otel';
  console.log(`${r.load} ${r.v.label}: ${median(r.rps).toFixed(0)} req/s; CPU per call ${median(r.allUs).toFixed(1)} µs all threads, ${median(r.loopUs).toFixed(1)} µs event loop`);
  if (isBase) continue;
  console.log(`    added CPU, all threads   ${spread(r.dAll)} µs/call`);
  console.log(`    added CPU, event loop    ${spread(r.dLoop)} µs/call`);
  console.log(`    added CPU, other threads ${spread(r.dAll.map((x, k) => x - r.dLoop[k]))} µs/call`);
  console.log(`    throughput b/a           ${spread(r.ratio, 3)}`);
}
if (checks.includes(false)) {
  console.log('\naudit check FAILED: see the lines above');
  process.exitCode = 1;
}
