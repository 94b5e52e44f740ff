#!/usr/bin/env node
// What the sinks DESIGN asks for on every error cost by themselves (issue 14): the span's error
// attributes, the metrics, the OpenTelemetry `aap.error` log record, the pino line and the audit
// row, each written through aap-triage's own sink function into the real OpenTelemetry Node SDK
// (the exporters and processors of bench/a2a-dealer-server.mjs), pino's asynchronous destination
// to /dev/null and a real SQLite file (worker thread); and `envelope`, the protocol work of the
// error: classifying the call, correlating the AapError and splicing the AAP 2.0 envelope into
// the host's reply. No HTTP and no taps: a floor under the all-error path's budgets.
//   npm run build && node bench/error-sinks.bench.mjs [rounds=12] [errors=5000]
// Per round each variant (in turn, starting with the next one each round) handles `errors`
// errors; the CPU of the event-loop thread (/proc/thread-self/schedstat) and of all threads
// (process.cpuUsage) is read around it. Every variant is paired with `base` of its round: a span
// start and end (what the HTTP instrumentation pays anyway) and the error event and report
// built, so the differences are the outputs alone. The loop yields every 256 errors so the
// SDK's batch processors export as they would in a server; each trial checks that every span,
// log record and audit row it made was exported or written, none dropped. Prints the medians
// over rounds [quartiles, interpolated], µs per error. Pin it to one core (`taskset -c 0`).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { logs } from '@opentelemetry/api-logs';
import { metrics, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { countArgs } from './args.mjs';

const USAGE = 'usage: node bench/error-sinks.bench.mjs [rounds=12] [errors=5000]';
// At most 9 000 errors per trial: the audit sink's queue holds 10 000 rows.
const [ROUNDS, ERRORS] = countArgs(process.argv.slice(2), 'error-sinks bench', USAGE, [
  { name: 'rounds', default: 12, max: 9999 },
  { name: 'errors', default: 5000, max: 9000 },
]);

/** Discarding exporters that count what reached them. */
const exported = { spans: 0, records: 0 };
const counting = (kind) => ({
  export: (items, done) => {
    exported[kind] += items.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
  forceFlush: async () => {},
});
const spanProcessor = new BatchSpanProcessor(counting('spans'));
const recordProcessor = new BatchLogRecordProcessor({ exporter: counting('records') });
const sdk = new NodeSDK({
  spanProcessors: [spanProcessor],
  logRecordProcessors: [recordProcessor],
  metricReaders: [new PeriodicExportingMetricReader({ exporter: { ...counting('metrics'), selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE }, exportIntervalMillis: 60_000 })],
});
sdk.start();

const { adoptServerSpan, finishCallSpan } = await import('../dist/instrument/span.js');
const { createInstruments, recordCall } = await import('../dist/instrument/metrics.js');
const { ERROR_LOG_MESSAGE, logError, logFields } = await import('../dist/instrument/log.js');
const { errorTypeOf, boundedStatusCode, boundedDomainCode } = await import('../dist/instrument/telemetry-codes.js');
const { openAuditSink } = await import('../dist/audit/index.js');
const { AapError, classifyCall, isParseFailure, mintErrorId, readJsonBody } = await import('../dist/protocol/index.js');
const { rewriteItem } = await import('../dist/instrument/rewrite.js');
const { spliceBody } = await import('../dist/instrument/json-splice.js');
const { ExchangeErrors } = await import('../dist/instrument/aap-error-hook.js');

const dir = mkdtempSync(join(tmpdir(), 'aap-error-sinks-'));
const sink = openAuditSink({ path: join(dir, 'audit.db'), service: 'bench-dealer' });
// After the sink's own exit hooks, so its flush runs before the folder goes.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) process.on(signal, () => process.exit(code));
const tracer = trace.getTracer('bench');
const { instruments } = createInstruments(metrics.getMeter('aap-triage'), () => sink.health());
const otelLogger = logs.getLogger('aap-triage');
const pinoLogger = pino(pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 }));

/** The bench dealer's all-error event (bench/a2a-dealer.bench.mjs): a tracked, flagged retry. */
function event(span) {
  const sc = span.spanContext();
  const now = Date.now();
  return {
    error_id: mintErrorId(), occurred_at: now, trace_id: sc.traceId, span_id: sc.spanId, upstream_trace_id: null,
    service: 'bench-dealer', protocol: 'aap', protocol_version: '2.0', rpc_method: 'SendMessage', skill: 'inventory.search',
    code: 'VEHICLE_NOT_FOUND', legacy_error: null, jsonrpc_code: -32000, http_status: 200, retryable: false, retry_after_ms: null,
    client: null, fingerprint: 'bgWQZh82J8Gz_i0MPN2BIw', idempotency: null, subject: null, subject_alt: null, attempt: 7,
    retry_flags: ['retried_non_retryable', 'no_backoff'], violations: [], conformance: ['aap-error-flattened'], duration_ms: 0.8, key_id: '1c2d96e4',
  };
}
const report = (e) => ({
  method: 'SendMessage', protocol: 'aap', skill: 'inventory.search', attempt: e.attempt, flags: e.retry_flags, durationS: 0.0008,
  errorType: errorTypeOf(e.jsonrpc_code, e.code), statusCode: boundedStatusCode(e.jsonrpc_code), errorCode: boundedDomainCode(e.code), error: e,
});

