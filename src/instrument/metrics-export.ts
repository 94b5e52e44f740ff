/**
 * Metrics export for a server that calls `createTriage` without an OpenTelemetry SDK (issue 8,
 * "Export"). `aap-triage/register` starts `@opentelemetry/sdk-node`, which reads
 * `OTEL_METRICS_EXPORTER` itself; a server that only calls `createTriage` has no SDK, so its
 * instruments would record into the API's no-op meter. This builds the metric readers the Node
 * SDK would build from the same variables, with the SDK's own factories, so the two paths export
 * the same way:
 *
 * - `prometheus`: `PrometheusExporter`, serving `/metrics` on `OTEL_EXPORTER_PROMETHEUS_HOST`
 *   (default 127.0.0.1, not every interface: issue 13) and `OTEL_EXPORTER_PROMETHEUS_PORT`
 *   (default 9464).
 * - `otlp`: the OTLP metric exporter of `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL` /
 *   `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf` default, `http/json`, `grpc`), endpoint and
 *   headers from the `OTEL_EXPORTER_OTLP_*` variables, pushed every `OTEL_METRIC_EXPORT_INTERVAL`
 *   ms (default 60 000) with `OTEL_METRIC_EXPORT_TIMEOUT` ms (default 30 000).
 * - `console`: the SDK's console exporter.
 *
 * Deliberate differences from the SDK: when `OTEL_METRICS_EXPORTER` is unset, nothing is
 * started (the SDK would default to OTLP to localhost:4318) — a library that opens a network
 * exporter the operator never asked for would surprise them; the Prometheus endpoint binds
 * 127.0.0.1 unless `OTEL_EXPORTER_PROMETHEUS_HOST` says otherwise; and the resource has no
 * process attributes (command line, executable path, owner), so `target_info` carries no
 * secret passed on a command line.
 */
import { createRequire } from 'node:module';
import { createNoopMeter, diag, metrics } from '@opentelemetry/api';
import type * as PrometheusModule from '@opentelemetry/exporter-prometheus';
import type * as OtlpGrpcModule from '@opentelemetry/exporter-metrics-otlp-grpc';
import type * as OtlpHttpModule from '@opentelemetry/exporter-metrics-otlp-http';
import type * as OtlpProtoModule from '@opentelemetry/exporter-metrics-otlp-proto';
import type * as ResourcesModule from '@opentelemetry/resources';
import type * as SdkMetricsModule from '@opentelemetry/sdk-metrics';
import type { IMetricReader, MeterProvider, PushMetricExporter } from '@opentelemetry/sdk-metrics';

import { hostResourceAttributes } from './host-resource.js';

// The SDK packages are loaded on demand, only when OTEL_METRICS_EXPORTER asks for an export: a
// library entry point loads no SDK or exporter module (issue 13). They are CommonJS packages,
// so `require` loads them synchronously and `createTriage` stays synchronous.
const load = createRequire(import.meta.url);

/** Exporter names of `OTEL_METRICS_EXPORTER` that this module starts. */
export const SUPPORTED_METRICS_EXPORTERS = ['prometheus', 'otlp', 'console'] as const;
/** One of {@link SUPPORTED_METRICS_EXPORTERS}. */
export type MetricsExporterName = (typeof SUPPORTED_METRICS_EXPORTERS)[number];

/** A running metrics export started by {@link startMetricsExportFromEnv}. */
export interface MetricsExport {
  /** The meter provider, also registered as the global one. */
  readonly meterProvider: MeterProvider;
  /** Exporters started, in the order `OTEL_METRICS_EXPORTER` named them. */
  readonly exporters: readonly MetricsExporterName[];
  /**
   * Flushes (OTLP: a last push), stops the Prometheus endpoint, and unregisters the global meter
   * provider. Never rejects. Idempotent.
   */
  shutdown(): Promise<void>;
}

/**
 * The exporters `OTEL_METRICS_EXPORTER` asks for: a comma-separated list, trimmed, lower-cased,
 * de-duplicated; unknown names dropped with a `diag.warn`. Empty when unset or when the list
 * contains `none` (as in the SDK).
 */
