// Child of bench/startup.bench.mjs. `node bench/startup/probe.mjs <specifier>... [--count]`:
// imports each specifier in turn and prints one JSON line { ms, cpu, modules }: the wall time
// the imports took (ms, performance.now), the CPU time they used (ms, user + system, every
// thread of the process) and, with --count, the distinct module files loaded (ES modules
// seen by a loader hook plus CommonJS modules in require.cache), else null.
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const count = args.includes('--count');
const specifiers = args.filter((a) => a !== '--count');
const esm = new Set();
let port;
if (count) {
  const channel = new MessageChannel();
  port = channel.port1;
  port.on('message', (url) => esm.add(fileURLToPath(url)));
  port.unref();
  register('./count-loader.mjs', import.meta.url, { data: { port: channel.port2 }, transferList: [channel.port2] });
}
const require = createRequire(import.meta.url);
const before = count ? new Set(Object.keys(require.cache)) : null;
const t0 = performance.now();
const c0 = process.cpuUsage();
for (const s of specifiers) await import(s);
const ms = performance.now() - t0;
const c1 = process.cpuUsage(c0);
const cpu = (c1.user + c1.system) / 1000;
let modules = null;
if (count) {
  // Let the hook thread's last messages arrive.
  await new Promise((r) => setTimeout(r, 100));
  const all = new Set([...esm, ...Object.keys(require.cache).filter((k) => !before.has(k))]);
  all.delete(fileURLToPath(import.meta.url));
  modules = all.size;
  if (process.env.PROBE_LIST) for (const f of [...all].sort()) console.error(f);
}
console.log(JSON.stringify({ ms, cpu, modules }));
