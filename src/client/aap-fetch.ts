/**
 * `createAapFetch`: a `fetch`-compatible transport adapter that sits before any SDK's error
 * conversion (aap-errors.txt "SDK error handling": "Buyer agents using a lossy SDK MUST add an
 * AAP-aware transport adapter before SDK error conversion"). It reads a clone of each JSON
 * response (SSE: each event as the caller reads it, sse.ts), keeps the raw JSON-RPC envelope of
 * every error, and turns each one — including DMC-12 errors inside a successful result — into a
 * `DealerAgentError` using `src/protocol/`'s parser (exchange.ts).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { currentScope } from './call-scope.js';
import { DealerAgentError } from './dealer-error.js';
import { inspectJson } from './exchange.js';
import type { Exchange, OpenCall } from './exchange.js';
import { classifyRequest, DEFAULT_MAX_BYTES, HEADER_ATTEMPT, isParseFailure } from '../protocol/index.js';
import { bodyText } from './request-info.js';
import { inspectStream } from './sse.js';
import { createClientTelemetry, endCall, requestAttributes, startCallSpan } from './telemetry.js';
import type { AapFetchOptions } from './types.js';
import { withRetries } from './with-retries.js';

export { dealerErrorsOf, traceIdFromTraceresponse } from './exchange.js';

/**
 * Default `maxBodyBytes`, bytes: 8 MiB (8,388,608), protocol's `DEFAULT_MAX_BYTES` — the largest
 * response body the adapter reads and parses; a larger one goes to the caller uninspected.
 */
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_BYTES;

/** The request's headers: a Request's own, overlaid with `init.headers` (as fetch merges them). */
function mergedHeaders(input: string | URL | Request, init: RequestInit | undefined): Headers {
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  if (init?.headers !== undefined) new Headers(init.headers).forEach((v, k) => headers.set(k, v));
  return headers;
}

/**
 * Creates the adapter. Hand it to the @a2a-js/sdk client as its fetch:
 * `new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: createAapFetch() })] })`
 * (and `new DefaultAgentCardResolver({ fetchImpl })`), or call it like `fetch` for DMC-12.
 *
 * Per JSON-RPC call in the request body it starts a CLIENT span (DESIGN §4 attributes), sends
 * the `aap-attempt` header inside `withRetries`, injects `traceparent`, records
 * `rpc.client.call.duration` and `aap.client.errors`.
 *
 * Errors surface (docs/client.md "How errors surface"): by default the Response is returned
 * unchanged and each `DealerAgentError` is recorded for the enclosing `withRetries` /
 * `callWithDetails`, kept for `dealerErrorsOf(response)`, and passed to `onError`. With
 * `throwOnError: true` the first error is thrown from the fetch instead.
 *
 * @returns a function with fetch's signature; it rejects only when the underlying fetch rejects
 *   (or with the `DealerAgentError` under `throwOnError`).
 */
export function createAapFetch(options: AapFetchOptions = {}): typeof fetch {
  const send: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const telemetry = createClientTelemetry(options);
  const propagate = options.propagateContext ?? true;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const aapFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const scope = currentScope();
    const attempt = scope?.attempt ?? null;
    const requestText = bodyText(init?.body);
    const classified = requestText === null ? [] : classifyRequest(requestText, { maxBytes: maxBodyBytes });
    const headers = mergedHeaders(input, init);
    if (attempt !== null) headers.set(HEADER_ATTEMPT, String(attempt));

    // One span per call that expects a reply (a notification gets none, as on the server side).
    const calls: OpenCall[] = [];
    try {
      for (const call of isParseFailure(classified) ? [] : classified) {
        if (call.isNotification) continue;
        const attrs = requestAttributes(call, attempt, telemetry.knownSkills);
        calls.push({ call, attrs, span: startCallSpan(telemetry, attrs), done: false });
      }
      const first = calls[0];
      if (propagate && first !== undefined) {
        const carrier: Record<string, string> = {};
        propagation.inject(trace.setSpan(context.active(), first.span), carrier);
        for (const [k, v] of Object.entries(carrier)) headers.set(k, v);
      }
    } catch {
      // A broken tracer or propagator must not stop the request; it goes out untraced.
    }
    const exchange: Exchange = { requestText, calls, startedAt: performance.now(), attempt, scope };

    let response: Response;
    try {
      response = await send(input, { ...init, headers });
    } catch (err) {
      const type = err instanceof Error && err.name !== 'Error' ? err.name : 'fetch_failed';
      safely(() => {
        for (const c of calls) endCall(telemetry, c.span, c.attrs, performance.now() - exchange.startedAt, type);
      });
      throw err;
    }

    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.startsWith('text/event-stream')) {
      return safely(() => inspectStream(response, exchange, telemetry, options, maxBodyBytes)) ?? response;
    }
    let errors: DealerAgentError[] = [];
    try {
      errors = await inspectJson(response, exchange, telemetry, options, maxBodyBytes);
    } catch {
      // The adapter's own failure never reaches the caller: the Response goes back as it came.
    }
    const thrown = errors[0];
    if (options.throwOnError === true && thrown !== undefined) throw thrown;
    return response;
  };
  if (options.retry === undefined || options.retry === false) return aapFetch as typeof fetch;
  return retrying(aapFetch, options) as typeof fetch;
}

/** A request can be re-sent when its body is absent or held in memory (the SDK sends a string). */
function replayable(input: string | URL | Request, init: RequestInit | undefined): boolean {
  if (input instanceof Request && input.body !== null && init?.body === undefined) return false;
  const body = init?.body;
  return body === undefined || body === null || bodyText(body) !== null;
}

/** The `retry` option: `withRetries` around each fetch, returning the last Response when it stops. */
function retrying(
  aapFetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
  options: AapFetchOptions,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const policy = options.retry === true ? {} : (options.retry as Exclude<AapFetchOptions['retry'], boolean | undefined>);
  const telemetry = {
    tracerProvider: options.tracerProvider,
    meterProvider: options.meterProvider,
    logger: options.logger,
    knownSkills: options.knownSkills,
  };
  const inner = options.throwOnError === true ? createAapFetch({ ...options, retry: false, throwOnError: false }) : aapFetch;
  return async (input, init) => {
    const outer = currentScope();
    // An enclosing withRetries owns the retries; a request that cannot be re-sent goes once.
    if ((outer !== undefined && outer.attempt !== null) || !replayable(input, init)) return aapFetch(input, init);
    let last: Response | undefined;
    try {
      return await withRetries(
        async () => {
          last = await inner(input, init);
          return last;
        },
        { ...telemetry, ...policy, ...(init?.signal ? { signal: init.signal } : {}) },
      );
    } catch (err) {
      if (err instanceof DealerAgentError) {
        // A callWithDetails around the SDK call should see the final error, attempts and all.
        outer?.errors.push(err);
        if (options.throwOnError !== true && last !== undefined) return last;
      }
      throw err;
    }
  };
}

/** Runs `fn`, swallowing what it throws (telemetry and inspection must never fail a request). */
function safely<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
