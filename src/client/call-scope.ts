/**
 * Per-call state shared between `withRetries` / `callWithDetails` and the fetch wrapper, carried
 * by an AsyncLocalStorage so that it reaches the fetch through any SDK (the @a2a-js/sdk client
 * awaits straight through from `client.sendMessage()` to `fetchImpl`) without the SDK's help.
 * Internal: not exported from index.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DealerAgentError } from './dealer-error.js';

/** State of one attempt of one call. */
export interface CallScope {
  /** Attempt number to send in the `aap-attempt` header; null = send none. */
  attempt: number | null;
  /** Errors the fetch recorded during this attempt, in arrival order. */
  errors: DealerAgentError[];
}

const storage = new AsyncLocalStorage<CallScope>();

/** Runs `fn` with a fresh scope for one attempt. */
export function runInScope<T>(attempt: number | null, fn: (scope: CallScope) => Promise<T>): Promise<T> {
  const scope: CallScope = { attempt, errors: [] };
  return storage.run(scope, () => fn(scope));
}

/** The scope of the current attempt, if any. */
export function currentScope(): CallScope | undefined {
  return storage.getStore();
}
