/**
 * Semantic conventions 1.45 and metric plumbing (issue 13, #16): bounded codes (80 invented
 * codes on the wire give a handful of label values), `rpc.status_code` on the duration, the
 * `error.type` RPC rule, the `jsonrpc` span name of an `_OTHER` method, plural array attributes,
 * the audit queue as an up-down counter, the semconv schema URL on every scope; several
 * `createTriage` instances adding up on one meter; a meter provider registered after
 * `createTriage` being used.
 */
import { metrics } from '@opentelemetry/api';
import { DataPointType, MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMCONV_SCHEMA_URL } from '../../src/instrument/attributes.js';
import { createTriage } from '../../src/instrument/index.js';
import type { Triage } from '../../src/instrument/types.js';
import { boundedDomainCode, boundedStatusCode, errorTypeOf } from '../../src/instrument/exchange/telemetry-codes.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { TestMetricReader, counterSum, waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

/** Headers of a call the test server answers with exactly `body`. */
function raw(body: unknown): Record<string, string> {
  return { ...DMC12_HEADERS, 'x-test-raw-response': Buffer.from(JSON.stringify(body)).toString('base64') };
}

let h: Harness;
let dmc: Dmc12Server;
beforeAll(async () => {
  h = createHarness();
  dmc = await startDmc12Server(h.triage);
});
afterAll(async () => {
  await dmc.close();
  await h.triage.shutdown();
});

describe('bounded codes', () => {
  it('keeps table codes and turns any other code into _OTHER', () => {
    expect(boundedDomainCode('RESERVATION_CONFLICT')).toBe('RESERVATION_CONFLICT');
    expect(boundedDomainCode('EXTENSION_SUPPORT_REQUIRED')).toBe('EXTENSION_SUPPORT_REQUIRED');
    expect(boundedDomainCode('-32602')).toBe('-32602');
    expect(boundedDomainCode('HTTP_401')).toBe('HTTP_401');
    for (const odd of ['MY_OWN_CODE', '__proto__', 'toString', '', 'HTTP_999', 'x'.repeat(500), 42, null]) expect(boundedDomainCode(odd)).toBe('_OTHER');
    expect(boundedStatusCode(-32603)).toBe('-32603');
    expect(boundedStatusCode(-31999)).toBe('_OTHER');
    expect(boundedStatusCode(null)).toBeNull();
    expect(errorTypeOf(-32602, 'SCHEMA_VALIDATION_FAILED')).toBe('-32602');
    expect(errorTypeOf(null, 'RESERVATION_CONFLICT')).toBe('RESERVATION_CONFLICT');
  });

  it('gives 80 invented codes on the wire a handful of label values', async () => {
    for (let i = 0; i < 40; i++) {
      const id = `inv-r-${i}`;
      await post(dmc.url, toolsCall(id, 'search_inventory'), raw({ jsonrpc: '2.0', id, result: { data: { error: 'made_up', error_code: `INVENTED_${i}`, retryable: false, message: 'x' } } }));
      const id2 = `inv-e-${i}`;
      await post(dmc.url, toolsCall(id2, 'search_inventory'), raw({ jsonrpc: '2.0', id: id2, error: { code: -31000 - i, message: 'invented', data: { code: `ALSO_INVENTED_${i}` } } }));
    }
    await h.span('inv-e-39');
    const m = await h.otel.metrics();
    const values = (name: string, key: string): Set<unknown> => new Set((m.get(name)?.dataPoints ?? []).map((p) => p.attributes[key]).filter((v) => v !== undefined));
    for (const key of ['error.type', 'aap.error.code']) expect(values('aap.server.errors', key).size, key).toBeLessThanOrEqual(5);
    expect(values('rpc.server.call.duration', 'rpc.status_code').size).toBeLessThanOrEqual(5);
    const span = await h.span('inv-e-7');
    expect(span.attributes['rpc.status_code']).toBe('_OTHER');
    expect(span.attributes['error.type']).toBe('_OTHER');
    expect(span.attributes['aap.error.code']).toBe('_OTHER');
    // The audit rows do not hold the invented codes either.
    expect(h.sink.events.map((e) => e.code)).not.toContain('INVENTED_3');
  });
});

