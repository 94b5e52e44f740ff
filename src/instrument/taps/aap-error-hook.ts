/**
 * Correlates an `AapError` thrown by skill code with what @a2a-js/sdk sent for it.
 *
 * A stock @a2a-js/sdk 1.3 server keeps only the thrown error's `message`: a throw from a request
 * handler becomes `{code: -32603, message}` (toJsonRpcError in dist/server/express/index.js), a
 * throw from an AgentExecutor becomes a successful result with a FAILED task whose status text is
 * `"Agent execution error: " + message` (DefaultRequestHandler._runExecutor). Details and the
 * error id are dropped.
 *
 * Exact path: each exchange has its own store, found from inside the handler by the trace id of
 * the active OpenTelemetry span (see `bindToTrace`), else carried in the OpenTelemetry context
 * or an AsyncLocalStorage; the `AapError` constructor calls
 * `globalThis[Symbol.for('aap-triage.aap-error-created')]` (AAP_ERROR_CREATED) with the new
 * instance, which lands in the store of the request that created it, and the observer finds it
 * by its message.
 * Fallback path: the message alone (`"<CODE>: <aapMessage>"`), see `aapErrorFromMessage`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context as otelContext, createContextKey, trace } from '@opentelemetry/api';
import { setBounded } from '../bounded-map.js';
import { aapErrorFromMessage, asAapError } from '../exchange/protocol-bridge.js';
import type { AapErrorLike } from '../exchange/protocol-bridge.js';
import { PropertyPatch } from './patch.js';
import { AAP_ERROR_CREATED } from '../../protocol/aap-error-created.js';

/** AapErrors created while one exchange was being handled (bounded). */
export class ExchangeErrors {
  readonly errors: unknown[] = [];
  /** The trace id this store is registered under (see `bindToTrace`), else null. */
  traceId: string | null = null;
  add(err: unknown): void {
    if (this.errors.length < 32) this.errors.push(err);
  }
}

/**
 * Stores of the exchanges in flight, by the trace id of their HTTP server span. Inside the
 * handler the active OpenTelemetry span belongs to that trace, so an AapError finds its
 * exchange's store without a context switch per request (`context.with` costs every request a
 * new context and an AsyncLocalStorage run). Bounded; released when the exchange ends.
 */
const byTrace = new Map<string, ExchangeErrors>();
const MAX_BOUND = 65_536;

/**
 * Registers `store` under `traceId` (the exchange's HTTP server span). Returns false when another
 * exchange in flight holds that trace id (a client reusing one traceparent for concurrent
 * calls): the caller then runs the handler with `runWithErrors` instead.
 */
export function bindToTrace(store: ExchangeErrors, traceId: string): boolean {
  if (byTrace.has(traceId)) return false;
  // Past the bound (exchanges whose response never closed) the oldest registration goes.
  setBounded(byTrace, traceId, store, MAX_BOUND);
  store.traceId = traceId;
  return true;
}

/** Releases the registration of `bindToTrace`, if any (when the exchange ends). */
export function releaseStore(store: ExchangeErrors): void {
  const id = store.traceId;
  if (id === null) return;
  store.traceId = null;
  if (byTrace.get(id) === store) byTrace.delete(id);
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
  const active = otelContext.active();
  const own = (active.getValue(STORE_KEY) as ExchangeErrors | undefined) ?? als.getStore();
  if (own || byTrace.size === 0) return own;
  // Only valid trace ids are ever bound (core.ts checks before `bindToTrace`), so a lookup by
  // any id is exact without the validity check's two regular expressions.
  const traceId = trace.getSpan(active)?.spanContext().traceId;
  return typeof traceId === 'string' ? byTrace.get(traceId) : undefined;
}

/** Called from inside the AapError constructor: must never throw. */
function onAapErrorCreated(err: unknown): void {
  try {
    currentStore()?.add(err);
  } catch {
    // No store: the observer falls back to the message text.
  }
}

/**
 * The global hook `AapError`'s constructor calls. Left as it is when something else already
 * installed a function there (another copy of aap-triage in the process); removed, or restored
 * to what was there, when the last triage is disabled.
 */
const patch = new PropertyPatch(globalThis, (g) => (typeof g[AAP_ERROR_CREATED] === 'function' ? {} : { [AAP_ERROR_CREATED]: onAapErrorCreated }));

/** Installs the global hook for one more user; returns that user's uninstall (the last one removes it). */
export function installAapErrorHook(): () => void {
  return patch.install();
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
 * Error message is `message` (alone, or followed by a stack trace), else what the message text
 * itself carries.
 */
export function correlate(store: ExchangeErrors | null, message: string): AapErrorLike | undefined {
  if (store) {
    for (const err of store.errors) {
      // Exactly its message, or its message with the stack appended (a host that sends `err.stack`).
      if (err instanceof Error && (err.message === message || message.startsWith(`${err.message}\n`) || message === err.stack)) {
        const like = asAapError(err);
        if (like) return like;
      }
    }
  }
  return aapErrorFromMessage(message);
}
