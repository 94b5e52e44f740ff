/**
 * `createTriage(options)`: wires the observer to its sinks (tracer, meter, pino, retry tracker,
 * traffic counters, audit sink) and returns the adapters (issue 3 "Public API").
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context as otelContext, isSpanContextValid, metrics, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { createPseudonymizer, loadPseudonymizer, openAuditSink, resolveDbPath } from '../audit/index.js';
import type { AuditHealth, AuditSink } from '../audit/sink.js';
import { ExchangeErrors, bindToTrace, enterErrors, installAapErrorHook, runWithErrors } from './aap-error-hook.js';
import { INSTRUMENTATION_SCOPE } from './attributes.js';
import { EndpointForms } from './endpoint-forms.js';
import { ErrorIdMemory } from './error-id-memory.js';
import type { TriageCore } from './internal-types.js';
import { startMetricsExportFromEnv } from './metrics-export.js';
import type { MetricsExport } from './metrics-export.js';
import { createInstruments } from './metrics.js';
import { isObservedBy, observeExchange } from './observer.js';
import { createErrorHandler } from './express.js';
import { DEFAULTS, DEFAULT_KNOWN_METHODS, DEFAULT_KNOWN_SKILLS, checkOptions, defaultCredential } from './options.js';
import { RetryTracker } from './retry-tracker.js';
import { SafeCaller } from './safe-call.js';
import { TrafficCounter } from './traffic.js';
import type { Pseudonymizer, Triage, TriageOptions } from './types.js';
import { VERSION } from './version.js';

/**
 * Creates the instrumentation. See {@link TriageOptions} for every option and its default.
 *
 * Throws TypeError / RangeError for invalid options (naming the option); after that, nothing it
 * returns throws into the host. If the audit database or key cannot be opened, telemetry keeps
 * working and one warning says why.
 */
export function createTriage(options?: TriageOptions): Triage {
  const o = checkOptions(options);
  const logger: Logger | null = o.logger === false ? null : (o.logger ?? pino({ name: INSTRUMENTATION_SCOPE }));
  const safe = new SafeCaller(
    logger ? (fields, msg) => logger.warn(fields, msg) : undefined,
  );
  const service = o.serviceName ?? (process.env.OTEL_SERVICE_NAME || DEFAULTS.serviceName);

  const traffic = new TrafficCounter(service);
  let sink: AuditSink | null = o.auditSink ?? null;
  let pseudonymizer: Pseudonymizer | null = o.pseudonymizer ?? null;
  if (!sink && o.auditDb !== false) {
    const path = resolveDbPath(o.auditDb);
    // The sink's exit flush also takes the traffic counted since the last timed flush.
    sink = safe.call('audit-open', () => openAuditSink({ path, service, trafficSource: () => traffic.drain() }), null);
    // The "created key file" notice goes where the host's own lines go (nowhere with logger: false).
    const keyLogger = logger ?? { info: () => undefined, warn: () => undefined, error: () => undefined };
    if (!pseudonymizer) pseudonymizer = safe.call('pseudonym-key', () => loadPseudonymizer({ dbPath: path, create: true, logger: keyLogger }), null);
  }
  // Without a key on disk, a per-process key still lets the retry tracker recognise callers.
  if (!pseudonymizer) pseudonymizer = createPseudonymizer(randomBytes(32).toString('hex'));

  // Without a meter provider of its own (no NodeSDK, no `register`), honour OTEL_METRICS_EXPORTER
  // the way the SDK would (issue 8); with one registered, this starts nothing.
  const metricsExport: MetricsExport | null = o.meterProvider ? null : safe.call('metrics-export', () => startMetricsExportFromEnv({ serviceName: service }), null);
  const tracer = (o.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, VERSION);
  const meter = (o.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE, VERSION);
  const health = (): AuditHealth | null => (sink ? safe.call('audit-health', () => (sink as AuditSink).health(), null) : null);
  const instruments = safe.call('metrics', () => createInstruments(meter, health), null);

  // Bounded memo of credential → pseudonym: one HMAC per caller instead of one per request. The
  // raw credential is only held as long as the host process already holds such strings.
  const clientMemo = new Map<string, string | null>();
  const p = pseudonymizer;
  const clientPseudonym = (credential: string): string | null => {
    const hit = clientMemo.get(credential);
    if (hit !== undefined) return hit;
    const value = p.client(credential);
    if (clientMemo.size >= 1024) clientMemo.clear();
    clientMemo.set(credential, value);
    return value;
  };

  // Same for the keyed fingerprint of an error row, by the call's (unkeyed) tracker hash: a storm
  // of retries of one call costs one canonical walk and HMAC, not one per attempt.
  const fingerprintMemo = new Map<string, string>();
  const fingerprintOf = (method: string, skill: string | null, params: unknown, memoKey: string | null): string | null => {
    if (memoKey !== null) {
      const hit = fingerprintMemo.get(memoKey);
      if (hit !== undefined) return hit;
    }
    const value = p.fingerprint(method, skill, params);
    if (memoKey !== null) {
      if (fingerprintMemo.size >= 1024) fingerprintMemo.clear();
      fingerprintMemo.set(memoKey, value);
    }
    return value;
  };

  const core: TriageCore = {
    service,
    tracer,
    instruments,
    logger,
    safe,
    sink,
    pseudonymizer,
    clientPseudonym,
    fingerprintOf,
    tracker: new RetryTracker({
      windowMs: o.retryWindowMs ?? DEFAULTS.retryWindowMs,
      maxKeys: o.retryTrackerMaxKeys ?? DEFAULTS.retryTrackerMaxKeys,
    }),
    traffic,
    knownMethods: new Set(o.knownMethods ?? DEFAULT_KNOWN_METHODS),
    knownSkills: new Set(o.knownSkills ?? DEFAULT_KNOWN_SKILLS),
    errorIds: new ErrorIdMemory(),
    forms: new EndpointForms(o.aapForm ?? DEFAULTS.aapForm, o.requiredExtensionUri ?? null, o.agentCard),
    maxBodyBytes: o.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    credential: o.credential ?? defaultCredential,
    requiredExtensionUri: o.requiredExtensionUri ?? null,
    active: true,
  };
  installAapErrorHook();

  const flushTraffic = (): void => {
    const samples = core.traffic.drain();
    if (samples.length > 0 && sink) {
      const s = sink;
      safe.call('audit-traffic', () => s.recordTraffic(samples), undefined);
    }
  };
  const timer = setInterval(flushTraffic, o.trafficFlushIntervalMs ?? DEFAULTS.trafficFlushIntervalMs);
  timer.unref();

  const observe = (req: IncomingMessage, res: ServerResponse, bind: boolean): ExchangeErrors => {
    const errors = new ExchangeErrors();
    if (bind && core.active) {
      const sc = trace.getSpan(otelContext.active())?.spanContext();
      if (sc && isSpanContextValid(sc)) bindToTrace(errors, sc.traceId);
    }
    observeExchange(core, req, res, errors);
    return errors;
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
      return createErrorHandler((req, res) => {
        try {
          if (!isObservedBy(core, res)) observe(req, res, false);
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
        enterErrors(observe(req, res, false));
      } catch (err) {
        safe.fail('observer', err);
      }
    },
    shutdown() {
      if (!closing) {
        closing = (async () => {
          clearInterval(timer);
          flushTraffic();
          core.active = false;
          if (sink) {
            const s = sink;
            await safe.callAsync('audit-close', () => s.close());
          }
          if (metricsExport) await safe.callAsync('metrics-export', () => metricsExport.shutdown());
        })();
      }
      return closing;
    },
  };
}