describe('RPC conventions', () => {
  it('puts rpc.status_code on the duration and error.type by the RPC rule', async () => {
    await post(dmc.url, { jsonrpc: '2.0', id: 'sc-1', method: 'tools/call', params: { name: 'search_inventory' } }, { 'content-type': 'application/json' });
    await post(dmc.url, toolsCall('sc-2', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
    const unauth = await h.span('sc-1');
    expect(unauth.attributes).toMatchObject({ 'rpc.status_code': '-32001', 'error.type': '-32001', 'aap.error.code': '-32001' });
    const conflict = await h.span('sc-2');
    expect(conflict.attributes['rpc.status_code']).toBeUndefined();
    expect(conflict.attributes).toMatchObject({ 'error.type': 'RESERVATION_CONFLICT', 'aap.error.code': 'RESERVATION_CONFLICT' });
    const m = await h.otel.metrics();
    const points = (m.get('rpc.server.call.duration')?.dataPoints ?? []) as DataPoint<Histogram>[];
    expect(points.some((p) => p.attributes['rpc.status_code'] === '-32001' && p.attributes['error.type'] === '-32001')).toBe(true);
    expect(points.some((p) => p.attributes['error.type'] === 'RESERVATION_CONFLICT' && p.attributes['rpc.status_code'] === undefined)).toBe(true);
  });

  it('names the span of an unknown method jsonrpc and keeps the method on the span only', async () => {
    await post(dmc.url, { jsonrpc: '2.0', id: 'oth-1', method: 'tools/frobnicate', params: {} }, DMC12_HEADERS);
    const span = await h.span('oth-1');
    expect(span.name).toBe('jsonrpc');
    expect(span.attributes['rpc.method']).toBe('_OTHER');
    expect(span.attributes['rpc.method_original']).toBe('tools/frobnicate');
  });

  it('writes conformance findings as the plural array aap.conformance.rules', async () => {
    await post(dmc.url, toolsCall('cf-1', 'search_inventory'), raw({ jsonrpc: '2.0', id: 'cf-1', result: { data: { error: 'vehicle_unavailable', message: 'gone' } } }));
    const span = await h.span('cf-1');
    expect(span.attributes['aap.conformance']).toBeUndefined();
    const rules = span.attributes['aap.conformance.rules'];
    expect(Array.isArray(rules) && rules.length > 0).toBe(true);
  });

  it('makes the audit queue size an up-down counter and gives every scope the semconv schema URL', async () => {
    const m = await h.otel.metrics();
    // An up-down counter exports as a non-monotonic sum (a gauge would be a GAUGE point).
    expect(m.get('aap.audit.queue.size')).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: false });
    const span = await h.span('cf-1');
    expect(span.instrumentationScope).toMatchObject({ name: 'aap-triage', schemaUrl: SEMCONV_SCHEMA_URL });
    const scopes = await h.otel.metricScopes();
    expect(scopes).toContainEqual(expect.objectContaining({ name: 'aap-triage', schemaUrl: SEMCONV_SCHEMA_URL }));
  });
});

describe('several instances and late providers', () => {
  it('adds up the metrics of two createTriage instances on one meter provider', async () => {
    const reader = new TestMetricReader();
    const provider = new MeterProvider({ readers: [reader] });
    const sinks = [new MemoryAuditSink(), new MemoryAuditSink()];
    const triages: Triage[] = sinks.map((auditSink) => createTriage({ logger: false, auditSink, meterProvider: provider }));
    const servers = await Promise.all(triages.map((t) => startDmc12Server(t)));
    try {
      let n = 0;
      for (const s of servers) {
        for (let i = 0; i < 3; i++) await post(s.url, toolsCall(`two-${n++}`, 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
      }
      await waitFor(() => sinks.every((s) => s.events.length === 3));
      const { resourceMetrics } = await reader.collect();
      const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
      const errors = all.filter((d) => d.descriptor.name === 'aap.server.errors');
      expect(errors).toHaveLength(1);
      expect(counterSum(errors[0], { 'aap.error.code': 'RESERVATION_CONFLICT' })).toBe(6);
      const records = all.find((d) => d.descriptor.name === 'aap.audit.records');
      expect(counterSum(records, { 'aap.audit.outcome': 'written' })).toBe(6);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await Promise.all(triages.map((t) => t.shutdown()));
    }
  });

  it('records on a global meter provider registered after createTriage', async () => {
    const triage = createTriage({ logger: false, auditDb: false });
    const server = await startDmc12Server(triage);
    const reader = new TestMetricReader();
    const provider = new MeterProvider({ readers: [reader] });
    try {
      expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
      await post(server.url, toolsCall('late-1', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), DMC12_HEADERS);
      let sum = 0;
      await waitFor(() => {
        void reader.collect().then(({ resourceMetrics }) => {
          sum = counterSum(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((d) => d.descriptor.name === 'aap.server.errors'));
        });
        return sum === 1;
      });
      expect(sum).toBe(1);
    } finally {
      metrics.disable();
      await server.close();
      await triage.shutdown();
    }
  });
});
