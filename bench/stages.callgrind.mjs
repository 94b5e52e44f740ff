#!/usr/bin/env node
// Instructions per exchange of each stage of the instrumentation (issue 26): pair, complete,
// record and every sink, over recorded exchanges, each with a figure that does not move with the
// machine. bench/stages-runner.mjs runs under `valgrind --tool=callgrind --separate-threads=yes`
// with Node in its deterministic mode (`--predictable`); per kind of exchange it warms every stage
// up on n distinct exchanges just before counting it over n more (its input is the previous
// stage's output, kept on each exchange). Counting is switched on only around a stage's window
// (callgrind_control -i on / --dump / -i off), after a full collection so a window pays
// allocates into an empty young generation large enough (`--max-semi-space-size=128`) that no
// collection runs inside it: the figures are the stages' own work and allocation, not the cost
// of collecting outputs this bench keeps alive and a server would drop (`--no-flush-bytecode`:
// the collections would otherwise drop the bytecode of stages idle since their warm-up). Prints instructions per exchange on the
// event-loop thread and on all threads (the audit stage's window includes the writer thread's
// commit). A run of the four kinds at n = 2000 takes a few minutes.
//   npm run build && node bench/stages.callgrind.mjs [n=2000] [--kind=success|aap-error|dmc12-error|batch]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = 'usage: node bench/stages.callgrind.mjs [n=2000] [--kind=success|aap-error|dmc12-error|batch]';
const KINDS = ['success', 'aap-error', 'dmc12-error', 'batch'];
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const flags = argv.filter((a) => a.startsWith('-'));
const args = argv.filter((a) => !a.startsWith('-'));
const bad = flags.find((f) => !new RegExp(`^--kind=(${KINDS.join('|')})$`).test(f)) ?? (args.length > 1 || (args[0] !== undefined && !/^[1-9]\d{0,5}$/.test(args[0])) ? args.join(' ') : undefined);
if (bad !== undefined) {
  console.error(`stages callgrind: bad argument ${bad} — ${USAGE}`);
  process.exit(2);
}
if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('stages callgrind: valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}
const N = Number(args[0] ?? 2000);
const only = flags.find((f) => f.startsWith('--kind='))?.slice('--kind='.length);
const WORK = mkdtempSync(join(tmpdir(), 'aap-stages-cg-'));
const live = new Set();
const cleanup = () => {
  for (const p of live) p.kill('SIGKILL');
  rmSync(WORK, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => process.exit(130));

/** Instructions of one dump: the event-loop thread (thread 1) and all threads. */
function readDump(prefix, tag) {
  let loop = 0;
  let all = 0;
  for (const f of readdirSync(WORK).filter((n) => n.startsWith(prefix))) {
    const text = readFileSync(join(WORK, f), 'utf8');
    if (!text.includes(`Trigger: Client Request: ${tag}`) && !new RegExp(`desc: Trigger:.*${tag}`).test(text)) continue;
    const total = Number(/^totals:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    all += total;
    if (/^thread:\s*1$/m.test(text)) loop += total;
  }
  return { loop, all };
}

async function measureKind(kind) {
  const base = join(WORK, `${kind}.out`);
  const proc = spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--instr-atstart=no', `--callgrind-out-file=${base}.%p`, process.execPath, '--predictable', '--expose-gc', '--no-flush-bytecode', '--max-semi-space-size=128', join(HERE, 'stages-runner.mjs'), kind, String(N)], { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(proc);
  proc.stderr.on('data', () => {});
  const lines = createInterface({ input: proc.stdout });
  const waiting = [];
  lines.on('line', (l) => waiting.shift()?.(l));
  const next = () => new Promise((r) => waiting.push(r));
  const ready = await next();
  const stages = ready.split(' ').slice(2);
  const out = {};
  for (const stage of stages) {
    proc.stdin.write(`warm ${stage}\n`);
    await next();
    proc.stdin.write('gc\n');
    await next();
    spawnSync('callgrind_control', ['-z', String(proc.pid)]);
    spawnSync('callgrind_control', ['-i', 'on', String(proc.pid)]);
    proc.stdin.write(`run ${stage}\n`);
    await next();
    spawnSync('callgrind_control', [`--dump=${stage}`, String(proc.pid)]);
    spawnSync('callgrind_control', ['-i', 'off', String(proc.pid)]);
    out[stage] = readDump(`${kind}.out.${proc.pid}`, stage);
  }
  proc.stdin.write('quit\n');
  await new Promise((r) => proc.on('close', r));
  live.delete(proc);
  return out;
}

console.log(`# instrumentation stages, instructions per exchange (callgrind, node --predictable)  ${new Date().toISOString()}`);
console.log(`node ${process.version}; ${N} warm-up exchanges, then ${N} counted exchanges per stage; k = 1000 instructions`);
console.log(`${'exchange'.padEnd(12)} ${'stage'.padEnd(9)} ${'event loop'.padStart(11)} ${'all threads'.padStart(12)}`);
for (const kind of KINDS.filter((k) => !only || k === only)) {
  const out = await measureKind(kind);
  // The empty window (handshake, loop) is subtracted from every stage.
  const none = out.none ?? { loop: 0, all: 0 };
  delete out.none;
  let loop = 0;
  let all = 0;
  for (const [stage, raw] of Object.entries(out)) {
    const v = { loop: raw.loop - none.loop, all: raw.all - none.all };
    loop += v.loop;
    all += v.all;
    console.log(`${kind.padEnd(12)} ${stage.padEnd(9)} ${(v.loop / N / 1000).toFixed(1).padStart(10)}k ${(v.all / N / 1000).toFixed(1).padStart(11)}k`);
  }
  console.log(`${kind.padEnd(12)} ${'total'.padEnd(9)} ${(loop / N / 1000).toFixed(1).padStart(10)}k ${(all / N / 1000).toFixed(1).padStart(11)}k`);
}
