#!/usr/bin/env node
// Instrumentation overhead (issue 3 "Benchmark"): requests/s of an @a2a-js/sdk dealer serving
// inventory.search on loopback with (a) OpenTelemetry HTTP instrumentation only and (b) the same
// plus aap-triage, on a success-only load and an all-error load, in one run; prints b/a.
// Server and load generator are separate processes; with taskset available and ≥ 2 cores the
// server is pinned to CPU 0 and autocannon to CPU 1 (the server's audit worker thread shares
// CPU 0 with it). Imports dist/: run it as
//   npm run build && node bench/a2a-dealer.bench.mjs [seconds=10] [rounds=2] [connections=10]
// Rounds alternate a, b per load so drift hits both; the medians are reported. Record the
// printed figures in docs/benchmarks.md ("instrumentation overhead").
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 2);
const CONNECTIONS = Number(process.argv[4] ?? 10);
const WARMUP_S = 3;
const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;
const pin = (cpu, cmd, args) => (canPin ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args]);

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

async function startServer(mode) {
  const [cmd, args] = pin(0, process.execPath, [join(HERE, 'a2a-dealer-server.mjs'), mode]);
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('server did not start')), 20_000);
    const check = () => {
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      } else setTimeout(check, 20);
    };
    check();
  });
  const cpu = async () => {
    const before = out.length;
    proc.kill('SIGUSR2');
    for (let i = 0; i < 200; i++) {
      const m = /CPU (\d+)/.exec(out.slice(before));
      if (m) return Number(m[1]);
      await new Promise((r) => setTimeout(r, 10));
    }
    return NaN;
  };
  return { proc, port, cpu };
}

function autocannon(port, payload, seconds) {
  const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
  const ac = join(HERE, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const [cmd, args] = pin(1, process.execPath, [
    ac, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), '-m', 'POST',
    '-H', 'content-type=application/json', '-H', 'A2A-Version=1.0', '-H', `A2A-Extensions=${EXTENSION_URI}`,
    '-b', payload, url,
  ]);
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const j = JSON.parse(r.stdout);
  return { rps: j.requests.average, total: j.requests.total, p99: j.latency.p99, non2xx: j.non2xx, errors: j.errors };
}

async function measure(mode, load) {
  const { proc, port, cpu } = await startServer(mode);
  try {
    autocannon(port, LOADS[load], WARMUP_S);
    const c0 = await cpu();
    const r = autocannon(port, LOADS[load], SECONDS);
    const c1 = await cpu();
    return { ...r, cpuUs: (c1 - c0) / r.total };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`# a2a-dealer instrumentation overhead  ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`cores: ${canPin ? 'server pinned to CPU 0, autocannon to CPU 1 (taskset)' : 'not pinned'}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${SECONDS} s per trial, ${ROUNDS} rounds`);
const results = {};
for (const load of Object.keys(LOADS)) {
  results[load] = { otel: [], triage: [], otelCpu: [], triageCpu: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['otel', 'triage']) {
      const r = await measure(mode, load);
      results[load][mode].push(r.rps);
      results[load][`${mode}Cpu`].push(r.cpuUs);
      console.log(`  ${load.padEnd(9)} ${mode.padEnd(6)} round ${round + 1}: ${r.rps.toFixed(0)} req/s, server CPU ${r.cpuUs.toFixed(0)} µs/req, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    }
  }
}
console.log('\nload       (a) otel req/s  (b) +aap-triage req/s  b/a    target   | CPU µs/req a   b   a/b');
for (const [load, r] of Object.entries(results)) {
  const a = median(r.otel);
  const b = median(r.triage);
  const ca = median(r.otelCpu);
  const cb = median(r.triageCpu);
  const target = load === 'success' ? 0.95 : 0.85;
  console.log(
    `${load.padEnd(10)} ${a.toFixed(0).padStart(14)}  ${b.toFixed(0).padStart(21)}  ${(b / a).toFixed(3)}  ≥ ${target} ${b / a >= target ? 'met   ' : 'MISSED'} | ${ca.toFixed(0).padStart(6)} ${cb.toFixed(0).padStart(4)}  ${(ca / cb).toFixed(3)}`,
  );
}
