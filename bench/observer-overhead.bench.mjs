#!/usr/bin/env node
// Server CPU per request of the same @a2a-js/sdk dealer with and without aap-triage, both
// behind the OpenTelemetry HTTP instrumentation, in ONE server process (same JIT, heap and
// neighbours), loaded by autocannon in a separate process; trials alternate A, B, A, B … and the
// medians are reported. Complements bench/a2a-dealer.bench.mjs (separate processes, req/s):
// CPU µs per request is far less sensitive to other load on the machine than req/s.
//   npm run build && node bench/observer-overhead.bench.mjs [trials=8] [seconds=3] [audit=on|off]
// With ≥ 2 cores and taskset, the server is pinned to CPU 0 and autocannon to CPU 1.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const TRIALS = Number(process.argv[2] ?? 8);
const SECONDS = Number(process.argv[3] ?? 3);
const AUDIT = (process.argv[4] ?? 'on') === 'on';
const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;
if (canPin && !process.env.AAP_BENCH_PINNED) {
  // Re-exec pinned to CPU 0 (the audit worker thread inherits the affinity).
  const r = spawnSync('taskset', ['-c', '0', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, AAP_BENCH_PINNED: '1' } });
  process.exit(r.status ?? 1);
}

const { NodeSDK } = await import('@opentelemetry/sdk-node');
const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
const discard = { export: (_s, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} };
const sdk = new NodeSDK({ spanProcessors: [new BatchSpanProcessor(discard)], instrumentations: [new HttpInstrumentation()], metricReaders: [] });
sdk.start();
const { default: express } = await import('express');
const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
const { UserBuilder, jsonRpcHandler } = await import('@a2a-js/sdk/server/express');
const { createTriage } = await import('../dist/instrument/index.js');
const protocol = await import('../dist/protocol/index.js');
const AapError = protocol.AapError ?? (await import('../dist/protocol/aap-error.js')).AapError;
const { pino } = await import('pino');
const { spawn } = await import('node:child_process');

const URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const VEHICLES = Array.from({ length: 5 }, (_, i) => ({ vin: `1HGCM82633A00${String(i).padStart(4, '0')}`, year: 2020 + i, make: 'Honda', model: 'Accord', price: 24000 + i * 1000 }));
class Executor {
  async execute(ctx, bus) {
    bus.publish(AgentEvent.message({ messageId: randomUUID(), contextId: ctx.contextId, taskId: '', role: 2, parts: [{ content: { $case: 'data', value: { type: 'inventory.search.response', vehicles: VEHICLES } }, metadata: undefined, filename: '', mediaType: 'application/json' }], metadata: undefined, extensions: [], referenceTaskIds: [] }));
    bus.finished();
  }
  async cancelTask() {}
}
class Handler extends DefaultRequestHandler {
  async sendMessage(params, context) {
    const c = params.message?.parts?.[0]?.content;
    if (c?.$case === 'data' && c.value?.failInHandler) throw new AapError(c.value.failInHandler, 'No vehicle matches the supplied identifiers.');
    return super.sendMessage(params, context);
  }
}
async function dealer(withTriage) {
  const app = express();
  const server = await new Promise((r) => { const s = app.listen(0, '127.0.0.1', () => r(s)); });
  const url = `http://127.0.0.1:${server.address().port}/a2a/jsonrpc`;
  const card = { name: 'Bench', description: 'bench', supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], provider: undefined, version: '1', capabilities: { streaming: false, pushNotifications: false, extensions: [{ uri: URI, description: 'AAP', required: true, params: undefined }] }, securitySchemes: {}, securityRequirements: [], defaultInputModes: ['application/json'], defaultOutputModes: ['application/json'], skills: [], signatures: [] };
  let triage = null;
  if (withTriage) {
    triage = createTriage({ serviceName: 'bench', auditDb: AUDIT ? join(mkdtempSync(join(tmpdir(), 'aap-obs-')), 'a.db') : false, logger: pino(pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 })) });
    app.use(triage.middleware());
  }
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: new Handler(card, new InMemoryTaskStore(), new Executor()), userBuilder: UserBuilder.noAuthentication }));
  return { url, server, triage };
}

const body = (extra) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, ...extra }, mediaType: 'application/json' }] } } });
const LOADS = { success: body({}), 'all-error': body({ failInHandler: 'VEHICLE_NOT_FOUND' }) };

function load(url, payload, seconds) {
  const ac = join(HERE, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const args = [ac, '-j', '-c', '10', '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-H', 'A2A-Version=1.0', '-H', `A2A-Extensions=${URI}`, '-b', payload, url];
  const [cmd, a] = canPin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve) => {
    const p = spawn(cmd, a, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('exit', () => resolve(JSON.parse(out).requests.total));
  });
}
async function trial(url, payload) {
  const c0 = process.cpuUsage();
  const n = await load(url, payload, SECONDS);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

const A = await dealer(false);
const B = await dealer(true);
console.log(`# observer overhead (server CPU per request)  ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${canPin ? 'server on CPU 0, autocannon on CPU 1' : 'not pinned'}; audit ${AUDIT ? 'on (SQLite worker thread)' : 'off'}; ${TRIALS} trials × ${SECONDS} s per side, 10 connections`);
for (const [name, payload] of Object.entries(LOADS)) {
  await load(A.url, payload, 2);
  await load(B.url, payload, 2);
  const a = [];
  const b = [];
  for (let i = 0; i < TRIALS; i++) {
    a.push(await trial(A.url, payload));
    b.push(await trial(B.url, payload));
  }
  const ma = median(a);
  const mb = median(b);
  console.log(`${name.padEnd(10)} otel-only ${ma.toFixed(0)} µs/req   +aap-triage ${mb.toFixed(0)} µs/req   overhead ${(mb - ma).toFixed(0)} µs/req   CPU-bound throughput ratio b/a ≈ ${(ma / mb).toFixed(3)}`);
}
await B.triage?.shutdown();
A.server.close();
B.server.close();
await sdk.shutdown();
process.exit(0);