export function metricsExportersFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsExporterName[] {
  const names = (env.OTEL_METRICS_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
  if (names.includes('none')) return [];
  const out: MetricsExporterName[] = [];
  for (const n of names) {
    if ((SUPPORTED_METRICS_EXPORTERS as readonly string[]).includes(n)) {
      if (!out.includes(n as MetricsExporterName)) out.push(n as MetricsExporterName);
    } else {
      diag.warn(`aap-triage: unsupported OTEL_METRICS_EXPORTER value "${n}" (supported: otlp, prometheus, console, none)`);
    }
  }
  return out;
}

/** True when `OTEL_METRICS_EXPORTER` names an exporter and the SDK is not disabled (no module loaded). */
export function wantsMetricsExport(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const v = (env.OTEL_METRICS_EXPORTER ?? '').trim().toLowerCase();
  return v !== '' && v !== 'none';
}

/** True when some meter provider other than the API's no-op one is registered globally. */
export function hasGlobalMeterProvider(): boolean {
  return metrics.getMeterProvider().getMeter('aap-triage') !== createNoopMeter();
}

/** A positive integer from the environment, else `fallback` (ms). */
function envMs(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * The OTLP metric exporter of `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`
 * (`http/protobuf` default, `http/json`, `grpc`). Each exporter reads its endpoint, headers,
 * temporality and timeout from the `OTEL_EXPORTER_OTLP_*` variables itself.
 */
function otlpExporter(): PushMetricExporter {
  const protocol = (process.env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  switch (protocol) {
    case 'grpc':
      return new (load('@opentelemetry/exporter-metrics-otlp-grpc') as typeof OtlpGrpcModule).OTLPMetricExporter();
    case 'http/json':
      return new (load('@opentelemetry/exporter-metrics-otlp-http') as typeof OtlpHttpModule).OTLPMetricExporter();
    default:
      if (protocol !== 'http/protobuf') diag.warn(`aap-triage: unsupported OTLP metrics protocol "${protocol}", using http/protobuf`);
      return new (load('@opentelemetry/exporter-metrics-otlp-proto') as typeof OtlpProtoModule).OTLPMetricExporter();
  }
}

function readerFor(name: MetricsExporterName, sdk: typeof SdkMetricsModule): IMetricReader {
  switch (name) {
    case 'prometheus': {
      const { PrometheusExporter } = load('@opentelemetry/exporter-prometheus') as typeof PrometheusModule;
      // Loopback unless configured: a scrape endpoint on every interface publishes the metrics
      // to the network. A bind error is reported through diag by the exporter, never thrown.
      return new PrometheusExporter({ host: process.env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim() || '127.0.0.1' });
    }
    case 'otlp':
      return new sdk.PeriodicExportingMetricReader({
        exporter: otlpExporter(),
        exportIntervalMillis: envMs('OTEL_METRIC_EXPORT_INTERVAL', 60_000),
        exportTimeoutMillis: envMs('OTEL_METRIC_EXPORT_TIMEOUT', 30_000),
      });
    case 'console':
      return new sdk.PeriodicExportingMetricReader({ exporter: new sdk.ConsoleMetricExporter() });
  }
}

/**
 * Starts metrics export from the `OTEL_*` environment (of this process: the SDK factories read
 * `process.env`), registers the meter provider globally and returns it. Returns null — and
 * starts nothing — when `OTEL_SDK_DISABLED=true`, when `OTEL_METRICS_EXPORTER` is unset, empty or
 * contains `none`, or when a meter provider is already registered (the host's NodeSDK or
 * `aap-triage/register` is then in charge). Never throws; a failure is logged through `diag`
 * and yields null.
 *
 * @param options.serviceName `service.name` of the resource when neither `OTEL_SERVICE_NAME` nor
 *   `OTEL_RESOURCE_ATTRIBUTES` sets one (those win, as in the SDK). It becomes `target_info` on
 *   the Prometheus endpoint and the `job` label on the OTLP → Collector → Prometheus path.
 */
export function startMetricsExportFromEnv(options: { serviceName?: string } = {}): MetricsExport | null {
  try {
    if ((process.env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
    const exporters = metricsExportersFromEnv(process.env);
    if (exporters.length === 0 || hasGlobalMeterProvider()) return null;

    const sdk = load('@opentelemetry/sdk-metrics') as typeof SdkMetricsModule;
    const { defaultResource, detectResources, envDetector, resourceFromAttributes } = load('@opentelemetry/resources') as typeof ResourcesModule;
    // No process detector: its command line, executable path and owner would reach every scraper.
    let resource = defaultResource().merge(resourceFromAttributes(hostResourceAttributes()));
    if (options.serviceName) resource = resource.merge(resourceFromAttributes({ 'service.name': options.serviceName }));
    resource = resource.merge(detectResources({ detectors: [envDetector] }));

    const meterProvider = new sdk.MeterProvider({ resource, readers: exporters.map((n) => readerFor(n, sdk)) });
    if (!metrics.setGlobalMeterProvider(meterProvider)) {
      void meterProvider.shutdown().catch(() => undefined);
      return null;
    }
    let done: Promise<void> | undefined;
    return {
      meterProvider,
      exporters,
      shutdown() {
        done ??= meterProvider
          .shutdown()
          .catch((err: unknown) => diag.error('aap-triage: metrics export shutdown failed', err))
          .finally(() => {
            if (metrics.getMeterProvider() === meterProvider) metrics.disable();
          });
        return done;
      },
    };
  } catch (err) {
    diag.error('aap-triage: metrics export not started', err);
    return null;
  }
}
