/**
 * What a demo buyer learns from one call, read from the raw envelope (never from an SDK
 * exception, which drops the AAP details: spec/aap-errors.txt "SDK error handling").
 */
export type CallResult =
  | { ok: true; data: Record<string, unknown> }
  | {
      ok: false;
      /** AAP / DMC-12 code, A2A reason, or the JSON-RPC code as a string. */
      code: string;
      /** As the wire said; null when the envelope does not say. */
      retryable: boolean | null;
      /** Retry hint, ms. */
      retryAfterMs: number | null;
      errorId: string | null;
      /** DMC-12 `_metadata.trace_id`. */
      traceId: string | null;
      httpStatus: number;
    };

/** A failed call (the `ok: false` branch). */
export type CallFailure = Extract<CallResult, { ok: false }>;

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Reads a JSON-RPC `error` member: the AAP 2.0 array (typed `aap.error` found by `@type`, never
 * by position), the released bare `aap.error` object, or an A2A ErrorInfo.
 */
export function readJsonRpcError(error: Obj, httpStatus: number): CallFailure {
  const data = error.data;
  const entries: Obj[] = Array.isArray(data) ? data.filter(isObj) : isObj(data) ? [data] : [];
  const aap = entries.find((e) => e.type === 'aap.error' || e['@type'] === 'https://autoagentprotocol.org/extensions/aap/error');
  const info = entries.find((e) => typeof e.reason === 'string');
  const details = isObj(aap?.details) ? aap.details : {};
  const meta = isObj(info?.metadata) ? info.metadata : {};
  const retryAfter = typeof details.retry_after_ms === 'number' ? details.retry_after_ms : typeof details.retry_after_seconds === 'number' ? details.retry_after_seconds * 1000 : null;
  const retryable = typeof aap?.retryable === 'boolean' ? aap.retryable : meta.retryable === 'true' ? true : meta.retryable === 'false' ? false : null;
  const code = typeof aap?.code === 'string' ? aap.code : typeof info?.reason === 'string' ? info.reason : String(error.code);
  const errorId = typeof aap?.error_id === 'string' ? aap.error_id : typeof meta.error_id === 'string' ? meta.error_id : null;
  return { ok: false, code, retryable, retryAfterMs: retryAfter, errorId, traceId: null, httpStatus };
}
