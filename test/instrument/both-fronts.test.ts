/**
 * `createTriage` and `AapTriageInstrumentation` in one process (issue 13): each exchange is
 * recorded once. The instrumentation's diagnostics channel fires before the wrapped listener,
 * so it takes the exchange and the triage passes it through; disabled, the triage takes it.
 */
import { channel } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_START_CHANNEL } from '../../src/instrument/instrumentation.js';
import { AapTriageInstrumentation } from '../../src/instrument/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { captureLog } from '../helpers/log-capture.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { counterSum, waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let dmc: Dmc12Server;
let instrumentation: AapTriageInstrumentation;
const instrumentationSink = new MemoryAuditSink();

beforeAll(async () => {
  h = createHarness();
  instrumentation = new AapTriageInstrumentation({ auditSink: instrumentationSink, logger: false, serviceName: 'dealer-test' });
  instrumentation.setTracerProvider(h.otel.tracerProvider);
  instrumentation.setMeterProvider(h.otel.meterProvider);
  dmc = await startDmc12Server(h.triage);
});
afterAll(async () => {
  await dmc.close();
  await instrumentation.shutdown();
  await h.triage.shutdown();
});

describe('createTriage next to AapTriageInstrumentation', () => {
  it('records each call once, by the instrumentation while it is enabled', async () => {
    await post(dmc.url, toolsCall('both-1', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
    await h.span('both-1');
    await waitFor(() => instrumentationSink.events.length === 1);
    expect(h.sink.events).toHaveLength(0);
    expect(h.otel.spans().filter((s) => s.attributes['jsonrpc.request.id'] === 'both-1')).toHaveLength(1);
    expect(counterSum((await h.otel.metrics()).get('aap.server.errors'))).toBe(1);
  });

  it('leaves the exchange to createTriage once the instrumentation is disabled', async () => {
    instrumentation.disable();
    await post(dmc.url, toolsCall('both-2', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
    await h.span('both-2');
    await waitFor(() => h.sink.events.length === 1);
    expect(instrumentationSink.events).toHaveLength(1);
    expect(counterSum((await h.otel.metrics()).get('aap.server.errors'))).toBe(2);
  });

  it('rejects an unknown option at construction, naming it', () => {
    expect(() => new AapTriageInstrumentation({ auditDB: false } as never)).toThrow(/unknown option "auditDB"/);
  });
});

describe('a logs pipeline that throws', () => {
  it('does not throw into the host when the OpenTelemetry logger throws, and warns once', async () => {
    const log = captureLog();
    const sink = new MemoryAuditSink();
    const own = new AapTriageInstrumentation({ auditSink: sink, logger: log.logger, serviceName: 'dealer-test' });
    own.setLoggerProvider({
      getLogger: () => ({
        enabled: () => true,
        emit() {
          throw new Error('log pipeline down');
        },
      }),
    });
    try {
      for (const id of ['lt-1', 'lt-2']) {
        const r = await post(dmc.url, toolsCall(id, 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
        expect(r.status).toBe(200);
      }
      await waitFor(() => sink.events.length === 2);
      const warnings = log.lines().filter((l) => l.kind === 'log');
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(warnings)).not.toContain('log pipeline down');
    } finally {
      await own.shutdown();
    }
  });
});

describe('detaching', () => {
  it('leaves no subscriber on the request-start channel once every instrumentation is disabled or shut down', () => {
    expect(channel(REQUEST_START_CHANNEL).hasSubscribers).toBe(false);
    instrumentation.enable();
    expect(channel(REQUEST_START_CHANNEL).hasSubscribers).toBe(true);
    instrumentation.disable();
    expect(channel(REQUEST_START_CHANNEL).hasSubscribers).toBe(false);
  });
});
