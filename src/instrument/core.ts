/**
 * The instrumentation core (issue 13): the state every observed exchange shares — options,
 * pseudonymizer, audit sink, retry tracker, traffic counters — and the OpenTelemetry handles
 * (tracer, instruments, logger) that can be swapped after construction. `createTriage` (the
 * framework API) and `AapTriageInstrumentation` (the OpenTelemetry instrumentation) are both
 * thin fronts on it, so they observe an exchange the same way, and one exchange observed by
 * both is recorded once.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context as otelContext, isSpanContextValid, trace } from '@opentelemetry/api';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import type { LoggerProvider } from '@opentelemetry/api-logs';
import { createRequire } from 'node:module';
import type * as PinoModule from 'pino';
import type { Logger } from 'pino';
import { PseudonymKeyError, createPseudonymizer, loadPseudonymizer, openAuditSink, openFailedSink, resolveDbPath } from '../audit/index.js';
import type { AuditHealth, AuditSink } from '../audit/sink.js';
import { INSTRUMENTATION_SCOPE, SEMCONV_SCHEMA_URL } from './attributes.js';
import { EndpointForms } from './endpoint-forms.js';
import { ErrorIdMemory } from './exchange/error-id-memory.js';
import { observeExchange } from './exchange/exchange.js';
import { RetryTracker } from './exchange/retry-tracker.js';
import { resourceServiceName, resourceServiceVersion } from './host-resource.js';
import type { TriageCore } from './internal-types.js';
import { DEFAULTS } from './options.js';
import type { Settings } from './options.js';
import { SafeCaller } from './safe-call.js';
import { LineSampler } from './sinks/line-sampler.js';
import { logOmitted } from './sinks/log.js';
import { createInstruments } from './sinks/metrics.js';
import type { InstrumentsHandle } from './sinks/metrics.js';
import { TrafficCounter } from './sinks/traffic-counter.js';
import { ExchangeErrors, bindToTrace, installAapErrorHook } from './taps/aap-error-hook.js';
import { installRequestTap } from './taps/request-tap.js';
import { installResponseTap, isTapped } from './taps/response-tap.js';
import type { Pseudonymizer } from './types.js';
import { VERSION } from '../protocol/version.js';

/** The global logs API key (api-logs' `GLOBAL_LOGS_API_KEY`): present once a LoggerProvider is registered. */
const GLOBAL_LOGS_KEY = Symbol.for('io.opentelemetry.js.api.logs');

/** Scope options of every tracer, meter and logger the core takes: the semconv schema URL. */
const SCOPE = { schemaUrl: SEMCONV_SCHEMA_URL } as const;

/**
 * The default logger: pino at level `warn` to stderr, so the per-error lines and the
 * instrumentation's own warnings never mix into the host's stdout.
 */
export function defaultLogger(): Logger {
  // Loaded here, not at import (issue 13); pino is CommonJS, so `require` is synchronous.
  const { pino } = createRequire(import.meta.url)('pino') as typeof PinoModule;
  return pino({ name: INSTRUMENTATION_SCOPE, level: 'warn' }, pino.destination({ fd: 2, sync: true }));
}

