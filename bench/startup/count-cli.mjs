// Preload of bench/cli-startup.bench.mjs (`node --import ./count-cli.mjs bin/aap-triage.js …`):
// counts the distinct module files the command loads — ES modules seen by the loader hook of
// count-loader.mjs plus CommonJS modules in require.cache — and prints the number as the last
// line of stdout when the process exits.
import { writeSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const esm = new Set();
const channel = new MessageChannel();
channel.port1.on('message', (url) => esm.add(fileURLToPath(url)));
channel.port1.unref();
register('./count-loader.mjs', import.meta.url, { data: { port: channel.port2 }, transferList: [channel.port2] });
const require = createRequire(import.meta.url);
const preloaded = new Set(Object.keys(require.cache));
process.on('exit', () => {
  const cjs = Object.keys(require.cache).filter((f) => !preloaded.has(f));
  writeSync(1, `\n${new Set([...esm, ...cjs]).size}\n`);
});
