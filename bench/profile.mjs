#!/usr/bin/env node
// CPU profile of the benchmark dealer under one load (issue 14: "CPU profiles of both loads"):
// starts bench/a2a-dealer-server.mjs with `node --cpu-prof` (the event loop and the audit worker
// thread each write a profile), warms it up for 3 s and keeps only the samples taken during the
// measured load, pinned to CPU 0 as in bench/a2a-dealer.bench.mjs, loads it from
// CPU 1 with autocannon, stops it, and prints the largest self-time entries per thread, grouped
// by function and file, and the share of each package.
//   npm run build && node bench/profile.mjs [success|all-error] [seconds=5] [otel|triage] [top=15]
// The .cpuprofile files stay in the printed folder (open them in Chrome DevTools).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const [load = 'all-error', seconds = '5', mode = 'triage', top = '15'] = process.argv.slice(2);
const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const data = { type: 'inventory.search.request', filters: { make: 'Honda' }, ...(load === 'all-error' ? { failInHandler: 'VEHICLE_NOT_FOUND' } : {}) };
const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data, mediaType: 'application/json' }] } } });
const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;
const pin = (cpu, argv) => (canPin ? ['taskset', ['-c', String(cpu), ...argv]] : [argv[0], argv.slice(1)]);

const dir = mkdtempSync(join(tmpdir(), `aap-prof-${mode}-${load}-`));
const [cmd, argv] = pin(0, [process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, join(HERE, 'a2a-dealer-server.mjs'), mode]);
const server = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_DIR: dir } });
let out = '';
server.stdout.on('data', (c) => (out += c));
const closed = new Promise((resolve) => server.on('close', resolve));
while (!/PORT (\d+)/.test(out)) await new Promise((r) => setTimeout(r, 20));
const port = /PORT (\d+)/.exec(out)[1];
const autocannon = (s) => {
  const [acCmd, acArgv] = pin(1, [
    process.execPath, join(HERE, '..', 'node_modules', 'autocannon', 'autocannon.js'), '-j', '-c', '10', '-d', String(s), '-m', 'POST',
    '-H', 'content-type=application/json', '-H', 'A2A-Version=1.0', '-H', `A2A-Extensions=${EXTENSION_URI}`, '-b', payload, `http://127.0.0.1:${port}/a2a/jsonrpc`,
  ]);
  return JSON.parse(spawnSync(acCmd, acArgv, { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout);
};
autocannon(3); // warm-up: start-up, module loading and JIT stay out of the figures
// V8 stamps samples with the monotonic clock process.hrtime reads (µs), the same in every process.
const from = Number(process.hrtime.bigint() / 1000n);
const ac = autocannon(seconds);
const to = Number(process.hrtime.bigint() / 1000n);
server.kill('SIGTERM');
await closed;
console.log(`# ${mode}, ${load}: ${ac.requests.total} requests in ${seconds} s (${ac.requests.average} req/s); profiles in ${dir}; ${out.match(/AUDIT .*/)?.[0] ?? ''}`);

/** Package (or "ours", "node", "(program)/(gc)") a profile node's URL belongs to. */
function owner(url, name) {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/dist/')) return 'aap-triage';
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/bench/')) return 'bench';
  return url;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  let total = 0;
  let ts = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    ts += dt[i] ?? 0;
    if (ts < from || ts > to) continue;
    const n = byId.get(prof.samples[i]);
    const us = dt[i] ?? 0;
    total += us;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'}  ${f.url ? `${f.url.replace(/^.*\/(node_modules|dist|bench)\//, '$1/')}:${f.lineNumber + 1}` : ''}`;
    const e = self.get(key) ?? { us: 0, owner: owner(f.url, f.functionName) };
    e.us += us;
    self.set(key, e);
  }
  const owners = new Map();
  for (const e of self.values()) owners.set(e.owner, (owners.get(e.owner) ?? 0) + e.us);
  const idle = [...self.entries()].find(([k]) => k.startsWith('(idle)'))?.[1].us ?? 0;
  const busy = total - idle;
  console.log(`\n## ${file}: ${(busy / 1000).toFixed(0)} ms busy of ${(total / 1000).toFixed(0)} ms sampled; ${(busy / ac.requests.total).toFixed(1)} µs busy per request`);
  console.log('by owner (self time, % of busy):');
  for (const [o, us] of [...owners].filter(([o]) => o !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)} %  ${(us / ac.requests.total).toFixed(1).padStart(6)} µs/req  ${o}`);
  const list = (title, pick) => {
    console.log(title);
    for (const [k, e] of [...self].filter(pick).sort((a, b) => b[1].us - a[1].us).slice(0, Number(top))) {
      console.log(`  ${((e.us / busy) * 100).toFixed(1).padStart(5)} %  ${(e.us / ac.requests.total).toFixed(1).padStart(6)} µs/req  ${k}`);
    }
  };
  list(`top ${top} functions (self):`, ([k]) => !k.startsWith('(idle)'));
  list(`top ${top} functions of aap-triage (self):`, ([, e]) => e.owner === 'aap-triage');
  // Inclusive: a sample counts for aap-triage when any frame of its stack is ours (the OTel SDK,
  // crypto and Buffer work our code calls included), charged to the innermost of our frames and
  // the leaf's package. The taps' pass-through frames (wrapped end, emit, next) also carry the
  // host's own work below them: read those rows as the host's.
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const entries = new Map();
  let ours = 0;
  ts = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    ts += dt[i] ?? 0;
    if (ts < from || ts > to) continue;
    const leaf = byId.get(prof.samples[i]);
    let outer = null;
    for (let n = leaf; n && !outer; n = parent.get(n.id)) if (owner(n.callFrame.url, n.callFrame.functionName) === 'aap-triage') outer = n;
    if (!outer) continue;
    const us = dt[i] ?? 0;
    ours += us;
    const f = outer.callFrame;
    const key = `${f.functionName || '(anonymous)'}  ${f.url.replace(/^.*\/dist\//, 'dist/')}:${f.lineNumber + 1} → ${owner(leaf.callFrame.url, leaf.callFrame.functionName)}`;
    entries.set(key, (entries.get(key) ?? 0) + us);
  }
  if (ours === 0) continue;
  console.log(`aap-triage inclusive: ${(ours / ac.requests.total).toFixed(1)} µs/req (${((ours / busy) * 100).toFixed(1)} % of busy; GC not included); by entry frame → leaf package:`);
  for (const [k, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)} %  ${(us / ac.requests.total).toFixed(1).padStart(6)} µs/req  ${k}`);
}
