#!/usr/bin/env node
// The dealer the instrumentation-overhead benchmark loads (bench/a2a-dealer.bench.mjs starts it;
// run by hand: `npm run build && node bench/a2a-dealer-server.mjs otel|triage`).
// An @a2a-js/sdk 1.3 AAP dealer (Express, jsonRpcHandler) serving inventory.search, with:
//   otel:   the OpenTelemetry Node SDK and its HTTP instrumentation only (spans, log records and
//           metrics batched into discarding exporters, so export cost is the same zero in both
//           modes; with the SDK's default OTLP exporters and no collector, the log records of
//           the all-error load were retried against a closed port and shutdown waited ~30 s);
//   triage: the same plus createTriage() mounted before the handler, auditing to a real SQLite
//           file (worker thread) and logging its error lines to /dev/null with pino's
//           asynchronous destination (`sync: false, minLength: 4096`, pino's setting for throughput).
// BENCH_QUIET_TIMERS=1 (bench/a2a-dealer.callgrind.mjs): no periodic work fires while calls are
// counted, so work on a timer is not charged ~50× per call under valgrind: span and log batches
// go out when 512 are queued (the SDK's batch size), the metric reader exports once an hour,
// and in triage mode the audit sink is the bench's own (`openAuditSink`: batches of 500 rows
// handed over when full, a one-hour flush interval, no idle checkpoint) with the traffic flush
// once an hour too; the rest is flushed at SIGTERM, after the count.
// BENCH_OMIT (triage only, for the breakdown) leaves parts out through public options:
//   spans   — a tracer provider whose spans are non-recording (no call spans are kept);
//   metrics — a no-op meter provider;  audit — `auditDb: false`;  log — `logger: false`.
// A request whose skill data has `failInHandler: '<AAP code>'` throws AapError from the request
// handler (the all-error load). Prints `PORT <n>` when listening; SIGUSR2 prints `CPU <µs>` (all
// threads, process.cpuUsage), after a full GC when run with --expose-gc; on SIGTERM it flushes and, in triage mode, prints
// `AUDIT stored=<rows> written=… dropped=… failed=… gaps=<dropped in audit_gaps> maxAttempt=…
// fingerprints=<distinct>` before exiting.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

const mode = process.argv[2] ?? 'otel';
const QUIET_TIMERS = process.env.BENCH_QUIET_TIMERS === '1';
/** The quiet timers' interval, ms: longer than any run. */
const HOUR_MS = 3_600_000;
const discard = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} };
const discardMetrics = { ...discard, selectAggregationTemporality: () => 1 /* AggregationTemporality.CUMULATIVE */ };
const sdk = new NodeSDK({
  spanProcessors: [new BatchSpanProcessor(discard, QUIET_TIMERS ? { scheduledDelayMillis: HOUR_MS } : {})],
  logRecordProcessors: [new BatchLogRecordProcessor({ exporter: discard, ...(QUIET_TIMERS ? { scheduledDelayMillis: HOUR_MS } : {}) })],
  metricReaders: [new PeriodicExportingMetricReader({ exporter: discardMetrics, exportIntervalMillis: QUIET_TIMERS ? HOUR_MS : 60_000 })],
  instrumentations: [new HttpInstrumentation()],
});
sdk.start();

// Loaded after the SDK so the HTTP instrumentation sees them, as in a real server.
const { default: express } = await import('express');
const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
const { UserBuilder, jsonRpcHandler } = await import('@a2a-js/sdk/server/express');
const protocol = await import('../dist/protocol/index.js');
const AapError = protocol.AapError ?? (await import('../dist/protocol/aap-error.js')).AapError;

export const EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';

const skillData = (parts) => {
  const c = parts?.[0]?.content;
  return c?.$case === 'data' && c.value && typeof c.value === 'object' ? c.value : {};
};

const VEHICLES = Array.from({ length: 5 }, (_, i) => ({
  vin: `1HGCM82633A00${String(i).padStart(4, '0')}`,
  year: 2020 + i,
  make: 'Honda',
  model: 'Accord',
  trim: 'EX-L',
  price: 24000 + i * 1000,
  status: 'available',
}));

