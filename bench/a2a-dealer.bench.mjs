#!/usr/bin/env node
// Instrumentation overhead (issue 3 "Benchmark"): requests/s of an @a2a-js/sdk dealer serving
// inventory.search on loopback with (a) OpenTelemetry HTTP instrumentation only and (b) the same
// plus aap-triage, on a success-only load and an all-error load, in one run; prints b/a.
//   npm run build && node bench/a2a-dealer.bench.mjs [seconds=5] [rounds=8] [connections=10] [--breakdown]
// Per load, one long-lived server process per variant (bench/a2a-dealer-server.mjs) is started
// and warmed up; then trials alternate between them (a, b, a, b …) so that drift on a shared
// machine hits all alike, and the medians are reported. A server waits stopped (SIGSTOP) while
// another is measured; each round starts with the next variant. With taskset and ≥ 2 cores
// every server (with its audit worker thread) is pinned to CPU 0 and autocannon to CPU 1: a
// one-core dealer. --breakdown adds variants of (b) that each leave one part out through public
// options (call spans, metrics, audit store, log line). Record the printed figures in
// docs/benchmarks.md ("instrumentation overhead").
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = 'usage: node bench/a2a-dealer.bench.mjs [seconds=5] [rounds=8] [connections=10] [--breakdown]';
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
if (flags.includes('--help') || flags.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const badFlag = flags.find((f) => f !== '--breakdown');
const badArg = args.find((a) => !/^[1-9]\d{0,3}$/.test(a));
if (badFlag || badArg || args.length > 3) {
  console.error(`a2a-dealer bench: ${badFlag ? `unknown option ${badFlag}` : badArg ? `not a positive whole number: ${badArg}` : 'too many arguments'} — ${USAGE}`);
  process.exit(2);
}
const BREAKDOWN = flags.includes('--breakdown');
const SECONDS = Number(args[0] ?? 5);
const ROUNDS = Number(args[1] ?? 8);
const CONNECTIONS = Number(args[2] ?? 10);
const WARMUP_S = 3;
const TARGETS = { success: 0.95, 'all-error': 0.85 };
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
const LOADS = {
  success: body({}),
  'all-error': body({ failInHandler: 'VEHICLE_NOT_FOUND' }),
};

async function startServer(variant) {
  const [cmd, argv] = pin(0, process.execPath, [join(HERE, 'a2a-dealer-server.mjs'), variant.mode]);
  const env = { ...process.env, BENCH_OMIT: variant.omit ?? '', BENCH_DIR: WORK_DIR };
  const proc = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
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
  /** The server's CPU time so far, µs (all threads). */
  const cpu = async () => {
    const before = out.length;
    proc.kill('SIGUSR2');
    for (let i = 0; i < 200; i++) {
      const m = /CPU (\d+)/.exec(out.slice(before));
      if (m) return Number(m[1]);
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${variant.name} server did not report its CPU time`);
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
  return { variant, port, cpu, pause, resume, stop };
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
  return { rps: j.requests.average, total: j.requests.total, non2xx: j.non2xx, errors: j.errors, timeouts: j.timeouts };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`# a2a-dealer instrumentation overhead  ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(
  `cores: ${canPin ? 'servers pinned to CPU 0, autocannon to CPU 1 (taskset)' : 'not pinned'}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, then ${ROUNDS} rounds of ${SECONDS} s trials alternating ${VARIANTS.map((v) => v.name).join(', ')}`,
);
const summary = [];
for (const [load, payload] of Object.entries(LOADS)) {
  const servers = [];
  try {
    for (const v of VARIANTS) servers.push(await startServer(v));
    for (const s of servers) {
      autocannon(s.port, payload, WARMUP_S);
      s.pause();
    }
    const trials = new Map(servers.map((s) => [s.variant.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next variant, so no variant always runs first.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const s of order) {
        s.resume();
        const c0 = await s.cpu();
        const r = autocannon(s.port, payload, SECONDS);
        const c1 = await s.cpu();
        s.pause();
        if (r.non2xx || r.errors || r.timeouts) console.log(`  ${load} ${s.variant.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
        trials.get(s.variant.name).push({ rps: r.rps, cpuUs: (c1 - c0) / r.total });
      }
      console.log(`  ${load.padEnd(9)} round ${round + 1}: ${servers.map((s) => { const t = trials.get(s.variant.name).at(-1); return `${s.variant.name} ${t.rps.toFixed(0)} req/s ${t.cpuUs.toFixed(0)} µs`; }).join(' | ')}`);
    }
    const a = trials.get('otel');
    const base = { rps: median(a.map((t) => t.rps)), cpuUs: median(a.map((t) => t.cpuUs)) };
    for (const v of VARIANTS) {
      const t = trials.get(v.name);
      summary.push({ load, v, rps: median(t.map((x) => x.rps)), cpuUs: median(t.map((x) => x.cpuUs)), base });
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}

console.log('\nload       variant               req/s   CPU µs/req   b/a req/s   a/b CPU   target');
for (const r of summary) {
  const ratio = r.rps / r.base.rps;
  const target = r.v.name === 'triage' ? `≥ ${TARGETS[r.load]} ${ratio >= TARGETS[r.load] ? 'met' : 'MISSED'}` : '';
  const isBase = r.v.name === 'otel';
  console.log(
    `${r.load.padEnd(10)} ${r.v.label.padEnd(20)} ${r.rps.toFixed(0).padStart(6)}   ${r.cpuUs.toFixed(0).padStart(10)}   ${isBase ? '         ' : ratio.toFixed(3).padStart(9)}   ${isBase ? '       ' : (r.base.cpuUs / r.cpuUs).toFixed(3).padStart(7)}   ${target}`,
  );
}