/** A core and what its front needs to drive it. */
export interface CoreHandle {
  readonly core: TriageCore;
  /**
   * Observes one exchange; returns its AapError store, or null when another core already
   * observes it or this core is shut down or disabled. `bind`: register the store under the
   * trace id of the active span. Throws only on an internal bug (fronts guard it).
   */
  observe(req: IncomingMessage, res: ServerResponse, bind: boolean): ExchangeErrors | null;
  /** Uses `provider` for the spans of exchanges observed from now on. */
  setTracerProvider(provider: TracerProvider): void;
  /** Creates (or reuses) the instruments on `provider`'s meter; later calls record there. */
  setMeterProvider(provider: MeterProvider): void;
  /** Uses `provider` for the `aap.error` log records. */
  setLoggerProvider(provider: LoggerProvider): void;
  /**
   * Installs the host taps (response and request prototypes, the AapError hook) and starts
   * observing; `disable()` uninstalls them (restored exactly as found once no other core needs
   * them and no response is in flight) and lets exchanges pass through. Both idempotent.
   */
  enable(): void;
  disable(): void;
  /** Disables, flushes traffic counters, log summaries and the audit sink, then closes the sink. Never rejects. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Builds a core from resolved settings (checkOptions in options.ts), enabled. Opening the audit
 * database or key may fail: telemetry then keeps working and one warning says why. Starts a
 * traffic flush timer (unref'd) that `shutdown()` stops.
 */
export function createCore(s: Settings, providers: { tracerProvider: TracerProvider; meterProvider: MeterProvider }): CoreHandle {
  const logger: Logger | null = s.logger === false ? null : (s.logger ?? defaultLogger());
  const safe = new SafeCaller(logger ? (fields, msg) => logger.warn(fields, msg) : undefined);
  // The option or OTEL_SERVICE_NAME; else the host's resource, read again when a provider is set.
  let service = s.serviceName ?? resourceServiceName(providers.tracerProvider) ?? DEFAULTS.serviceName;
  const serviceFromResource = s.serviceName === null;

  const traffic = new TrafficCounter(() => core.service);
  let sink: AuditSink | null = s.auditSink;
  let pseudonymizer: Pseudonymizer | null = s.pseudonymizer;
  if (!sink && s.auditDb !== false) {
    const path = resolveDbPath(s.auditDb);
    // The key first (loading it creates the database folder and the key file): a key that cannot
    // be loaded or saved stops audit writing, never a throwaway key whose rows no lookup or
    // `forget` could match (issue 16). The "created key file" notice goes where the host's own
    // lines go (nowhere with logger: false).
    const keyLogger = logger ?? { info: () => undefined, warn: () => undefined, error: () => undefined };
    let keyProblem: string | null = null;
    if (!pseudonymizer) {
      try {
        pseudonymizer = loadPseudonymizer({ dbPath: path, create: true, logger: keyLogger });
      } catch (err) {
        keyProblem = err instanceof PseudonymKeyError ? err.message : `cannot load the pseudonym key (${err instanceof Error ? err.name : typeof err})`;
      }
    }
    if (keyProblem !== null) {
      const problem = keyProblem;
      sink = safe.call('audit-open', () => openFailedSink({ path, reason: problem, service, logger: logger ?? undefined }), null);
    } else {
      // The sink's exit flush also takes the traffic counted since the last timed flush.
      sink = safe.call('audit-open', () => openAuditSink({ path, service, trafficSource: () => traffic.drain() }), null);
    }
  }
  // With auditing off (or a host's own sink), a per-process key still lets the retry tracker
  // recognise callers; no row made with it reaches a store of ours.
  if (!pseudonymizer) pseudonymizer = createPseudonymizer(randomBytes(32).toString('hex'));
  const health = (): AuditHealth | null => (sink ? safe.call('audit-health', () => (sink as AuditSink).health(), null) : null);

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
  // Same for the keyed fingerprint of an error row, by the call's (unkeyed) tracker key, which
  // includes the client: a storm of retries of one call from one client costs one canonical walk
  // and HMAC, not one per attempt.
  const fingerprintMemo = new Map<number, string>();
  const fingerprintOf = (method: string, skill: string | null, params: unknown, memoKey: number | null): string | null => {
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

  // A LoggerProvider given to this core (the SDK's, through the instrumentation) that is not the
  // API's proxy is a logs pipeline; so is any provider registered globally.
  let ownLogsPipeline = false;
  const core: TriageCore = {
    settings: s,
    service,
    serviceVersion: resourceServiceVersion(providers.tracerProvider) ?? s.serviceVersion,
    tracer: providers.tracerProvider.getTracer(INSTRUMENTATION_SCOPE, VERSION, SCOPE),
    instruments: null,
    otelLogger: logs.getLogger(INSTRUMENTATION_SCOPE, VERSION, SCOPE),
    logsPipeline: () => ownLogsPipeline || (globalThis as Record<symbol, unknown>)[GLOBAL_LOGS_KEY] !== undefined,
    logger,
    hostLogger: s.logger !== undefined && s.logger !== false,
    lines: new LineSampler(s.logLinesPerSecond, (o) => safe.call('log', () => logOmitted(core, o), undefined)),
    safe,
    sink,
    pseudonymizer,
    clientPseudonym,
    fingerprintOf,
    tracker: new RetryTracker({ windowMs: s.retryWindowMs, maxKeys: s.retryTrackerMaxKeys }),
    traffic,
    errorIds: new ErrorIdMemory(),
    forms: new EndpointForms(s.aapForm, s.requiredExtensionUri, s.agentCard),
    active: false,
  };
  // Learns service.name from the host's resource when neither the option nor the environment named it.
  const learnService = (provider: TracerProvider): void => {
    if (!serviceFromResource) return;
    const name = resourceServiceName(provider);
    if (name !== null && name !== service) {
      service = name;
      core.service = name;
    }
  };
  // service.version: the resource's wins over the environment and the option (issue 29), so audit
  // rows carry the version the host's spans and metrics carry. Read until a resource names one.
  let versionFromResource = resourceServiceVersion(providers.tracerProvider) !== null;
  const learnVersion = (provider: TracerProvider): void => {
    const version = resourceServiceVersion(provider);
    versionFromResource = version !== null;
    core.serviceVersion = version ?? s.serviceVersion;
  };
  let tracerProvider = providers.tracerProvider;

  let instrumentsHandle: InstrumentsHandle | null = null;
  const setMeterProvider = (provider: MeterProvider): void => {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE, VERSION, SCOPE);
    const next = safe.call('metrics', () => createInstruments(meter, health), null);
    instrumentsHandle?.release();
    instrumentsHandle = next;
    core.instruments = next?.instruments ?? null;
  };
  setMeterProvider(providers.meterProvider);

  const flushTraffic = (): void => {
    const samples = core.traffic.drain();
    if (samples.length > 0 && sink) {
      const s = sink;
      safe.call('audit-traffic', () => s.recordTraffic(samples), undefined);
    }
  };
  const timer = setInterval(flushTraffic, s.trafficFlushIntervalMs);
  timer.unref();

  let uninstalls: (() => void)[] | null = null;
  let closing: Promise<void> | null = null;
  const handle: CoreHandle = {
    core,
    observe(req, res, bind) {
      // A response some core already taps is that core's: the first observer (the
      // instrumentation's diagnostics channel fires before any listener or middleware) records
      // the exchange, later ones pass it through. So `createTriage` and
      // `AapTriageInstrumentation` used together record each call once.
      if (!core.active || isTapped(res) || res.writableEnded) return null;
      // A host that starts its SDK after creating the triage: its resource names the service.
      if (serviceFromResource && service === DEFAULTS.serviceName) learnService(tracerProvider);
      if (!versionFromResource) learnVersion(tracerProvider);
      const errors = new ExchangeErrors();
      // The active span's validity is checked here once; the exchange reuses the result.
      const span = trace.getSpan(otelContext.active());
      const sc = span?.spanContext();
      const valid = span !== undefined && sc !== undefined && isSpanContextValid(sc) ? span : null;
      if (bind && valid && sc) bindToTrace(errors, sc.traceId);
      observeExchange(core, req, res, errors, valid);
      return errors;
    },
    setTracerProvider(provider) {
      tracerProvider = provider;
      core.tracer = provider.getTracer(INSTRUMENTATION_SCOPE, VERSION, SCOPE);
      learnService(provider);
      learnVersion(provider);
    },
    setMeterProvider,
    setLoggerProvider(provider) {
      core.otelLogger = provider.getLogger(INSTRUMENTATION_SCOPE, VERSION, SCOPE);
      // The API's own provider (proxy or no-op) is what `logs.getLoggerProvider()` returns while
      // none is registered: not a pipeline.
      ownLogsPipeline = provider !== logs.getLoggerProvider();
    },
    enable() {
      if (uninstalls || closing) return;
      uninstalls = [installResponseTap(), installRequestTap(), installAapErrorHook()];
      core.active = true;
    },
    disable() {
      if (!uninstalls) return;
      core.active = false;
      for (const uninstall of uninstalls) uninstall();
      uninstalls = null;
    },
    shutdown() {
      closing ??= (async () => {
        handle.disable();
        clearInterval(timer);
        flushTraffic();
        safe.call('log', () => core.lines.flush(), undefined);
        instrumentsHandle?.release();
        if (sink) {
          const s = sink;
          await safe.callAsync('audit-close', () => s.close());
        }
      })();
      return closing;
    },
  };
  handle.enable();
  return handle;
}
