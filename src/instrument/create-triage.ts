/**
 * `createTriage(options)`: the framework API (issue 3 "Public API") on the shared core
 * (core.ts): Express middleware, a `node:http` listener wrapper, and `shutdown`. For a process
 * whose OpenTelemetry SDK takes instrumentations, `AapTriageInstrumentation` is the other front
 * on the same core (docs/instrumentation.md says when to use which).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { metrics, trace } from '@opentelemetry/api';
import type { MeterProvider } from '@opentelemetry/api';
import type { ExchangeErrors } from './taps/aap-error-hook.js';
import type { MetricsExport } from './metrics-export.js';
import { loadRuntime } from './load-runtime.js';
import { createErrorHandler } from './express.js';
import { checkOptions } from './options.js';
import type { Triage, TriageOptions } from './types.js';

/**
 * Creates the instrumentation. See {@link TriageOptions} for every option and its default.
 *
 * Throws TypeError / RangeError for invalid options (naming the option); after that, nothing it
 * returns throws into the host. If the audit database or key cannot be opened, telemetry keeps
 * working and one warning says why.
 *
 * Without a `meterProvider` option it records on the global meter provider, and follows it when
 * the host registers one later (the check is one global read per exchange).
 */
export function createTriage(options?: TriageOptions): Triage {
  const o = checkOptions(options);
  // The core, the taps and the audit store load here, not at import (load-runtime.ts).
  const { createCore, enterErrors, runWithErrors, startMetricsExportFromEnv, wantsMetricsExport } = loadRuntime();
  const handle = createCore(o, { tracerProvider: o.tracerProvider ?? trace.getTracerProvider(), meterProvider: o.meterProvider ?? metrics.getMeterProvider() });
  const { core } = handle;
  const safe = core.safe;

  // The global meter provider the core records on (null: the caller passed one of its own). A
  // provider registered later (the host's SDK started after createTriage) is used from then on.
  let globalMeterProvider: MeterProvider | null = o.meterProvider ? null : metrics.getMeterProvider();
  const followGlobalMeter = (): void => {
    if (!globalMeterProvider) return;
    const now = metrics.getMeterProvider();
    if (now !== globalMeterProvider) {
      globalMeterProvider = now;
      handle.setMeterProvider(now);
    }
  };

  // Without a meter provider of its own (no NodeSDK, no `register`), honour OTEL_METRICS_EXPORTER
  // the way the SDK would (issue 8); with one registered, this starts nothing. The SDK modules
  // are loaded only when the variable asks for an export. Started one turn of the event loop
  // later: a host that creates the triage first and starts its own NodeSDK next (same start-up
  // code) is then in charge, with no duplicate registration and no second exporter on its port.
  let metricsExport: MetricsExport | null = null;
  let exportTimer: NodeJS.Timeout | null = null;
  if (!o.meterProvider && wantsMetricsExport()) {
    exportTimer = setTimeout(() => {
      exportTimer = null;
      metricsExport = safe.call('metrics-export', () => startMetricsExportFromEnv({ serviceName: core.service }), null);
      followGlobalMeter();
    }, 0);
  }
  followGlobalMeter();

  const observe = (req: IncomingMessage, res: ServerResponse, bind: boolean): ExchangeErrors | null => {
    followGlobalMeter();
    return handle.observe(req, res, bind);
  };

  let closing: Promise<void> | null = null;
  return {
    middleware() {
      return (req, res, next) => {
        let errors: ExchangeErrors | null = null;
        try {
          errors = observe(req, res, true);
        } catch (err) {
          safe.fail('observer', err);
        }
        // Under a valid HTTP server span the store is found by its trace id: no context switch.
        if (errors && errors.traceId === null) runWithErrors(errors, () => next());
        else next();
      };
    },
    errorHandler() {
      // The exchange may already be observed (middleware ran before body-parser failed): the
      // core then passes it through, so the envelope is recorded once.
      return createErrorHandler((req, res) => {
        try {
          observe(req, res, false);
        } catch (err) {
          safe.fail('observer', err);
        }
      });
    },
    wrap<L extends RequestListener>(listener: L): L {
      const wrapped = function (this: unknown, req: IncomingMessage, res: ServerResponse) {
        let errors: ExchangeErrors | null = null;
        try {
          errors = observe(req, res, true);
        } catch (err) {
          safe.fail('observer', err);
        }
        return errors && errors.traceId === null ? runWithErrors(errors, () => listener.call(this, req, res)) : listener.call(this, req, res);
      };
      return wrapped as unknown as L;
    },
    observe(req, res) {
      try {
        const errors = observe(req, res, false);
        if (errors) enterErrors(errors);
      } catch (err) {
        safe.fail('observer', err);
      }
    },
    shutdown() {
      closing ??= (async () => {
        await handle.shutdown();
        if (exportTimer) clearTimeout(exportTimer);
        const started = metricsExport as MetricsExport | null;
        if (started) await safe.callAsync('metrics-export', () => started.shutdown());
      })();
      return closing;
    },
  };
}
