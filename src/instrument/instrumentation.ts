/**
 * `AapTriageInstrumentation`: aap-triage as a standard OpenTelemetry instrumentation (issue 13).
 *
 *     new NodeSDK({ instrumentations: [new HttpInstrumentation(), new AapTriageInstrumentation({ auditDb: './audit.db' })] })
 *
 * observes every `node:http` server in the process. Like contrib's undici instrumentation it
 * finds exchanges without wrapping servers: it subscribes to the `http.server.request.start`
 * diagnostics channel, which Node (≥ 20.19 here) publishes synchronously just before a server
 * emits 'request', and hands each exchange to the shared core (core.ts). To see the bytes, the
 * core installs three process-wide taps (src/instrument/taps: methods of
 * `ServerResponse.prototype`, `IncomingMessage.prototype.emit`, the global AapError hook);
 * `disable()` unsubscribes and uninstalls them, restoring each as found once no other triage
 * needs it, and `enable()` does both again. Tracer, meter and logger providers set after construction (as NodeSDK does, in either
 * construction order) are used from then on through the standard `setTracerProvider` /
 * `setMeterProvider` → `_updateMetricInstruments` / `setLoggerProvider` path.
 *
 * The core (audit database, key, timers) is created on the first `enable()`, so an
 * instrumentation constructed with `enabled: false` opens nothing; its modules (load-runtime.ts)
 * load then too.
 *
 * `@opentelemetry/instrumentation` (with require-in-the-middle, import-in-the-middle and debug,
 * ~30 files) is loaded by the first construction, not by `import('aap-triage')` (issue 31
 * "Start-up": a host that only uses `createTriage` never pays for it). The class is declared
 * over a placeholder and re-parented onto `InstrumentationBase` before its first `super()`:
 * `super` calls and `super.method()` look the parent up when they run, so instances, subclasses
 * and `instanceof InstrumentationBase` behave as with a static `extends`.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { metrics, trace } from '@opentelemetry/api';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { LoggerProvider } from '@opentelemetry/api-logs';
import type { InstrumentationBase, InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { INSTRUMENTATION_SCOPE } from './attributes.js';
import type { CoreHandle } from './core.js';
import { loadRuntime } from './load-runtime.js';
import { checkOptions } from './options.js';
import type { AapTriageInstrumentationConfig } from './types.js';
import { VERSION } from '../protocol/version.js';

/** The channel Node publishes `{ request, response, socket, server }` on before 'request'. */
export const REQUEST_START_CHANNEL = 'http.server.request.start';

interface RequestStartMessage {
  request: IncomingMessage;
  response: ServerResponse;
}

/** The triage options of a config: everything but `InstrumentationConfig`'s own keys. */
function triageOptions(config: AapTriageInstrumentationConfig) {
  const { enabled: _enabled, ...rest } = config as AapTriageInstrumentationConfig & { enabled?: boolean };
  return checkOptions(rest);
}

/** The parent until the first construction; never itself constructed. */
const LazyBase = class {} as unknown as typeof InstrumentationBase;
let baseLoaded = false;

