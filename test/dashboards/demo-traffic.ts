/**
 * Real traffic for the dashboard tests: the demo's two dealer agents (AAP on @a2a-js/sdk, DMC-12
 * on node:http), instrumented with `createTriage` as a user would, driven by the demo's buyer
 * simulator (healthy and misbehaving buyers). Each service exports its metrics on its own
 * loopback Prometheus endpoint, as two server processes would:
 *
 * - the AAP service through the environment only: `OTEL_METRICS_EXPORTER=prometheus`,
 *   `OTEL_EXPORTER_PROMETHEUS_HOST/_PORT`, which `createTriage` honours when no SDK is registered;
 * - the DMC-12 service through `createTriage({ meterProvider })` with its own `PrometheusExporter`.
 *
 * Changes process.env (OTEL_*); call it once per test file (each file runs in its own process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { pino } from 'pino';
import { loadPseudonymizer } from '../../src/audit/index.js';
import { DEMO_DEFAULTS } from '../../src/demo/constants.js';
import { startDealers } from '../../src/demo/dealers.js';
import { personas } from '../../src/demo/buyers/personas.js';
import { runSimulation, type BuyerReport } from '../../src/demo/simulator.js';
import { createTriage } from '../../src/instrument/index.js';
import { hasGlobalMeterProvider } from '../../src/instrument/metrics-export.js';
import { freePort, type ScrapeTarget } from './prometheus.js';

/** A Prometheus endpoint of one instrumented service. */
export interface ServiceEndpoint extends ScrapeTarget {
  /** `http://127.0.0.1:<port>/metrics`. */
  url: string;
}

/** The instrumented demo, ready for traffic. */
export interface InstrumentedDemo {
  /** One endpoint per service; `job` is the service name. */
  endpoints: ServiceEndpoint[];
  /** Runs the buyer simulator for `durationMs` milliseconds. */
  runTraffic(durationMs: number): Promise<BuyerReport[]>;
  /** GETs every endpoint and returns the texts, by job. */
  scrape(): Promise<Map<string, string>>;
  /** Stops the servers, shuts the instrumentation and exporters down, removes the temp dir. */
  close(): Promise<void>;
}

/** Starts the instrumented demo dealers (no traffic yet). `seed` picks the demo's PRNG seed. */
export async function startInstrumentedDemo(seed = 12): Promise<InstrumentedDemo> {
  const dir = mkdtempSync(join(tmpdir(), 'aap-triage-dash-'));
  const auditDb = join(dir, 'audit.db');
  // The key is created here with a silent logger, so the test output has no "created pseudonym key" line.
  const pseudonymizer = loadPseudonymizer({ dbPath: auditDb, create: true, logger: pino({ level: 'silent' }) });
  const aapJob = DEMO_DEFAULTS.aapService;
  const dmcJob = DEMO_DEFAULTS.dmc12Service;

  const aapPort = await freePort();
  process.env.OTEL_METRICS_EXPORTER = 'prometheus';
  process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '127.0.0.1';
  process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(aapPort);
  if (hasGlobalMeterProvider()) throw new Error('a meter provider is already registered; the env export would not start');
  const aapTriage = createTriage({ serviceName: aapJob, auditDb, logger: false, pseudonymizer });
  // The export starts one event-loop turn later (a host SDK started next would be in charge).
  await new Promise((r) => setTimeout(r, 10));
  if (!hasGlobalMeterProvider()) throw new Error('createTriage did not start the Prometheus export from OTEL_METRICS_EXPORTER');

  const dmcPort = await freePort();
  const dmcMeterProvider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': dmcJob }),
    readers: [new PrometheusExporter({ host: '127.0.0.1', port: dmcPort })],
  });
  // Its own file: two writers opening one new file at once have been seen to fail with
  // SQLITE_BUSY on a loaded CI machine (not yet understood; see the closing note of issue 16),
  // and this test is about the dashboard, not about sharing a store.
  const dmcTriage = createTriage({ serviceName: dmcJob, auditDb: join(dir, 'audit-dmc12.db'), logger: false, pseudonymizer, meterProvider: dmcMeterProvider });

  const roster = personas(seed);
  const dealers = await startDealers({
    personas: roster,
    seed,
    aapMiddleware: aapTriage.middleware(),
    wrapDmc12: (listener) => dmcTriage.wrap(listener),
  });

  const endpoints: ServiceEndpoint[] = [
    { job: aapJob, address: `127.0.0.1:${aapPort}`, url: `http://127.0.0.1:${aapPort}/metrics` },
    { job: dmcJob, address: `127.0.0.1:${dmcPort}`, url: `http://127.0.0.1:${dmcPort}/metrics` },
  ];

  return {
    endpoints,
    runTraffic: (durationMs) =>
      runSimulation({
        aapBaseUrl: dealers.aapBaseUrl,
        dmc12RpcUrl: dealers.dmc12RpcUrl,
        personas: roster,
        durationMs,
        seed,
        scenario: dealers.scenario,
      }),
    async scrape() {
      const out = new Map<string, string>();
      for (const e of endpoints) out.set(e.job, await fetch(e.url).then((r) => r.text()));
      return out;
    },
    async close() {
      await dealers.close();
      // createTriage's shutdown also stops the export it started from the environment.
      await Promise.all([aapTriage.shutdown(), dmcTriage.shutdown()]);
      await dmcMeterProvider.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
