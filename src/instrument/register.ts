/**
 * `node --import aap-triage/register server.js`: instrumentation with no code change (issue 3),
 * built on {@link AapTriageInstrumentation} (issue 13).
 *
 * 1. Creates the instrumentation, which observes every `node:http` server in the process
 *    through the `http.server.request.start` diagnostics channel.
 * 2. When no global tracer provider is registered yet, starts the OpenTelemetry Node SDK with it
 *    and the HTTP instrumentation. The SDK reads the standard `OTEL_*` variables itself:
 *    `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`, `OTEL_LOGS_EXPORTER`,
 *    `OTEL_NODE_RESOURCE_DETECTORS`, `OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`, … Three
 *    defaults differ, each for a reason:
 *    - `OTEL_TRACES_EXPORTER=none` still gets a tracer provider (with no exporter), so trace ids
 *      stay valid and sampled: audit rows, log lines and the `traceresponse` header keep them.
 *    - without `OTEL_NODE_RESOURCE_DETECTORS`, the resource is the SDK default, `host.name`,
 *      `host.arch` and the `env` detector: the process detector would publish the command line,
 *      executable path and user to every backend (host-resource.ts).
 *    - the Prometheus endpoint binds 127.0.0.1 unless `OTEL_EXPORTER_PROMETHEUS_HOST` is set.
 *    A host that starts its own SDK first (`--import ./otel.mjs --import aap-triage/register`)
 *    keeps it: only the instrumentation is added, and nothing is registered twice.
 * 3. Flushes the audit sink, traffic counters and the SDK on SIGTERM and beforeExit.
 *
 * Like contrib's auto-instrumentations register entry, everything starts inside try/catch: on
 * failure one line says the app runs uninstrumented, and the app starts anyway. Options come
 * from the environment: `AAP_TRIAGE_DB` (audit database; `off` disables it), `OTEL_SERVICE_NAME`,
 * `AAP_TRIAGE_AAP_FORM` (`auto` | `2.0` | `released`), `AAP_TRIAGE_EXTENSION_URI`.
 */
import { register as registerLoader } from 'node:module';
import { ProxyTracerProvider, diag, trace } from '@opentelemetry/api';
import type { TracerProvider } from '@opentelemetry/api';
import { hostResourceAttributes } from './host-resource.js';
import { AapTriageInstrumentation } from './instrumentation.js';
import type { AapTriageInstrumentationConfig } from './types.js';

function warn(message: string, err?: unknown): void {
  const type = err instanceof Error ? `: ${err.name}: ${err.message}` : '';
  process.stderr.write(`aap-triage/register: ${message}${type}\n`);
  diag.error(`aap-triage/register: ${message}`);
}

/** True when some tracer provider other than the API's default no-op one is registered. */
export function hasGlobalTracerProvider(): boolean {
  const global: TracerProvider = trace.getTracerProvider();
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  // A fresh proxy's delegate is the API's no-op provider: same class means none is registered.
  return delegate.constructor !== new ProxyTracerProvider().getDelegate().constructor;
}

function envList(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
}

/** A span processor that exports nothing: traces are kept (ids, sampling) but not sent. */
class NoExportSpanProcessor {
  onStart(): void {}
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The SDK modules `register` needs, loaded before any instrumentation exists (see below). */
async function loadSdk() {
  const [sdkNode, http, resources] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/resources'),
  ]);
  return { NodeSDK: sdkNode.NodeSDK, HttpInstrumentation: http.HttpInstrumentation, envDetector: resources.envDetector, resourceFromAttributes: resources.resourceFromAttributes };
}