/** Re-parents {@link AapTriageInstrumentation} onto the real `InstrumentationBase` (once). */
function loadBase(): void {
  if (baseLoaded) return;
  const { InstrumentationBase: Base } = createRequire(import.meta.url)('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  Object.setPrototypeOf(AapTriageInstrumentation, Base);
  Object.setPrototypeOf(AapTriageInstrumentation.prototype, Base.prototype);
  baseLoaded = true;
}

export class AapTriageInstrumentation extends LazyBase<AapTriageInstrumentationConfig> {
  // `declare`d, not initialised: the base constructor already calls setConfig, the provider
  // setters and enable(), and an initialiser would run after them and wipe what they stored.
  declare private _handle: CoreHandle | undefined;
  declare private _subscribed: boolean | undefined;
  declare private _tracerProviderSet: TracerProvider | undefined;
  declare private _meterProviderSet: MeterProvider | undefined;
  declare private _loggerProviderSet: LoggerProvider | undefined;
  declare private _closing: Promise<void> | undefined;
  declare private _bound: ((message: unknown) => void) | undefined;

  /**
   * @param config {@link AapTriageInstrumentationConfig}: `createTriage`'s options (minus the
   *   providers, which the SDK sets) plus `enabled` (default true). Throws TypeError /
   *   RangeError for an invalid option, naming it.
   */
  constructor(config: AapTriageInstrumentationConfig = {}) {
    triageOptions(config);
    loadBase();
    super(INSTRUMENTATION_SCOPE, VERSION, config);
  }

  /** No module is patched: exchanges come from the diagnostics channel. */
  protected init(): InstrumentationModuleDefinition[] {
    return [];
  }

  /** One exchange from the channel. */
  private onRequestStart(message: unknown): void {
    const handle = this._handle;
    if (!handle) return;
    try {
      const { request, response } = message as RequestStartMessage;
      // Published synchronously right before 'request', so the AapError store entered here covers
      // the host's handler and what it awaits.
      const errors = handle.observe(request, response, false);
      if (errors) loadRuntime().enterErrors(errors);
    } catch (err) {
      handle.core.safe.fail('observer', err);
    }
  }

  private ensureHandle(): CoreHandle {
    if (!this._handle) {
      // The core, the taps and the audit store load on the first enable() (load-runtime.ts).
      const { createCore, logs } = loadRuntime();
      const handle = createCore(triageOptions(this.getConfig()), {
        tracerProvider: this._tracerProviderSet ?? trace.getTracerProvider(),
        meterProvider: this._meterProviderSet ?? metrics.getMeterProvider(),
      });
      handle.setLoggerProvider(this._loggerProviderSet ?? logs.getLoggerProvider());
      this._handle = handle;
    }
    return this._handle;
  }

  /**
   * Subscribes to `http.server.request.start` and installs the host taps (creating the core on
   * first use). Idempotent.
   */
  override enable(): void {
    super.enable();
    if (this._subscribed || this._closing) return;
    this.ensureHandle().enable();
    subscribe(REQUEST_START_CHANNEL, this.listener());
    this._subscribed = true;
  }

  /**
   * Unsubscribes and uninstalls the host taps: `ServerResponse.prototype`,
   * `IncomingMessage.prototype` and the global AapError hook are as found once no other triage
   * needs them (exchanges in flight finish and are reported first). Idempotent.
   */
  override disable(): void {
    super.disable();
    if (!this._subscribed) return;
    unsubscribe(REQUEST_START_CHANNEL, this.listener());
    this._subscribed = false;
    this._handle?.disable();
  }

  /**
   * The channel listener, one function for subscribe and unsubscribe. Made on first use: the
   * base constructor calls enable() before an arrow-function field would exist.
   */
  private listener(): (message: unknown) => void {
    this._bound ??= (message: unknown) => this.onRequestStart(message);
    return this._bound;
  }

  override setTracerProvider(tracerProvider: TracerProvider): void {
    super.setTracerProvider(tracerProvider);
    this._tracerProviderSet = tracerProvider;
    this._handle?.setTracerProvider(tracerProvider);
  }

  override setMeterProvider(meterProvider: MeterProvider): void {
    this._meterProviderSet = meterProvider;
    super.setMeterProvider(meterProvider);
  }

  /** Creates the instruments on the current meter provider (the base calls it from setMeterProvider). */
  protected override _updateMetricInstruments(): void {
    this._handle?.setMeterProvider(this._meterProviderSet ?? metrics.getMeterProvider());
  }

  override setLoggerProvider(loggerProvider: LoggerProvider): void {
    super.setLoggerProvider(loggerProvider);
    this._loggerProviderSet = loggerProvider;
    this._handle?.setLoggerProvider(loggerProvider);
  }

  /**
   * Replaces the configuration. Triage options take effect at once: the current core is shut
   * down (its audit sink flushed and closed) and a new one is built from the new options.
   * Throws TypeError / RangeError for an invalid option (the old config then stays).
   */
  override setConfig(config: AapTriageInstrumentationConfig = {}): void {
    triageOptions(config);
    super.setConfig(config);
    const old = this._handle;
    if (!old) return;
    this._handle = undefined;
    void old.shutdown();
    if (this._subscribed) this.ensureHandle();
  }

  /**
   * Unsubscribes and flushes and closes the audit sink and traffic counters. Resolves when done;
   * never rejects. Idempotent. `aap-triage/register` calls it on SIGTERM and beforeExit.
   */
  shutdown(): Promise<void> {
    this._closing ??= (async () => {
      this.disable();
      await this._handle?.shutdown();
    })();
    return this._closing;
  }
}
