// What loading aap-triage costs a host (issue 13): `import('aap-triage')` over `import('@opentelemetry/api')` alone, and `node --import aap-triage/register` over importing `@opentelemetry/sdk-node` alone.
//
//   npm run build && node bench/startup.bench.mjs [rounds=12]
//
// Each round runs the four child processes in alternating order (A/B, then B/A), so drift in
// the machine's load hits both sides of a pair. Figures are medians over rounds of the paired
// differences, with the min–max spread, in wall time and in CPU time (user + system of the
// child, which a loaded machine distorts far less than wall time); module counts are deterministic and measured once, with
// a loader hook (the timed runs have none). Targets: import adds ≤ 30 ms (issue 31; 60 ms in
// issue 13) and ≤ 150 modules; register adds ≤ 150 ms of start-up (issue 13).
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const rounds = Math.max(1, Number(process.argv[2] ?? 12));
const root = fileURLToPath(new URL('..', import.meta.url));
const probe = fileURLToPath(new URL('./startup/probe.mjs', import.meta.url));
const main = fileURLToPath(new URL('./startup/main.mjs', import.meta.url));
// The register children start the SDK with no exporter and no audit database: start-up only.
const env = {
  PATH: process.env.PATH ?? '',
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  AAP_TRIAGE_DB: 'off',
};

function run(args) {
  const out = execFileSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (xs) => `${median(xs).toFixed(1)} ms (spread ${Math.min(...xs).toFixed(1)} … ${Math.max(...xs).toFixed(1)})`;

const importApi = () => run([probe, '@opentelemetry/api']);
const importAap = () => run([probe, 'aap-triage']);
const sdkAlone = () => run(['--import', '@opentelemetry/sdk-node', main]);
const register = () => run(['--import', 'aap-triage/register', main]);

const apiModules = run([probe, '@opentelemetry/api', '--count']).modules;
const aapModules = run([probe, 'aap-triage', '--count']).modules;

const importDiff = [];
const registerDiff = [];
const importCpu = [];
const registerCpu = [];
const raw = { api: [], aap: [], sdk: [], reg: [] };
for (let i = 0; i < rounds; i++) {
  const flip = i % 2 === 1;
  const [a, b] = flip ? [importAap(), importApi()].reverse() : [importApi(), importAap()];
  raw.api.push(a.ms);
  raw.aap.push(b.ms);
  importDiff.push(b.ms - a.ms);
  importCpu.push(b.cpu - a.cpu);
  const [s, r] = flip ? [register(), sdkAlone()].reverse() : [sdkAlone(), register()];
  raw.sdk.push(s.ms);
  raw.reg.push(r.ms);
  registerDiff.push(r.ms - s.ms);
  registerCpu.push(r.cpu - s.cpu);
}

console.log(`Node ${process.version}, ${rounds} rounds, alternating order`);
console.log(`import('@opentelemetry/api') alone:           ${fmt(raw.api)}, ${apiModules} modules`);
console.log(`import('aap-triage'):                          ${fmt(raw.aap)}, ${aapModules} modules`);
console.log(`  added by aap-triage (paired):                ${fmt(importDiff)}, ${aapModules - apiModules} modules   [target ≤ 30 ms, ≤ 150 modules]`);
console.log(`  CPU time added (paired):                     ${fmt(importCpu)}`);
console.log(`--import @opentelemetry/sdk-node, to main:     ${fmt(raw.sdk)}`);
console.log(`--import aap-triage/register, to main:         ${fmt(raw.reg)}`);
console.log(`  added by register (paired):                  ${fmt(registerDiff)}   [target ≤ 150 ms]`);
console.log(`  CPU time added (paired):                     ${fmt(registerCpu)}`);
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} CPUs`);