function startSdk(sdkModules: Awaited<ReturnType<typeof loadSdk>>, instrumentation: AapTriageInstrumentation): { shutdown(): Promise<void> } {
  const { NodeSDK, HttpInstrumentation, envDetector, resourceFromAttributes } = sdkModules;
  try {
    // ESM hosts need the import-in-the-middle loader: without it an `import http from 'node:http'`
    // server gets no HTTP server span (checked by hand), only our call spans. Its hooks thread
    // is most of what register adds to start-up beyond the SDK itself (docs/benchmarks.md).
    registerLoader('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  } catch {
    // Loader hooks unavailable: core-module instrumentation still works.
  }
  // Loopback unless configured (the SDK builds the Prometheus exporter, which reads this variable).
  process.env.OTEL_EXPORTER_PROMETHEUS_HOST ||= '127.0.0.1';
  const traces = envList('OTEL_TRACES_EXPORTER');
  const sdk = new NodeSDK({
    instrumentations: [new HttpInstrumentation(), instrumentation],
    // host.name and host.arch, then the OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME detector;
    // no process detector (host-resource.ts says why) unless OTEL_NODE_RESOURCE_DETECTORS asks.
    ...(process.env.OTEL_NODE_RESOURCE_DETECTORS ? {} : { resource: resourceFromAttributes(hostResourceAttributes()), resourceDetectors: [envDetector] }),
    ...(traces.length > 0 && traces.every((t) => t === 'none') ? { spanProcessors: [new NoExportSpanProcessor()] } : {}),
  });
  sdk.start();
  return sdk;
}

function optionsFromEnv(env: NodeJS.ProcessEnv): AapTriageInstrumentationConfig {
  const o: AapTriageInstrumentationConfig = {};
  const db = env.AAP_TRIAGE_DB?.trim();
  if (db === 'off' || db === 'false') o.auditDb = false;
  const form = env.AAP_TRIAGE_AAP_FORM?.trim();
  if (form === 'auto' || form === '2.0' || form === 'released') o.aapForm = form;
  const uri = env.AAP_TRIAGE_EXTENSION_URI?.trim();
  if (uri && URL.canParse(uri)) o.requiredExtensionUri = uri;
  return o;
}

let sdk: { shutdown(): Promise<void> } | null = null;
let instrumentation: AapTriageInstrumentation | null = null;

const wantSdk = process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' && !hasGlobalTracerProvider();
let sdkModules: Awaited<ReturnType<typeof loadSdk>> | null = null;
if (wantSdk) {
  try {
    // Loaded before the instrumentation is constructed: an instrumentation installs the
    // require-in-the-middle hook, which would otherwise sit in front of every one of the SDK's
    // ~1,000 requires (measured: over a second of start-up; bench/startup.bench.mjs).
    sdkModules = await loadSdk();
  } catch (err) {
    warn('could not load the OpenTelemetry SDK; spans and metrics are not exported', err);
  }
}

try {
  instrumentation = new AapTriageInstrumentation(optionsFromEnv(process.env));
} catch (err) {
  warn('could not start; the app runs uninstrumented', err);
}

if (instrumentation && sdkModules) {
  try {
    sdk = startSdk(sdkModules, instrumentation);
  } catch (err) {
    warn('could not start the OpenTelemetry SDK; spans and metrics are not exported', err);
  }
}

/** Longest a shutdown waits for the SDK's exporters, ms. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

let stopping: Promise<void> | null = null;
/** Flushes the audit sink, traffic counters and the SDK (at most 5 s). Resolves when done; never rejects. */
export function shutdown(): Promise<void> {
  stopping ??= (async () => {
    try {
      await instrumentation?.shutdown();
    } catch {
      // shutdown never rejects; belt and braces.
    }
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
        timer.unref();
      });
      await Promise.race([sdk?.shutdown(), timeout]);
      clearTimeout(timer);
    } catch (err) {
      warn('SDK shutdown failed', err);
    }
  })();
  return stopping;
}

process.once('beforeExit', () => {
  void shutdown();
});
process.once('SIGTERM', () => {
  // The audit sink's own SIGTERM flush sees this listener and leaves the re-raise to us.
  void shutdown().finally(() => {
    // Re-raise so the process ends the way SIGTERM would have ended it, unless the host handles it.
    if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
  });
});
