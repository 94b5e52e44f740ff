/**
 * Correlates an `AapError` thrown by skill code with what @a2a-js/sdk sent for it.
 *
 * A stock @a2a-js/sdk 1.3 server keeps only the thrown error's `message`: a throw from a request
 * handler becomes `{code: -32603, message}` (toJsonRpcError in dist/server/express/index.js), a
 * throw from an AgentExecutor becomes a successful result with a FAILED task whose status text is
 * `"Agent execution error: " + message` (DefaultRequestHandler._runExecutor). Details and the
 * error id are dropped.
 *
 * Exact path: each exchange runs with its own store (in the OpenTelemetry context when a context
 * manager is registered, else in an AsyncLocalStorage); an `AapError` constructor that
 * calls `globalThis[Symbol.for('aap-triage.aap-error-created')]` (see AAP_ERROR_CREATED) lands in
 * the store of the request that threw it, and the observer finds it by its message.
 * Until protocol's constructor calls that hook, `installAapErrorHook` also catches instances
 * through the constructor's `this.name = 'AapError'` assignment (an assignment, not a class
 * field, so it reaches a setter on `AapError.prototype`); the setter re-defines `name` as an own
 * data property, so the instance looks exactly as before.
 * Fallback path: the message alone (`"<CODE>: <aapMessage>"`), see `aapErrorFromMessage`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context as otelContext, createContextKey } from '@opentelemetry/api';
import { AapError } from '../protocol/aap-error.js';
import { aapErrorFromMessage, asAapError } from './protocol-bridge.js';
import type { AapErrorLike } from './protocol-bridge.js';

/** Global hook name an `AapError` constructor may call with itself. */
export const AAP_ERROR_CREATED = Symbol.for('aap-triage.aap-error-created');

/** AapErrors created while one exchange was being handled (bounded). */
export class ExchangeErrors {
  readonly errors: unknown[] = [];
  add(err: unknown): void {
    if (this.errors.length < 32) this.errors.push(err);
  }
}

const als = new AsyncLocalStorage<ExchangeErrors>();
const STORE_KEY = createContextKey('aap-triage exchange errors');

/**
 * Whether a context manager is registered (the OpenTelemetry SDK's AsyncLocalStorage one). The
 * store then rides in the OpenTelemetry context, so no second AsyncLocalStorage has to propagate
 * through every promise of the request (each enabled instance adds work to every async
 * resource in Node 20). Checked at the first exchange.
 */
let otelCarries: boolean | undefined;
function otelContextCarries(): boolean {
  if (otelCarries === undefined) {
    const probe = new ExchangeErrors();
    otelCarries = otelContext.with(otelContext.active().setValue(STORE_KEY, probe), () => otelContext.active().getValue(STORE_KEY) === probe);
  }
  return otelCarries;
}

/** The AapError store of the exchange being handled, if any. */
function currentStore(): ExchangeErrors | undefined {
  return (otelContext.active().getValue(STORE_KEY) as ExchangeErrors | undefined) ?? als.getStore();
}

let installed = false;
/** Installs the global hook once per process. */
export function installAapErrorHook(): void {
  if (installed) return;
  installed = true;
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (typeof g[AAP_ERROR_CREATED] !== 'function') {
    g[AAP_ERROR_CREATED] = (err: unknown) => {
      currentStore()?.add(err);
    };
  }
  const proto = AapError.prototype as unknown as Record<string, unknown>;
  if (!Object.hasOwn(proto, 'name')) {
    Object.defineProperty(proto, 'name', {
      configurable: true,
      get(): string {
        return 'AapError';
      },
      set(this: object, value: unknown) {
        Object.defineProperty(this, 'name', { value, writable: true, configurable: true, enumerable: false });
        if (this instanceof AapError) currentStore()?.add(this);
      },
    });
  }
}

/**
 * Makes `store` the AapError store of the current synchronous execution and everything it
 * schedules (used where there is no listener call to wrap: the diagnostics-channel path).
 */
export function enterErrors(store: ExchangeErrors): void {
  als.enterWith(store);
}

/** Runs `fn` with `store` as the exchange's AapError store. */
export function runWithErrors<T>(store: ExchangeErrors, fn: () => T): T {
  if (otelContextCarries()) return otelContext.with(otelContext.active().setValue(STORE_KEY, store), fn);
  return als.run(store, fn);
}

/**
 * The AapError behind a wire message, if any: first an instance recorded for this exchange whose
 * Error message is exactly `message`, else what the message text itself carries.
 */
export function correlate(store: ExchangeErrors | null, message: string): AapErrorLike | undefined {
  if (store) {
    for (const err of store.errors) {
      if (err instanceof Error && err.message === message) {
        const like = asAapError(err);
        if (like) return like;
      }
    }
  }
  return aapErrorFromMessage(message);
}