class Executor {
  async execute(ctx, bus) {
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: '',
        role: 2,
        parts: [{ content: { $case: 'data', value: { type: 'inventory.search.response', vehicles: VEHICLES } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    bus.finished();
  }
  async cancelTask() {}
}

class Handler extends DefaultRequestHandler {
  async sendMessage(params, context) {
    const data = skillData(params.message?.parts);
    if (typeof data.failInHandler === 'string') throw new AapError(data.failInHandler, 'No vehicle matches the supplied identifiers.');
    return super.sendMessage(params, context);
  }
}

const app = express();
const port = Number(process.env.PORT ?? 0);
const card = {
  name: 'Bench Dealer',
  description: 'bench',
  supportedInterfaces: [{ url: '', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false, extensions: [{ uri: EXTENSION_URI, description: 'AAP', required: true, params: undefined }] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [],
  signatures: [],
};
const requestHandler = new Handler(card, new InMemoryTaskStore(), new Executor());
let auditSink = null;
let triage = null;
let auditDir = null;
let auditDb = null;
if (mode === 'triage') {
  const { createTriage } = await import('../dist/instrument/index.js');
  const { pino } = await import('pino');
  const { createNoopMeter, trace } = await import('@opentelemetry/api');
  const omit = new Set((process.env.BENCH_OMIT ?? '').split(',').filter(Boolean));
  // BENCH_DIR: the bench's own work folder, which it removes even if this process is killed.
  auditDir = mkdtempSync(join(process.env.BENCH_DIR || tmpdir(), 'aap-bench-'));
  auditDb = omit.has('audit') ? null : join(auditDir, 'audit.db');
  // Spans that carry the parent's context but record nothing, so the SDK keeps no call span.
  const nonRecording = { getTracer: () => ({ startSpan: (_n, _o, ctx) => trace.wrapSpanContext(trace.getSpanContext(ctx) ?? { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }) }) };
  if (auditDb) {
    // The bench's own sink, so its counters can be read after the flush (a writer removes its
    // health file on a clean shutdown); with quiet timers its batches fill by count.
    const { openAuditSink } = await import('../dist/audit/index.js');
    auditSink = openAuditSink({ path: auditDb, service: 'bench-dealer', batchSize: 500, ...(QUIET_TIMERS ? { flushIntervalMs: HOUR_MS, idleCheckpointMs: HOUR_MS } : {}) });
  }
  triage = createTriage({
    serviceName: 'bench-dealer',
    ...(auditSink ? { auditSink, ...(QUIET_TIMERS ? { trafficFlushIntervalMs: HOUR_MS } : {}) } : { auditDb: false }),
    logger: omit.has('log') ? false : pino(pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 })),
    ...(omit.has('spans') ? { tracerProvider: nonRecording } : {}),
    ...(omit.has('metrics') ? { meterProvider: { getMeter: () => createNoopMeter() } } : {}),
  });
  app.use(triage.middleware());
}
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
// Listening only now, with every route mounted: under valgrind the imports above take seconds,
// and a bench that starts on `PORT` would otherwise get 404s from Express meanwhile.
const server = app.listen(port, '127.0.0.1', () => {
  card.supportedInterfaces[0].url = `http://127.0.0.1:${server.address().port}/a2a/jsonrpc`;
  console.log(`PORT ${server.address().port}`);
});
// Under valgrind a GC or an audit batch can stall the process for seconds; an idle keep-alive
// timer that fires before the waiting request is read resets the connection (ECONNRESET).
if (QUIET_TIMERS) server.keepAliveTimeout = HOUR_MS;

// The bench asks for the server's own CPU time around each trial: CPU µs per request is less
// sensitive than req/s to other load on the machine.
// Under `--expose-gc` (bench/a2a-dealer.callgrind.mjs) it first runs a full collection, so a
// counted window can start and end with one.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const u = process.cpuUsage();
  console.log(`CPU ${u.user + u.system}`);
});

process.on('SIGTERM', async () => {
  server.close();
  await triage?.shutdown();
  await sdk.shutdown();
  if (auditDb) {
    // What the store holds after the flush, for the bench's stored = sent, dropped = 0 check.
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(auditDb, { readonly: true });
    const stored = db.prepare('SELECT count(*) AS n FROM error_events').get().n;
    const gaps = db.prepare('SELECT coalesce(sum(dropped), 0) AS n FROM audit_gaps').get().n;
    // Distinct calls show as attempt 1 each with their own fingerprint; a repeated call as one
    // fingerprint whose attempts climb.
    const calls = db.prepare('SELECT coalesce(max(attempt), 0) AS maxAttempt, count(DISTINCT fingerprint) AS fingerprints FROM error_events').get();
    db.close();
    const h = auditSink?.health() ?? {};
    console.log(`AUDIT stored=${stored} written=${h.written} dropped=${h.dropped} failed=${h.failed} gaps=${gaps} maxAttempt=${calls.maxAttempt} fingerprints=${calls.fingerprints}`);
  }
  if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  process.exit(0);
});
