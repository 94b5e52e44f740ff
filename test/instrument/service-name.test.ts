/**
 * `service.name` comes from the host's resource when the option is absent (DESIGN §4; issue 28),
 * as contrib instrumentations take it: the option first, then `OTEL_SERVICE_NAME`, then the
 * `service.name` of the tracer provider's resource, else `dealer-agent`.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { AapTriageInstrumentation, createTriage } from '../../src/instrument/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { waitFor } from '../helpers/otel.js';

const providerNamed = (name: string) => new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': name }) });

async function serviceOfOneError(triage: ReturnType<typeof createTriage>, sink: MemoryAuditSink): Promise<string | undefined> {
  const srv = await startDmc12Server(triage);
  try {
    await post(srv.url, toolsCall('svc-1', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
    await waitFor(() => sink.events.length === 1);
    return sink.events[0]?.service;
  } finally {
    await srv.close();
    await triage.shutdown();
  }
}

describe('service.name', () => {
  it('is the resource service.name of the host tracer provider when no option names it', async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ auditSink: sink, logger: false, tracerProvider: providerNamed('host-named-dealer') });
    expect(await serviceOfOneError(triage, sink)).toBe('host-named-dealer');
  });

  it('is the option when one is given, whatever the resource says', async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ serviceName: 'option-dealer', auditSink: sink, logger: false, tracerProvider: providerNamed('host-named-dealer') });
    expect(await serviceOfOneError(triage, sink)).toBe('option-dealer');
  });

  it('follows the provider the SDK sets on the instrumentation after construction', () => {
    const i = new AapTriageInstrumentation({ auditSink: new MemoryAuditSink(), logger: false });
    try {
      i.setTracerProvider(providerNamed('sdk-named-dealer'));
      expect((i as unknown as { _handle: { core: { service: string } } })._handle.core.service).toBe('sdk-named-dealer');
    } finally {
      void i.shutdown();
    }
  });

  it('is dealer-agent when nothing names it (the SDK default unknown_service is not a name)', async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ auditSink: sink, logger: false, tracerProvider: new BasicTracerProvider() });
    expect(await serviceOfOneError(triage, sink)).toBe('dealer-agent');
  });
});
