/**
 * What one JSON-RPC call and its answer say beyond their codes: the skill's data object, the
 * protocol version of an error's wire form, the error an HTTP status stands for when no JSON-RPC
 * answer came, DMC-12's server-code rule, and whether a response body can hold an error at all.
 * Pure; read by the instrumentation's record stage and available to any reader of the wire.
 */
import type { ErrorProtocol } from './error-event.js';
import { type JsonObject, isObject, own } from './extract.js';
import type { RequestCall } from './parse-request.js';
import { TASK_FAILURE_STATES } from './parse-response.js';
import type { ParsedError, WireForm } from './types.js';

/**
 * The skill's data object: AAP `params.message.parts[0].data` (DESIGN §1), DMC-12 `params.arguments`
 * of `tools/call`; null when absent or not an object. Own properties only.
 */
export function skillData(call: RequestCall): JsonObject | null {
  const p = call.params;
  if (!isObject(p)) return null;
  if (call.family === 'dmc12') {
    const args = own(p, 'arguments');
    return isObject(args) ? args : null;
  }
  const parts = own(own(p, 'message'), 'parts');
  const data = own(Array.isArray(parts) ? parts[0] : undefined, 'data');
  return isObject(data) ? data : null;
}

/** Own string property of 1…`max` characters (a value worth pseudonymising), else null. */
export function ownToken(o: JsonObject | null, key: string, max = 512): string | null {
  const v = own(o, key);
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
}

/**
 * The protocol version a wire form stands for (the audit row's `protocol_version`): AAP `2.0` or
 * `released` (≤ 1.3), A2A `1.0`, JSON-RPC `2.0`, DMC-12 `v0.3` or `legacy`.
 */
export const PROTOCOL_VERSION_OF_FORM: Readonly<Record<WireForm, string>> = {
  'aap-2.0': '2.0',
  'aap-released': 'released',
  'errorinfo-only': '2.0',
  a2a: '1.0',
  jsonrpc: '2.0',
  dmc12: 'v0.3',
  'dmc12-legacy': 'legacy',
  'task-failed': '1.0',
};

/**
 * The error of a call that got no JSON-RPC answer at all, only an HTTP error page (a bare 401 or
 * 500): code `HTTP_<status>`, retryable unknown for a server fault (5xx), false otherwise.
 */
export function httpStatusError(status: number): ParsedError {
  return {
    protocol: 'jsonrpc',
    form: 'jsonrpc',
    code: `HTTP_${status}`,
    jsonrpcCode: null,
    retryable: status >= 500 ? null : false,
    errorId: null,
    retryAfterMs: null,
    violations: [],
    upstreamTraceId: null,
  };
}

/**
 * DMC-12's rule for server-defined codes (-32000 … -32099) on a DMC-12 call: they are DMC-12's own
 * (-32001 is its authentication failure, sent with HTTP 401), so the error's protocol is `dmc12`.
 * Returns `error` itself when the rule does not apply.
 */
export function withDmc12ServerCode(error: ParsedError, call: RequestCall | null): ParsedError {
  const c = error.jsonrpcCode;
  if (call?.family !== 'dmc12' || error.protocol === 'dmc12' || c === null || c > -32000 || c < -32099) return error;
  return { ...error, protocol: 'dmc12' };
}

/**
 * The protocol family a call belongs to when it succeeded (an error names its own): DMC-12 for
 * `tools/*`, AAP for an A2A call that names a skill, A2A for other A2A methods, else JSON-RPC.
 */
export function callProtocol(call: RequestCall | null): ErrorProtocol {
  if (call?.family === 'dmc12') return 'dmc12';
  if (call?.family === 'aap') return call.skill ? 'aap' : 'a2a';
  return 'jsonrpc';
}

/**
 * Whether a response body can hold an error: an `"error…` member (JSON-RPC `error`, DMC-12
 * `error` / `error_code`) or a failed or rejected task state. False means every call in it
 * succeeded. One scan of the text for all needles; bytes are read as latin1, so the ASCII
 * needles match inside any UTF-8 body.
 */
export function mayHoldError(body: Buffer | string): boolean {
  return ERROR_NEEDLES.test(typeof body === 'string' ? body : body.toString('latin1'));
}

const ERROR_NEEDLES = new RegExp(['"error', ...[...TASK_FAILURE_STATES.keys()].map((state) => `"${state}"`)].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
