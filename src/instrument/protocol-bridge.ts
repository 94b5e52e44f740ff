/**
 * What the observer needs of `src/protocol`, adapted to its use: protocol's builders with a
 * lenient local form for the cases they reject (an AapError whose details were lost on the wire,
 * an odd extension URI), the conformance checker reduced to rule ids, and the recovery of an
 * AapError from the message text a stock @a2a-js/sdk sends.
 */
import {
  A2A_ERROR_DOMAIN,
  AAP_CODES,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  ERROR_INFO_TYPE_URL,
  buildAapError,
  buildExtensionRequiredError,
  checkConformance as protocolCheckConformance,
  isAapCode,
  mintErrorId,
} from '../protocol/index.js';
import type { AapForm } from './types.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/** What the rewrite needs of a thrown `AapError` (protocol's class has these fields). */
export interface AapErrorLike {
  code: string;
  aapMessage: string;
  message: string;
  details: Record<string, unknown> | undefined;
  retryable: boolean;
  errorId: string;
}

/** Reads an `AapError` instance (or a structurally equal object) into `AapErrorLike`. */
export function asAapError(err: unknown): AapErrorLike | undefined {
  if (!isObj(err) && !(err instanceof Error)) return undefined;
  const e = err as unknown as Record<string, unknown>;
  const code = e.code;
  if (typeof code !== 'string' || !isAapCode(code)) return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const aapMessage = typeof e.aapMessage === 'string' ? e.aapMessage : message;
  const errorId = typeof e.errorId === 'string' ? e.errorId : mintErrorId();
  const retryable = typeof e.retryable === 'boolean' ? e.retryable : AAP_CODES[code].retryable;
  const details = isObj(e.details) ? e.details : undefined;
  return { code, aapMessage, message, details, retryable, errorId };
}

/**
 * The JSON-RPC `error` member of a conformant AAP error (spec/aap-errors.txt "Error payload
 * shape" and "JSON-RPC error response"), in the 2.0 array form or the released bare-object form.
 */
export function buildAapErrorObject(err: AapErrorLike, form: AapForm, createdAt: Date): Record<string, unknown> {
  const f = form === 'released' ? 'released' : '2.0';
  if (isAapCode(err.code)) {
    try {
      const opts = { form: f, message: err.aapMessage, errorId: err.errorId, retryable: err.retryable, createdAt } as const;
      const built: unknown = buildAapError(err.code, err.details ? { ...opts, details: err.details } : opts);
      if (isObj(built) && typeof built.code === 'number') return built;
    } catch {
      // e.g. a validation code whose details were lost: fall through to the lenient local form.
    }
  }
  const info = AAP_CODES[err.code as keyof typeof AAP_CODES];
  const created = createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const payload: Record<string, unknown> = {
    type: 'aap.error',
    error_id: err.errorId,
    code: err.code,
    message: err.aapMessage,
    retryable: err.retryable,
    ...(err.details ? { details: err.details } : {}),
    created_at: created,
  };
  if (f === 'released') {
    return { code: info.releasedJsonrpcCode, message: err.aapMessage, data: payload };
  }
  const data: unknown[] = [
    {
      '@type': ERROR_INFO_TYPE_URL,
      reason: err.code,
      domain: AAP_ERROR_DOMAIN,
      metadata: { code: err.code, error_id: err.errorId, retryable: String(err.retryable), created_at: created },
    },
  ];
  const violations = err.details ? own(err.details, 'errors') : undefined;
  if (Array.isArray(violations) && violations.length > 0) {
    data.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.filter(isObj).map((v) => ({
        field: String(own(v, 'instanceLocation') ?? ''),
        description: `${String(own(v, 'keyword') ?? '')}: ${String(own(v, 'error') ?? '')}`,
      })),
    });
  }
  data.push({ '@type': AAP_ERROR_TYPE_URL, ...payload });
  return { code: info.jsonrpcCode, message: err.aapMessage, data };
}

/** The JSON-RPC `error` member of the conformant -32008 activation error (spec "The activation error MUST carry recovery instructions"). */
export function buildExtensionRequiredErrorObject(uri: string): Record<string, unknown> {
  try {
    const built: unknown = buildExtensionRequiredError(uri);
    if (isObj(built) && typeof built.code === 'number') return built;
  } catch {
    // An odd URI: fall through to the local form.
  }
  return {
    code: -32008,
    message: `Activate ${uri} in the A2A-Extensions header before retrying this request.`,
    data: [
      {
        '@type': ERROR_INFO_TYPE_URL,
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        domain: A2A_ERROR_DOMAIN,
        metadata: { extensionUri: uri, requiredHeader: 'A2A-Extensions' },
      },
    ],
  };
}

/** Conformance rule ids the response object breaks (protocol's `checkConformance`); `family` when the call's is known. */
export function checkConformance(response: unknown, family?: 'aap' | 'dmc12'): string[] {
  return protocolCheckConformance(response, family === undefined ? {} : { family })
    .map((v) => v.rule)
    .filter((s) => typeof s === 'string' && s.length > 0);
}

/**
 * Recovers an AAP error from the text a stock @a2a-js/sdk put on the wire for a thrown
 * `AapError`: its Error message is `"<CODE>: <aapMessage>"` (src/protocol/aap-error.ts), which
 * the SDK copies into `error.message` (-32603, handler throw) or into the failed task's status
 * text after `"Agent execution error: "` (executor throw). Details and the error id are not in
 * the text: the id is minted here, details are lost (see aap-error-hook.ts for the exact path).
 */
export function aapErrorFromMessage(message: string): AapErrorLike | undefined {
  const m = /^([A-Z][A-Z_]{2,63}): ([\s\S]{0,2000})$/.exec(message);
  if (!m) return undefined;
  const code = m[1] as string;
  if (!isAapCode(code) || AAP_CODES[code].legacy) return undefined;
  const aapMessage = m[2] as string;
  return { code, aapMessage, message, details: undefined, retryable: AAP_CODES[code].retryable, errorId: mintErrorId() };
}
