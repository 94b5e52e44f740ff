// How fast the command line starts, whole process, against `node -e 0` in the same run (issue 31 "Start-up").
//
//   npm run build && node bench/cli-startup.bench.mjs [rounds=10]
//   (or: npm run bench -- cli-startup [rounds]; nothing to install: Node and Linux's /proc)
//
// Each round runs, in an order that alternates between rounds, `node -e 0` and `node
// bin/aap-triage.js` with `--version`, `--help`, `search --since 1h` and `show <id>` against a
// small SQLite store made up front (200 rows, in a temp folder removed at the end). A figure is
// the median over rounds of the paired difference to `node -e 0` of that round (wall time of the
// whole child process, spawn to exit), with the min–max spread, and the same for CPU time (user +
// system of the child: the growth of this process's cutime + cstime in /proc/self/stat across the
// spawnSync that waited for it, in clock ticks, 10 ms; not shown where /proc is absent). Targets: --version and --help
// ≤ node + 60 ms; search and show ≤ node + 150 ms. The module count of each command is measured
// once with a loader hook (the timed runs have none).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median } from './timing.mjs';

const rounds = Math.max(1, Number(process.argv[2] ?? 10));
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'aap-triage.js');
const dir = mkdtempSync(join(tmpdir(), 'aap-cli-startup-'));
const db = join(dir, 'audit.db');
const env = { PATH: process.env.PATH ?? '', AAP_TRIAGE_KEY: 'cli-startup-bench-key-0123456789abcdef', NO_COLOR: '1' };

try {
  // A small store, written by the real sink.
  const { openAuditSink } = await import(join(root, 'dist', 'audit', 'index.js'));
  const sink = openAuditSink({ path: db, service: 'bench', handleSignals: false, logger: { info() {}, warn() {}, error() {} } });
  const now = Date.now();
  let someId = '';
  for (let i = 0; i < 200; i++) {
    someId = `err_${(now + i).toString(16).padStart(12, '0')}7000800000000000${i.toString(16).padStart(4, '0')}`;
    sink.write({
      error_id: someId, occurred_at: now - i * 1000, trace_id: null, span_id: null, upstream_trace_id: null, service: 'bench', protocol: 'aap', protocol_version: '2.0',
      rpc_method: 'SendMessage', skill: 'inventory.search', code: 'SCHEMA_VALIDATION_FAILED', legacy_error: null, jsonrpc_code: -32602, http_status: 200, retryable: false,
      retry_after_ms: null, client: null, fingerprint: null, idempotency: null, subject: null, service_version: null, attempt: 1, retry_flags: [], violations: [], conformance: [],
      duration_ms: 1, key_id: null,
    });
  }
  await sink.close();

  const commands = {
    'node -e 0': [process.execPath, ['-e', '0']],
    '--version': [process.execPath, [bin, '--version']],
    '--help': [process.execPath, [bin, '--help']],
    search: [process.execPath, [bin, 'search', '--db', db, '--since', '1h', '--limit', '20']],
    show: [process.execPath, [bin, 'show', '--db', db, someId]],
  };
  // CPU time (user + system) of the waited-for children so far, ms, from /proc/self/stat (fields
  // 16 and 17, cutime and cstime, in clock ticks): a loaded machine distorts it far less than wall time.
  const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim() || 100);
  const childCpu = () => {
    try {
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
    } catch {
      return NaN;
    }
  };
  const runOnce = ([cmd, args]) => {
    const c0 = childCpu();
    const t = performance.now();
    const r = spawnSync(cmd, args, { env, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
    (cpu[args.join(' ')] ??= []).push(childCpu() - c0);
    return ms;
  };
  const cpu = {};
  const modules = (args) =>
    Number(
      execFileSync(process.execPath, ['--import', join(root, 'bench', 'startup', 'count-cli.mjs'), ...args], { env, cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .trim()
        .split('\n')
        .pop(),
    );

  const loadStart = loadavg();
  const names = Object.keys(commands);
  const raw = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const n of order) raw[n].push(runOnce(commands[n]));
  }
  const spread = (xs) => `${fmt(median(xs))} (spread ${fmt(Math.min(...xs))} … ${fmt(Math.max(...xs))})`;
  console.log(`Node ${process.version}, ${rounds} rounds, order alternating; whole process, spawn to exit`);
  console.log(`node -e 0:                 ${spread(raw['node -e 0'])}`);
  for (const n of names.slice(1)) {
    const diff = raw[n].map((ms, i) => ms - raw['node -e 0'][i]);
    const target = n.startsWith('--') ? 60 : 150;
    const cpuDiff = cpu[commands[n][1].join(' ')].map((ms, i) => ms - cpu['-e 0'][i]);
    const cpuCell = cpuDiff.every(Number.isFinite) ? `; CPU over node ${spread(cpuDiff)}` : '';
    console.log(`${`aap-triage ${n}:`.padEnd(26)} ${spread(raw[n])}; over node ${spread(diff)} [target ≤ ${target} ms]${cpuCell}; ${modules(commands[n][1])} modules`);
  }
  const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(`load average (1, 5, 15 min) at the start: ${load(loadStart)}, at the end: ${load(loadavg())}, on ${availableParallelism()} CPUs`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
