/**
 * `service.version` on every audit row (issue 29): the host resource's `service.version` (which
 * `OTEL_RESOURCE_ATTRIBUTES` feeds), else `OTEL_SERVICE_VERSION` / `OTEL_RESOURCE_ATTRIBUTES`,
 * else the `serviceVersion` option, else null; always the dealer's own value, bounded by
 * SAFE_SERVICE_VERSION before it reaches a row.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { eventToRow } from '../../src/audit/row.js';
import { ERROR_EVENT_COLUMNS } from '../../src/audit/schema.js';
import { envServiceVersion } from '../../src/instrument/host-resource.js';
import { AapTriageInstrumentation, createTriage } from '../../src/instrument/index.js';
import { checkOptions } from '../../src/instrument/options.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { waitFor } from '../helpers/otel.js';
import { event } from '../triage/seed.js';

const providerWith = (attributes: Record<string, string>) => new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'dealer-v', ...attributes }) });

async function versionOfOneError(triage: ReturnType<typeof createTriage>, sink: MemoryAuditSink): Promise<string | null | undefined> {
  const srv = await startDmc12Server(triage);
  try {
    await post(srv.url, toolsCall('v-1', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
    await waitFor(() => sink.events.length === 1);
    return sink.events[0]?.service_version;
  } finally {
    await srv.close();
    await triage.shutdown();
  }
}

describe('service.version of audit rows', () => {
  it("is the host resource's service.version, even when the option names another", async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ serviceVersion: '9.9.9', auditSink: sink, logger: false, tracerProvider: providerWith({ 'service.version': '1.5.0-rc.2' }) });
    expect(await versionOfOneError(triage, sink)).toBe('1.5.0-rc.2');
  });

  it('is the option when the resource names none, or names one that fails the pattern', async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ serviceVersion: '1.4.0', auditSink: sink, logger: false, tracerProvider: providerWith({ 'service.version': 'bad version <x>' }) });
    expect(await versionOfOneError(triage, sink)).toBe('1.4.0');
  });

  it('is null when nothing names one', async () => {
    const sink = new MemoryAuditSink();
    const triage = createTriage({ auditSink: sink, logger: false, tracerProvider: new BasicTracerProvider() });
    expect(await versionOfOneError(triage, sink)).toBeNull();
  });

  it('follows the provider the SDK sets on the instrumentation after construction', () => {
    const i = new AapTriageInstrumentation({ auditSink: new MemoryAuditSink(), logger: false, serviceVersion: '1.0.0' });
    try {
      const core = (i as unknown as { _handle: { core: { serviceVersion: string | null } } })._handle.core;
      expect(core.serviceVersion).toBe('1.0.0');
      i.setTracerProvider(providerWith({ 'service.version': '2.0.0' }));
      expect(core.serviceVersion).toBe('2.0.0');
    } finally {
      void i.shutdown();
    }
  });

  it('comes from OTEL_SERVICE_VERSION, else OTEL_RESOURCE_ATTRIBUTES (percent-decoded), before the option', () => {
    expect(checkOptions({ serviceVersion: '1.0.0' }, { OTEL_SERVICE_VERSION: '2.0.0', OTEL_RESOURCE_ATTRIBUTES: 'service.version=3.0.0' }).serviceVersion).toBe('2.0.0');
    expect(checkOptions({ serviceVersion: '1.0.0' }, { OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod, service.version = 3.0.0%2Bb7' }).serviceVersion).toBe('3.0.0+b7');
    expect(checkOptions({ serviceVersion: '1.0.0' }, {}).serviceVersion).toBe('1.0.0');
    expect(checkOptions({}, {}).serviceVersion).toBeNull();
    expect(envServiceVersion({ OTEL_SERVICE_VERSION: 'jane@example.com' })).toBeNull();
    expect(envServiceVersion({ OTEL_RESOURCE_ATTRIBUTES: 'service.version=%E0%A4%A' })).toBeNull();
  });

  it('refuses an option that fails the pattern with a TypeError naming it', () => {
    expect(() => checkOptions({ serviceVersion: '' })).toThrow(/option serviceVersion must be 1–64 letters/);
    expect(() => checkOptions({ serviceVersion: 'x'.repeat(65) })).toThrow(TypeError);
    expect(() => checkOptions({ serviceVersion: 7 as unknown as string })).toThrow(/serviceVersion/);
  });

  it('reaches the row only when it passes SAFE_SERVICE_VERSION (defence in depth at the store)', () => {
    const at = ERROR_EVENT_COLUMNS.indexOf('service_version');
    expect(eventToRow(event({ occurred_at: 1, service_version: 'v1.4.0+build.7' }), undefined)[at]).toBe('v1.4.0+build.7');
    expect(eventToRow(event({ occurred_at: 1, service_version: '+1 555 0100 jane@example.com' }), undefined)[at]).toBeNull();
    expect(eventToRow(event({ occurred_at: 1 }), undefined)[at]).toBeNull();
  });
});
