/**
 * `createTriage` and `AapTriageInstrumentation` in one process (issue 13): each exchange is
 * recorded once. The instrumentation's diagnostics channel fires before the wrapped listener,
 * so it takes the exchange and the triage passes it through; disabled, the triage takes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AapTriageInstrumentation } from '../../src/instrument/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
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
