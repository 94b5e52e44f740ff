#!/usr/bin/env node
// The log sampler in a storm (issue 26): 10,000 errors of one code within one second through the
// log sink of a real triage core (no logs pipeline, so each error's event is the pino line),
// written to an in-memory pino destination. Checks that at most N lines per (service, code) and
// second plus one summary line per second were written, and that the summaries' `omitted` counts
// add up exactly to the errors left out; prints the lines written and the sink's time per error.
//   npm run build && node bench/log-sampler.bench.mjs [errors=10000] [lines-per-second=10]
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { countArgs } from './args.mjs';

const USAGE = 'usage: node bench/log-sampler.bench.mjs [errors=10000] [lines-per-second=10]';
const [ERRORS, PER_SECOND] = countArgs(process.argv.slice(2), 'log-sampler bench', USAGE, [
  { name: 'errors', default: 10_000, max: 1_000_000 },
  { name: 'lines-per-second', default: 10, max: 100_000 },
]);

const { checkOptions } = await import('../dist/instrument/options.js');
const { createCore } = await import('../dist/instrument/core.js');
const { logSink, ERROR_LOG_MESSAGE, SAMPLED_LOG_MESSAGE } = await import('../dist/instrument/sinks/log.js');
const { trace, metrics } = await import('@opentelemetry/api');

const lines = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l));
    done();
  },
});
const settings = checkOptions({ serviceName: 'bench-dealer', auditDb: false, logger: pino({ level: 'warn' }, sink), logLinesPerSecond: PER_SECOND });
const handle = createCore(settings, { tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() });
const { core } = handle;

// The errors' times: spread over one wall-clock second (as a storm's would be), starting at a whole second.
const start = Math.ceil(Date.now() / 1000) * 1000 + 1000;
const record = (i) => {
  const at = start + Math.floor((i * 1000) / ERRORS);
  const event = { error_id: `err_${String(i).padStart(32, '0')}`, occurred_at: at, trace_id: null, span_id: null, upstream_trace_id: null, service: 'bench-dealer', protocol: 'dmc12', protocol_version: 'v0.3', rpc_method: 'tools/call', skill: 'create_reservation', code: 'RATE_LIMITED', legacy_error: 'rate_limited', jsonrpc_code: null, http_status: 200, retryable: true, retry_after_ms: 1000, client: 'c', fingerprint: null, idempotency: null, subject: null, subject_alt: null, attempt: 1, retry_flags: [], violations: [], conformance: [], duration_ms: 1, key_id: null };
  return { records: [{ method: 'tools/call', protocol: 'dmc12', skill: 'create_reservation', client: 'c', attempt: 1, flags: [], startedAt: at, endedAt: at, durationS: 0, errorType: 'RATE_LIMITED', statusCode: null, errorCode: 'RATE_LIMITED', retryable: true, conformance: [], audited: true, event, rowId: null, span: null, endsSpan: false, count: 1 }], capped: null, traceId: null };
};
const exchanges = Array.from({ length: ERRORS }, (_, i) => record(i));

const t = process.hrtime.bigint();
for (const x of exchanges) logSink(core, x);
const us = Number(process.hrtime.bigint() - t) / 1000 / ERRORS;
await handle.shutdown();
await new Promise((r) => setImmediate(r));

const errorLines = lines.filter((l) => l.msg === ERROR_LOG_MESSAGE);
const summaries = lines.filter((l) => l.msg === SAMPLED_LOG_MESSAGE);
const perSecond = new Map();
for (const l of errorLines) {
  const second = Math.floor(Number(/^err_0*(\d+)$/.exec(l.error_id)?.[1] ?? 0) * 1000 / ERRORS);
  perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
}
const omitted = summaries.reduce((n, l) => n + l.omitted, 0);
const maxPerSecond = Math.max(...perSecond.values());
const ok = maxPerSecond <= PER_SECOND && summaries.length <= perSecond.size && errorLines.length + omitted === ERRORS;
console.log(`# log sampler: ${ERRORS} errors of one code in one second, ${PER_SECOND} lines per second  ${new Date().toISOString()}  node ${process.version}`);
console.log(`error lines ${errorLines.length} (at most ${maxPerSecond} in a second), summary lines ${summaries.length}, omitted in summaries ${omitted}, lines + omitted = ${errorLines.length + omitted} of ${ERRORS}`);
console.log(`log sink ${us.toFixed(2)} µs per error (in-process, this machine, one run)`);
console.log(ok ? 'ok: at most N + 1 lines per (service, code) and second; the summary count is exact' : 'FAILED: see the counts above');
process.exit(ok ? 0 : 1);
