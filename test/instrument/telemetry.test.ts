/**
 * What the instrumentation exports: metric names, units and label allow-lists (DESIGN §4), and
 * the PII rule: no request value or message text on spans, metrics or logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS, METRIC_ATTRIBUTES } from '../../src/instrument/attributes.js';
import { post, sendMessageBody, startAapServer } from '../helpers/aap-server.js';
import type { AapServer } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { counterSum, histogramCount, waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

const PII = ['jane.doe@example.com', '+15555550123', '1HGCM82633A004352', 'Jane Doe'];
let h: Harness;
let aap: AapServer;
let dmc: Dmc12Server;

beforeAll(async () => {
  h = createHarness();
  aap = await startAapServer({ triage: h.triage });
  dmc = await startDmc12Server(h.triage);
  const customer = { name: PII[3], email: PII[0], phone: PII[1] };
  await post(aap.rpcUrl, sendMessageBody('tm-1', 'lead.submit', { customer, vin: PII[2], failInHandler: 'CONTACT_CONSENT_REQUIRED' }));
  await post(aap.rpcUrl, sendMessageBody('tm-2', 'inventory.search', { vin: PII[2] }));
  await post(dmc.url, toolsCall('tm-3', 'initiate_deal_handoff', { customer, vin: PII[2], fail: 'VALIDATION_FAILED' }), DMC12_HEADERS);
  await post(dmc.url, toolsCall('tm-4', 'search_inventory', { vin: PII[2] }), DMC12_HEADERS);
  await post(dmc.url, toolsCall('tm-5', 'search_inventory', { vin: PII[2] }), DMC12_HEADERS); // a retry of tm-4
  await waitFor(() => h.otel.spans().length >= 5 && h.sink.events.length >= 2);
});
afterAll(async () => {
  await aap.close();
  await dmc.close();
  await h.triage.shutdown();
});

describe('metrics', () => {
  it('creates every instrument with its unit and description', async () => {
    const m = await h.otel.metrics();
    for (const spec of Object.values(METRICS)) {
      const data = m.get(spec.name);
      expect(data, spec.name).toBeDefined();
      expect(data?.descriptor.unit).toBe(spec.unit);
      expect(data?.descriptor.description).toBe(spec.description);
    }
  });

  it('counts calls, errors and attempts with low-cardinality labels only', async () => {
    const m = await h.otel.metrics();
    expect(histogramCount(m.get('rpc.server.call.duration'))).toBeGreaterThanOrEqual(4);
    expect(counterSum(m.get('aap.server.errors'), { 'aap.error.code': 'CONTACT_CONSENT_REQUIRED', 'aap.error.retryable': false, 'aap.skill': 'lead.submit' })).toBe(1);
    expect(counterSum(m.get('aap.server.errors'), { 'error.type': 'VALIDATION_FAILED', 'aap.error.code': 'VALIDATION_FAILED', 'aap.protocol': 'dmc12' })).toBe(1);
    expect(counterSum(m.get('aap.audit.records'), { 'aap.audit.outcome': 'written' })).toBe(h.sink.events.length);
    const allowed = new Set<string>(Object.values(METRIC_ATTRIBUTES).flat());
    allowed.add('aap.retry.flag').add('aap.conformance.rule').add('aap.audit.outcome');
    for (const [name, data] of m) {
      for (const p of data.dataPoints) {
        for (const [k, v] of Object.entries(p.attributes)) {
          expect(allowed.has(k), `${name} label ${k}`).toBe(true);
          expect(String(v)).not.toMatch(/^err_|^trc_|@|^\+1555/);
        }
      }
    }
  });
});

describe('no request values or message texts', () => {
  it('keeps the fixture PII and the error messages out of spans, metric labels and log lines', async () => {
    const spans = JSON.stringify(h.otel.spans().map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })));
    const metrics = JSON.stringify([...(await h.otel.metrics()).values()].map((d) => d.dataPoints.map((p) => p.attributes)));
    const logs = h.log.raw.join('');
    for (const value of [...PII, 'test failure', 'failure VALIDATION_FAILED']) {
      expect(spans).not.toContain(value);
      expect(metrics).not.toContain(value);
      expect(logs).not.toContain(value);
    }
    const events = JSON.stringify(h.sink.events);
    for (const value of PII) expect(events).not.toContain(value);
    const lead = h.sink.events.find((e) => e.code === 'CONTACT_CONSENT_REQUIRED');
    expect(lead?.subject).toMatch(/.+/);
  });
});
