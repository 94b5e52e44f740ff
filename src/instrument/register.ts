/**
 * `node --import aap-triage/register server.js`: instrumentation with no code change (issue 3).
 *
 * 1. Starts the OpenTelemetry Node SDK (`@opentelemetry/sdk-node`) from the standard `OTEL_*`
 *    environment variables — exporters (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`
 *    = otlp | prometheus | console | none, `OTEL_EXPORTER_PROMETHEUS_HOST/PORT`), resource,
 *    `OTEL_SDK_DISABLED` — with the HTTP instrumentation.
 * 2. Observes every `node:http` server in the process through the `http.server.request.start`
 *    diagnostics channel (published just before a server emits 'request'), so no listener is
 *    wrapped and no server needs to be created after this module.
 * 3. Flushes the audit sink, traffic counters and the SDK on SIGTERM and beforeExit.
 *
 * Like contrib's auto-instrumentations register entry, everything starts inside try/catch: on
 * failure one line says the app runs uninstrumented, and the app starts anyway. Options come
 * from the environment: `AAP_TRIAGE_DB` (audit database; `off` disables it), `OTEL_SERVICE_NAME`,
 * `AAP_TRIAGE_AAP_FORM` (`auto` | `2.0` | `released`), `AAP_TRIAGE_EXTENSION_URI`.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { register as registerLoader } from 'node:module';
import { diag } from '@opentelemetry/api';
import { createTriage } from './triage.js';
import type { Triage, TriageOptions } from './types.js';

/** Name of the diagnostics channel Node publishes before a server emits 'request' (Node ≥ 18.7). */
const REQUEST_START_CHANNEL = 'http.server.request.start';

interface RequestStartMessage {
  request: IncomingMessage;
  response: ServerResponse;
}

function warn(message: string, err?: unknown): void {
  const type = err instanceof Error ? `: ${err.name}: ${err.message}` : '';
  process.stderr.write(`aap-triage/register: ${message}${type}\n`);
  diag.error(`aap-triage/register: ${message}`);
}

async function startSdk(): Promise<{ shutdown(): Promise<void> } | null> {
  if (process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  try {
    // ESM hosts need the import-in-the-middle loader for module patching; node:http is patched either way.
    registerLoader('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  } catch {
    // Loader hooks unavailable: core-module instrumentation still works.
  }
  const [{ NodeSDK }, { HttpInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
  ]);
  const sdk = new NodeSDK({ instrumentations: [new HttpInstrumentation()] });
  sdk.start();
  return sdk;
}

function optionsFromEnv(env: NodeJS.ProcessEnv): TriageOptions {
  const o: TriageOptions = {};
  const db = env.AAP_TRIAGE_DB?.trim();
  if (db === 'off' || db === 'false') o.auditDb = false;
  const form = env.AAP_TRIAGE_AAP_FORM?.trim();
  if (form === 'auto' || form === '2.0' || form === 'released') o.aapForm = form;
  const uri = env.AAP_TRIAGE_EXTENSION_URI?.trim();
  if (uri && URL.canParse(uri)) o.requiredExtensionUri = uri;
  return o;
}

let sdk: { shutdown(): Promise<void> } | null = null;
let triage: Triage | null = null;

try {
  sdk = await startSdk();
} catch (err) {
  warn('could not start the OpenTelemetry SDK; spans and metrics are not exported', err);
}

try {
  const t = createTriage(optionsFromEnv(process.env));
  triage = t;
  subscribe(REQUEST_START_CHANNEL, (message) => {
    const { request, response } = message as RequestStartMessage;
    // Published synchronously right before the server emits 'request', so the exchange's
    // AapError store entered here covers the host's handler and what it awaits.
    t.observe(request, response);
  });
} catch (err) {
  warn('could not start; the app runs uninstrumented', err);
}

/** Longest a shutdown waits for the SDK's exporters, ms. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

let stopping: Promise<void> | null = null;
/** Flushes the audit sink, traffic counters and the SDK (at most 5 s). Resolves when done; never rejects. */
export function shutdown(): Promise<void> {
  stopping ??= (async () => {
    try {
      await triage?.shutdown();
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
