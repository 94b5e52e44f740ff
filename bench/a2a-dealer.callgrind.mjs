#!/usr/bin/env node
// Exact per-call cost of the instrumentation (issue 14), as instructions: the same dealer as
// bench/a2a-dealer.bench.mjs (bench/a2a-dealer-server.mjs) run under `valgrind --tool=callgrind`,
// which counts the instructions of all the server's threads (event loop, audit worker, GC
// helpers) whatever else the machine does. Per variant and load: start the server with
// instrumentation off, warm it up with WARMUP requests, switch it on (callgrind_control -i on),
// send CALLS requests from autocannon (10 connections), dump the counts and read the total. The
// figure is instructions per call; the difference to (a) is what aap-triage adds. Variants run
// one after the other (counts do not drift with load); under valgrind a call takes ~50× longer,
// so a run takes minutes.
//   npm run build && node bench/a2a-dealer.callgrind.mjs [calls=1000] [--breakdown] [--keep] [--load=success|all-error]
// --keep leaves the dumps: `callgrind_annotate` of two of them, side by side, shows where the
// added instructions go among V8's builtins, runtime and GC, libuv and OpenSSL (JIT-compiled
// JavaScript shows as one "???" entry).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = 'usage: node bench/a2a-dealer.callgrind.mjs [calls=1000] [--breakdown] [--keep] [--load=success|all-error]';
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const badFlag = flags.find((f) => f !== '--breakdown' && f !== '--keep' && !/^--load=(success|all-error)$/.test(f));
if (badFlag || args.length > 1 || (args[0] !== undefined && !/^[1-9]\d{0,5}$/.test(args[0]))) {
  console.error(`a2a-dealer callgrind: ${badFlag ? `unknown option ${badFlag}` : 'bad arguments'} — ${USAGE}`);
  process.exit(2);
}
if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('a2a-dealer callgrind: valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}
const CALLS = Number(args[0] ?? 1000);
const WARMUP = 10_000;
/** Fewer sources of run-to-run drift: GC work on the main thread only, at the same points. */
const NODE_FLAGS = ['--single-threaded-gc'];
const ONLY_LOAD = flags.find((f) => f.startsWith('--load='))?.slice('--load='.length);
const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const VARIANTS = [
  { name: 'otel', mode: 'otel' },
  { name: 'triage', mode: 'triage' },
  ...(flags.includes('--breakdown') ? ['spans', 'metrics', 'audit', 'log'].map((part) => ({ name: `-${part}`, mode: 'triage', omit: part })) : []),
];
const body = (data) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, ...data }, mediaType: 'application/json' }] } },
  });
const LOADS = Object.entries({ success: body({}), 'all-error': body({ failInHandler: 'VEHICLE_NOT_FOUND' }) }).filter(([l]) => !ONLY_LOAD || l === ONLY_LOAD);
const KEEP = flags.includes('--keep');
const WORK = mkdtempSync(join(tmpdir(), 'aap-callgrind-'));
const live = new Set();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
  if (KEEP) console.log(`callgrind dumps kept in ${WORK} (callgrind_annotate <file>)`);
  else rmSync(WORK, { recursive: true, force: true });
});

function autocannon(port, payload, amount) {
  const ac = join(HERE, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const r = spawnSync(process.execPath, [ac, '-j', '-c', '10', '-a', String(amount), '-t', '120', '-m', 'POST',
    '-H', 'content-type=application/json', '-H', 'A2A-Version=1.0', '-H', `A2A-Extensions=${EXTENSION_URI}`,
    '-b', payload, `http://127.0.0.1:${port}/a2a/jsonrpc`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const j = JSON.parse(r.stdout);
  if (j.errors || j.timeouts || j.requests.total !== amount) throw new Error(`autocannon: ${j.requests.total}/${amount} answered, ${j.errors} errors, ${j.timeouts} timeouts`);
}

/** Instructions per call of one variant under one load. */
async function measure(variant, payload, tag) {
  const out = join(WORK, `${tag}.%p`);
  const proc = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, ...NODE_FLAGS, join(HERE, 'a2a-dealer-server.mjs'), variant.mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_OMIT: variant.omit ?? '', BENCH_DIR: WORK },
  });
  live.add(proc);
  const closed = new Promise((r) => proc.on('close', r));
  let text = '';
  proc.stdout.on('data', (c) => (text += c));
  proc.stderr.on('data', () => {});
  for (let i = 0; !/PORT (\d+)/.test(text); i++) {
    if (i > 1200) throw new Error(`${variant.name}: the server did not start under valgrind within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const port = Number(/PORT (\d+)/.exec(text)[1]);
  autocannon(port, payload, WARMUP);
  spawnSync('callgrind_control', ['-i', 'on', String(proc.pid)]);
  autocannon(port, payload, CALLS);
  spawnSync('callgrind_control', ['--dump=measured', String(proc.pid)]);
  spawnSync('callgrind_control', ['-i', 'off', String(proc.pid)]);
  proc.kill('SIGTERM');
  await closed;
  live.delete(proc);
  let total = 0;
  // The dump asked for right after the counted calls (the one at exit counts the shutdown too).
  for (const f of readdirSync(WORK).filter((n) => n.startsWith(`${tag}.`))) {
    const text = readFileSync(join(WORK, f), 'utf8');
    const m = /^totals:\s+(\d+)/m.exec(text);
    if (m && text.includes('measured')) total += Number(m[1]);
  }
  return total / CALLS;
}

console.log(`# a2a-dealer instructions per call (valgrind callgrind, all threads)  ${new Date().toISOString()}`);
console.log(`node ${process.version}; ${WARMUP} warm-up calls, then ${CALLS} counted calls per variant, 10 connections`);
for (const [load, payload] of LOADS) {
  const base = await measure(VARIANTS[0], payload, `${load}-otel`);
  console.log(`${load.padEnd(9)} otel    ${(base / 1000).toFixed(1)} k instructions/call`);
  for (const v of VARIANTS.slice(1)) {
    const n = await measure(v, payload, `${load}${v.name}`);
    console.log(`${load.padEnd(9)} ${v.name.padEnd(7)} ${(n / 1000).toFixed(1)} k instructions/call  (+${((n - base) / 1000).toFixed(1)} k, ×${(n / base).toFixed(3)})`);
  }
}
