// startMetricsExportFromEnv: the OTEL_METRICS_EXPORTER support `createTriage` needs when no SDK is
// registered (issue 8 "Export"). Real exporters: the Prometheus endpoint is fetched over HTTP and
// OTLP/HTTP JSON is received by a loopback server. This file changes process.env; vitest runs
// each test file in its own process (pool: forks), so nothing leaks into other files.
import { createServer } from 'node:http';
import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from './otlp-receiver.js';
import {
  hasGlobalMeterProvider,
  metricsExportersFromEnv,
  startMetricsExportFromEnv,
  type MetricsExport,
} from '../../src/instrument/metrics-export.js';
import { METRICS, INSTRUMENTATION_SCOPE } from '../../src/instrument/attributes.js';
import { createTriage } from '../../src/instrument/index.js';
import { freePort } from './prometheus.js';

const OTEL_KEYS = [
  'OTEL_METRICS_EXPORTER',
  'OTEL_EXPORTER_PROMETHEUS_HOST',
  'OTEL_EXPORTER_PROMETHEUS_PORT',
  'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_METRIC_EXPORT_TIMEOUT',
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
];
const saved = Object.fromEntries(OTEL_KEYS.map((k) => [k, process.env[k]]));
let running: MetricsExport | null = null;

afterEach(async () => {
  await running?.shutdown();
  running = null;
  for (const k of OTEL_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('metricsExportersFromEnv', () => {
  it('parses the comma list like the SDK: trimmed, lower-cased, de-duplicated, none wins, unknown dropped', () => {
    expect(metricsExportersFromEnv({})).toEqual([]);
    expect(metricsExportersFromEnv({ OTEL_METRICS_EXPORTER: ' Prometheus , otlp,prometheus' })).toEqual(['prometheus', 'otlp']);
    expect(metricsExportersFromEnv({ OTEL_METRICS_EXPORTER: 'otlp,none' })).toEqual([]);
    expect(metricsExportersFromEnv({ OTEL_METRICS_EXPORTER: 'statsd,console' })).toEqual(['console']);
  });
});

describe('startMetricsExportFromEnv', () => {
  it('starts nothing when OTEL_METRICS_EXPORTER is unset, none, or the SDK is disabled', () => {
    delete process.env.OTEL_METRICS_EXPORTER;
    expect(startMetricsExportFromEnv()).toBeNull();
    process.env.OTEL_METRICS_EXPORTER = 'none';
    expect(startMetricsExportFromEnv()).toBeNull();
    process.env.OTEL_METRICS_EXPORTER = 'prometheus';
    process.env.OTEL_SDK_DISABLED = 'true';
    expect(startMetricsExportFromEnv()).toBeNull();
    expect(hasGlobalMeterProvider()).toBe(false);
  });

  it('serves the Prometheus endpoint on OTEL_EXPORTER_PROMETHEUS_HOST:PORT with what the global meter records', async () => {
    const port = await freePort();
    process.env.OTEL_METRICS_EXPORTER = 'prometheus';
    process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '127.0.0.1';
    process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(port);
    running = startMetricsExportFromEnv({ serviceName: 'dealer-under-test' });
    expect(running?.exporters).toEqual(['prometheus']);
    expect(hasGlobalMeterProvider()).toBe(true);

    const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
    meter.createCounter(METRICS.errors.name, { unit: METRICS.errors.unit }).add(3, { 'aap.error.code': 'RATE_LIMITED' });

    let text = '';
    for (let i = 0; i < 50 && !text.includes('aap_server_errors_total'); i++) {
      text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
      if (!text) await new Promise((r) => setTimeout(r, 100));
    }
    expect(text).toMatch(/^aap_server_errors_total\{aap_error_code="RATE_LIMITED",otel_scope_name="aap-triage"[^}]*\} 3$/m);
    expect(text).toMatch(/^target_info\{[^}]*service_name="dealer-under-test"/m);
  });

  it('leaves an already registered meter provider in charge', async () => {
    const port = await freePort();
    process.env.OTEL_METRICS_EXPORTER = 'prometheus';
    process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '127.0.0.1';
    process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(port);
    running = startMetricsExportFromEnv();
    expect(running).not.toBeNull();
    expect(startMetricsExportFromEnv()).toBeNull();
  });

  it('pushes OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_METRICS_ENDPOINT every OTEL_METRIC_EXPORT_INTERVAL ms, with service.name', async () => {
    const receiver = await startOtlpReceiver();
    const { bodies } = receiver;
    try {
      process.env.OTEL_METRICS_EXPORTER = 'otlp';
      process.env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL = 'http/json';
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = receiver.endpoint;
      process.env.OTEL_METRIC_EXPORT_INTERVAL = '200';
      process.env.OTEL_METRIC_EXPORT_TIMEOUT = '150';
      process.env.OTEL_SERVICE_NAME = 'dealer-otlp';
      running = startMetricsExportFromEnv({ serviceName: 'ignored-because-env-wins' });
      expect(running?.exporters).toEqual(['otlp']);
      metrics.getMeter(INSTRUMENTATION_SCOPE).createCounter(METRICS.retries.name, { unit: METRICS.retries.unit }).add(1);
      for (let i = 0; i < 50 && !bodies.some((b) => b.includes(METRICS.retries.name)); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const body = bodies.find((b) => b.includes(METRICS.retries.name));
      expect(body).toBeDefined();
      const parsed = JSON.parse(body!) as {
        resourceMetrics: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[];
      };
      const attrs = parsed.resourceMetrics[0]?.resource.attributes ?? [];
      expect(attrs.find((a) => a.key === 'service.name')?.value.stringValue).toBe('dealer-otlp');
    } finally {
      await running?.shutdown();
      running = null;
      await receiver.close();
    }
  });
});

describe('createTriage without an OpenTelemetry SDK', () => {
  it('serves its metrics on OTEL_EXPORTER_PROMETHEUS_HOST:PORT when OTEL_METRICS_EXPORTER=prometheus', async () => {
    const port = await freePort();
    process.env.OTEL_METRICS_EXPORTER = 'prometheus';
    process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '127.0.0.1';
    process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(port);
    expect(hasGlobalMeterProvider()).toBe(false);
    const triage = createTriage({ serviceName: 'plain-create-triage', auditDb: false, logger: false });
    const server = createServer(
      triage.wrap((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }));
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    const rpcPort = typeof addr === 'object' && addr ? addr.port : 0;
    try {
      await fetch(`http://127.0.0.1:${rpcPort}/`, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"nope"}' }).then((r) => r.text());
      let text = '';
      for (let i = 0; i < 30 && !text.includes('aap_server_errors_total{'); i++) {
        text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
        if (!text.includes('aap_server_errors_total{')) await new Promise((r) => setTimeout(r, 100));
      }
      expect(text).toMatch(/^aap_server_errors_total\{[^}]*aap_error_code="-32601"[^}]*\} 1$/m);
      expect(text).toMatch(/^target_info\{[^}]*service_name="plain-create-triage"/m);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await triage.shutdown();
      if (hasGlobalMeterProvider()) metrics.disable();
    }
  });
});