// The request and the reply of bench/a2a-dealer.bench.mjs's all-error load, as the host parsed
// and sent them (@a2a-js/sdk flattens the AapError to -32603): what the observer completes.
const REQUEST = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, failInHandler: 'VEHICLE_NOT_FOUND' }, mediaType: 'application/json' }] } } };
const HOST_REPLY = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"VEHICLE_NOT_FOUND: No vehicle matches the supplied identifiers."}}';
const thrown = new AapError('VEHICLE_NOT_FOUND', 'No vehicle matches the supplied identifiers.');
/** Classifies the call, correlates the AapError and splices the AAP 2.0 envelope into the reply. */
function envelope(span) {
  const store = new ExchangeErrors();
  store.add(thrown);
  const call = classifyCall(REQUEST);
  const read = readJsonBody(HOST_REPLY, { maxBytes: 1 << 20 });
  const ctx = { store, aapForm: '2.0', endpointForm: null, requiredExtensionUri: null, traceId: span.spanContext().traceId, mayRewrite: true, now: new Date(), conformance: true };
  if (isParseFailure(read)) throw new Error('bench: the reply did not parse');
  const r = rewriteItem(read.value, call, ctx);
  // The envelope carries the thrown AapError's own id: it was correlated, not read from the text.
  if (!r.changed || r.outcome.error?.errorId !== thrown.errorId || !spliceBody(HOST_REPLY, r.item).includes(thrown.errorId)) throw new Error('bench: the reply was not completed from the AapError');
}

const withRecord = { logger: null, otelLogger };
// Each variant handles one error on a span of its own, its event and report built as in `base`.
const PARTS = {
  base: (span) => span.end(),
  span: (span, e, r) => {
    adoptServerSpan(span, 'SendMessage', null, 1);
    finishCallSpan(span, r, e.occurred_at, false);
    span.end();
  },
  metrics: (span, e, r) => (recordCall(instruments, r), span.end()),
  'log record': (span, e) => (logError(withRecord, e, 'inventory.search', 'SendMessage', span), span.end()),
  // The line as logError writes it (a VEHICLE_NOT_FOUND is no server fault: level warn).
  'pino line': (span, e) => (pinoLogger.warn(logFields(e, 'inventory.search', 'SendMessage'), ERROR_LOG_MESSAGE), span.end()),
  'audit row': (span, e) => (sink.write(e), span.end()),
  envelope: (span) => (envelope(span), span.end()),
};
PARTS.all = (span, e, r) => {
  envelope(span);
  adoptServerSpan(span, 'SendMessage', null, 1);
  finishCallSpan(span, r, e.occurred_at, false);
  recordCall(instruments, r);
  logError({ logger: pinoLogger, otelLogger }, e, 'inventory.search', 'SendMessage', span);
  sink.write(e);
  span.end();
};
const names = Object.keys(PARTS);

const loopNs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const allUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const RECORDS = new Set(['log record', 'all']);
const ROWS = new Set(['audit row', 'all']);
async function trial(name) {
  const part = PARTS[name];
  const before = { ...exported, written: sink.health().written, dropped: sink.health().dropped };
  const l0 = loopNs();
  const a0 = allUs();
  for (let i = 0; i < ERRORS; i++) {
    const span = tracer.startSpan('POST');
    const e = event(span);
    part(span, e, report(e));
    // A server yields between requests: the batch processors export on their own schedule.
    if ((i & 255) === 255) await new Promise(setImmediate);
  }
  // The audit worker and the processors finish inside the trial: their CPU counts.
  await Promise.all([sink.flush(), spanProcessor.forceFlush(), recordProcessor.forceFlush()]);
  const cpu = { loop: (loopNs() - l0) / 1000 / ERRORS, all: (allUs() - a0) / ERRORS };
  const h = sink.health();
  const lost = [
    exported.spans - before.spans !== ERRORS && `${exported.spans - before.spans} spans exported`,
    exported.records - before.records !== (RECORDS.has(name) ? ERRORS : 0) && `${exported.records - before.records} log records exported`,
    h.written - before.written !== (ROWS.has(name) ? ERRORS : 0) && `${h.written - before.written} audit rows written`,
    h.dropped !== before.dropped && `${h.dropped - before.dropped} audit rows dropped`,
  ].filter(Boolean);
  if (lost.length > 0) throw new Error(`error-sinks bench: ${name}: ${lost.join(', ')} of ${ERRORS} errors`);
  return cpu;
}

/** Median and quartiles, linearly interpolated between ranks. */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => {
    const r = q * (s.length - 1);
    const lo = Math.floor(r);
    return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (r - lo);
  };
  return { m: at(0.5), q1: at(0.25), q3: at(0.75) };
};
const loadAtStart = loadavg().map((l) => l.toFixed(2)).join(' ');
for (const name of names) await trial(name); // warm-up: JIT, the store's first pages
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length];
    results[name].push(await trial(name));
  }
}
const base = results.base;
const affinity = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '?';
console.log(`error sinks, ${ROUNDS} rounds × ${ERRORS} errors per variant, Node ${process.version}, CPUs ${affinity}, load avg ${loadAtStart} at the start, ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
console.log('µs per error, median [quartiles] of the paired differences to "base" (a span start and end, the event and report built)');
console.log(`${'part'.padEnd(11)} ${'event loop'.padStart(22)} ${'all threads'.padStart(22)}`);
const f = ({ m, q1, q3 }) => `${m.toFixed(1)} [${q1.toFixed(1)}…${q3.toFixed(1)}]`.padStart(22);
for (const name of names.slice(1)) {
  const loop = median(results[name].map((t, i) => t.loop - base[i].loop));
  const all = median(results[name].map((t, i) => t.all - base[i].all));
  console.log(`${name.padEnd(11)} ${f(loop)} ${f(all)}`);
}
const b = median(base.map((t) => t.loop));
console.log(`base itself: ${b.m.toFixed(1)} µs event loop per error; budget (issue 14) for everything aap-triage adds per error: 40 µs event loop, 90 µs all threads`);
await sink.close();
await sdk.shutdown();
