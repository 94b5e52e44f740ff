#!/usr/bin/env node
// The process bench/stages.callgrind.mjs runs under valgrind: the instrumentation's stages, one
// at a time, over recorded exchanges, so each stage has an instruction count of its own (issue 26).
// Run by hand for a timed look (no valgrind): `npm run build && node bench/stages-runner.mjs --timed [kind] [n]`.
//
// Recorded exchanges (`kind`): `success` (an AAP inventory.search answered), `aap-error` (an
// AapError thrown in the handler that @a2a-js/sdk flattened to -32603, repaired into the AAP 2.0
// envelope), `dmc12-error` (a DMC-12 result error), `batch` (ten DMC-12 calls, four of them errors).
// Every iteration is a distinct call (its own parameter value and id), as a server sees them.
//
// Stages, each run over n exchanges in one window: `complete` (scan, parse, classify and repair
// the response body, splice it: what runs before the bytes leave), `pair`, `record` (one record
// per call: bounded values, pseudonyms, the retry tracker), then each sink on those records:
// `span`, `metrics`, `log`, `traffic`, `audit` (the row handed to the real SQLite writer; the
// window ends when the writer has committed it, so the worker's inserts count on all threads).
// The OpenTelemetry SDK is real (batch span and log processors, a metric reader) with discarding
// exporters and long intervals; spans are started before the window, as the HTTP instrumentation does.
//
// Protocol with the driver (stdin/stdout lines): the runner prints `ready <kind> <stages…>`; the
// driver writes, for each stage, `warm <stage>` (the stage on the warm-up set, just before),
// `gc`, then `run <stage>`, turning counting on before and off after
// the runner's `done <stage>`; `quit` ends it.
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace, metrics } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { LoggerProvider, BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { pino } from 'pino';

const KINDS = ['success', 'aap-error', 'dmc12-error', 'batch'];
/** `none` runs an empty loop: the window's own cost (the handshake, the loop), which the driver subtracts. */
const STAGES = ['none', 'complete', 'pair', 'record', 'span', 'metrics', 'log', 'traffic', 'audit'];
const argv = process.argv.slice(2);
const timed = argv.includes('--timed');
const [kind = 'aap-error', nArg = '2000'] = argv.filter((a) => !a.startsWith('--'));
const N = Number(nArg);
if (!KINDS.includes(kind) || !Number.isInteger(N) || N < 1) {
  console.error(`stages-runner: usage: node bench/stages-runner.mjs [--timed] [${KINDS.join('|')}] [n]`);
  process.exit(2);
}

const discard = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} };
// Batches exported by count, never by timer: under valgrind a call is ~50x slower, so timer work
// would be charged to whichever window it fell in.
const BATCHING = { scheduledDelayMillis: 3_600_000, maxQueueSize: 65_536, maxExportBatchSize: 512 };
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discard, BATCHING)] });
trace.setGlobalTracerProvider(tracerProvider);
const meterProvider = new MeterProvider({
  readers: [new PeriodicExportingMetricReader({ exporter: { ...discard, selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE }, exportIntervalMillis: 3_600_000 })],
});
metrics.setGlobalMeterProvider(meterProvider);
const loggerProvider = new LoggerProvider({ processors: [new BatchLogRecordProcessor({ exporter: discard, ...BATCHING })] });
logs.setGlobalLoggerProvider(loggerProvider);

const { checkOptions } = await import('../dist/instrument/options.js');
const { createCore } = await import('../dist/instrument/core.js');
const { completeBody } = await import('../dist/instrument/exchange/complete.js');
const { pair } = await import('../dist/instrument/exchange/pair.js');
const { record } = await import('../dist/instrument/exchange/record.js');
const { callStates } = await import('../dist/instrument/exchange/exchange-utils.js');
const { SINKS } = await import('../dist/instrument/sinks/index.js');
const { ExchangeErrors } = await import('../dist/instrument/taps/aap-error-hook.js');
const { openAuditSink, createPseudonymizer } = await import('../dist/audit/index.js');
const { AapError } = await import('../dist/protocol/aap-error.js');

const dir = mkdtempSync(join(tmpdir(), 'aap-stages-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const auditSink = openAuditSink({ path: join(dir, 'audit.db'), service: 'bench-dealer', flushIntervalMs: 3_600_000, batchSize: 500, queueLimit: 100_000, handleSignals: false });
const settings = checkOptions({
  serviceName: 'bench-dealer',
  auditSink,
  pseudonymizer: createPseudonymizer('bench-secret-0123456789abcdef0123456789'),
  logger: pino(pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 })),
});
const { core } = createCore(settings, { tracerProvider, meterProvider });
const tracer = tracerProvider.getTracer('bench-http');
const sinks = new Map(SINKS.map(([k, s]) => [k === 'audit-write' ? 'audit' : k, s]));
const EXTENSION = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';

/** One recorded exchange, made distinct by `i`: the parsed request body, the response text, an AapError store. */
function exchange(i) {
  const sendMessage = (data) => ({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', ...data }, mediaType: 'application/json' }] } } });
  const toolsCall = (id, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_reservation', arguments: args } });
  const dmcError = (id) => ({ jsonrpc: '2.0', id, result: { data: { error: 'reservation_conflict', error_code: 'RESERVATION_CONFLICT', retryable: false, error_id: `err_0192f0c1a2b37c4d8e9f${String(id).padStart(12, '0')}`, message: 'VIN already reserved.' }, _metadata: { trace_id: `trc_${String(id).padStart(32, '0')}` } } });
  const dmcOk = (id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'reserved' }], data: { reservation_id: `r-${id}` } } });
  switch (kind) {
    case 'success': {
      const vehicles = Array.from({ length: 5 }, (_, k) => ({ vin: `1HGCM82633A00${String(k).padStart(4, '0')}`, year: 2020 + k, make: 'Honda', model: 'Accord', price: 24000 + k }));
      const result = { message: { messageId: `r-${i}`, role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response', vehicles }, mediaType: 'application/json' }] } };
      return { body: sendMessage({ filters: { make: 'Honda', year: 2000 + (i % 25), zip: String(10000 + i) } }), text: JSON.stringify({ jsonrpc: '2.0', id: i, result }), errors: null, status: 200 };
    }
    case 'aap-error': {
      const errors = new ExchangeErrors();
      const err = new AapError('VEHICLE_NOT_FOUND', 'No vehicle matches the supplied identifiers.');
      errors.add(err);
      return { body: sendMessage({ vin: `1HGCM82633A${String(i).padStart(6, '0')}` }), text: JSON.stringify({ jsonrpc: '2.0', id: i, error: { code: -32603, message: err.message } }), errors, status: 200 };
    }
    case 'dmc12-error':
      return { body: toolsCall(i, { vin: `1HGCM82633A${String(i).padStart(6, '0')}` }), text: JSON.stringify(dmcError(i)), errors: null, status: 200 };
    default: {
      const ids = Array.from({ length: 10 }, (_, k) => i * 10 + k);
      return { body: ids.map((id) => toolsCall(id, { vin: `1HGCM82633A${String(id).padStart(6, '0')}` })), text: JSON.stringify(ids.map((id, k) => (k % 5 < 2 ? dmcError(id) : dmcOk(id)))), errors: null, status: 200 };
    }
  }
}

/** n distinct exchanges, their calls classified as the exchange does before the response. */
function prepare(from) {
  return Array.from({ length: N }, (_, k) => {
    const x = exchange(from + k);
    const { calls } = callStates(x.body, settings.knownMethods, !Array.isArray(x.body));
    return { ...x, calls, answers: [], paired: null, records: null, spans: null };
  });
}

const T0 = Date.now();
const ctxFor = (x) => ({ store: x.errors, aapForm: '2.0', endpointForm: null, requiredExtensionUri: EXTENSION, traceId: null, mayRewrite: true, now: new Date(T0) });
const facts = (x) => ({ startedAt: T0, endedAt: T0 + 3, httpStatus: x.status, client: 'bench-client', attemptHeader: null, seen: x.calls.length > 1 ? new Map() : null });

/** Each stage over a set, its output kept on the exchange for the next stage. */
const RUN = {
  none(set) {
    for (const x of set) if (x === null) throw new Error('unreachable');
  },
  complete(set) {
    for (const x of set) x.answers = [];
    for (const x of set) completeBody(x.text, settings.maxBodyBytes, ctxFor(x), (id) => ({ call: (x.calls.find((c) => c.call.id === id) ?? x.calls[0]).call, traceId: null, audited: true }), x.answers);
  },
  pair(set) {
    for (const x of set) x.paired = pair(x.calls, x.answers, { status: x.status, batch: x.calls.length > 1, post: true });
  },
  record(set) {
    for (const x of set) {
      const f = facts(x);
      x.records = x.paired.map((p, k) => record({ call: p.slot?.call ?? null, method: p.slot?.method ?? '_OTHER', index: p.index, answer: p.answer, batchOf: p.batchOf, span: x.spans[k] ?? null, endsSpan: true, traceId: null, spanId: null }, f, core));
    }
  },
};
for (const name of ['span', 'metrics', 'log', 'traffic', 'audit']) {
  const sink = sinks.get(name);
  RUN[name] = (set) => {
    for (const x of set) sink(core, { records: x.records, capped: null, traceId: null });
  };
}

async function runStage(stage, set) {
  RUN[stage](set);
  if (stage === 'audit') await auditSink.flush();
}

/** Prepared sets: the spans the HTTP instrumentation would have started, made before any window. */
const WARM_PASSES = 5;
const warmSet = prepare(1_000_000);
const measuredSet = prepare(2_000_000);
for (const x of [...warmSet, ...measuredSet]) x.spans = x.calls.map(() => tracer.startSpan('POST'));

if (timed) {
  for (const stage of STAGES) {
    await runStage(stage, warmSet);
    const t = process.hrtime.bigint();
    await runStage(stage, measuredSet);
    console.log(`${kind.padEnd(12)} ${stage.padEnd(9)} ${(Number(process.hrtime.bigint() - t) / 1000 / N).toFixed(2)} µs per exchange`);
  }
  await auditSink.close();
  process.exit(0);
}

const rl = createInterface({ input: process.stdin });
console.log(`ready ${kind} ${STAGES.join(' ')}`);
for await (const line of rl) {
  const [cmd, stage] = line.trim().split(' ');
  if (cmd === 'warm' && STAGES.includes(stage)) {
    // Several passes: V8 optimises a function only after thousands of calls, and under
    // --predictable it compiles on this thread, which must happen here, not in the window.
    for (let pass = 0; pass < WARM_PASSES; pass++) await runStage(stage, warmSet);
    console.log(`warm ${stage}`);
  } else if (cmd === 'gc') {
    // A full collection before each window: what the window's own allocations cost stays in it, the garbage of earlier ones does not.
    globalThis.gc?.();
    console.log('gc');
  } else if (cmd === 'run' && STAGES.includes(stage)) {
    await runStage(stage, measuredSet);
    console.log(`done ${stage}`);
  } else if (cmd === 'quit') break;
}
await auditSink.close();
process.exit(0);
