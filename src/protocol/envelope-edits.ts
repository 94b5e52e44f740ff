/**
 * Edits of one parsed JSON-RPC response object that the AAP and DMC-12 contracts ask a server to
 * have made, and the readers they need: where a failed task keeps its text, where the typed
 * `aap.error` payloads are, where an `error_id` goes when the host sent none, what a -32008 must
 * carry. Pure and synchronous; every editor mutates only the object it is given (a private parsed
 * copy) and reports whether it changed it. The instrumentation's completion pass
 * (src/instrument/exchange/complete.ts) decides when to call them.
 */
import { A2A_ERROR_DOMAIN, A2A_EXTENSIONS_HEADER, ERROR_INFO_TYPE_URL } from './codes/a2a-codes.js';
import { AAP_ERROR_DOMAIN, AAP_ERROR_TYPE_URL, isAapCode } from './codes/aap-codes.js';
import { JSONRPC_ERRORS } from './codes/jsonrpc-codes.js';
import { isErrorInfo } from './conformance-view.js';
import { type JsonObject, isObject, own } from './extract.js';
import type { ParsedError } from './types.js';
import { containsStackTrace, stripStackTrace } from './builders/common.js';

export { isErrorInfo };

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** An entry of `error.data` tagged with the AAP error `@type` (spec "Error payload shape", 2.0 form). */
export const isAapPayload = (d: unknown): d is JsonObject => own(d, '@type') === AAP_ERROR_TYPE_URL;

/** A2A task states that end a task in failure (v1.0 and v0.3 spellings). */
const FAILED_STATES: ReadonlySet<unknown> = new Set(['TASK_STATE_FAILED', 'failed']);

/**
 * The text of a FAILED task's status message in a `result` (`task` or `statusUpdate`), when the
 * result is one; else null. @a2a-js/sdk puts a thrown executor error's message there.
 */
export function failedTaskText(result: unknown): string | null {
  const task = isObject(own(result, 'task')) ? own(result, 'task') : own(result, 'statusUpdate');
  const status = own(task, 'status');
  if (!FAILED_STATES.has(own(status, 'state'))) return null;
  const parts = own(own(status, 'message'), 'parts');
  if (!Array.isArray(parts)) return null;
  for (const p of parts) {
    const text = own(p, 'text');
    if (typeof text === 'string') return text;
  }
  return null;
}

/**
 * The typed `aap.error` payloads of a JSON-RPC `error` member: `error.data` itself in the released
 * form, the entries tagged with the AAP `@type` (or `type: "aap.error"`) of the 2.0 array.
 */
export function typedPayloads(error: unknown): JsonObject[] {
  const data = own(error, 'data');
  const isPayload = (d: unknown): d is JsonObject => isObject(d) && (own(d, '@type') === AAP_ERROR_TYPE_URL || own(d, 'type') === 'aap.error');
  if (Array.isArray(data)) return data.filter(isPayload);
  return isPayload(data) ? [data] : [];
}

/** `metadata.error_id` of the first ErrorInfo in `error.data`, when it is a non-empty string; else null. */
export function infoErrorId(response: JsonObject): string | null {
  const data = own(own(response, 'error'), 'data');
  const info = Array.isArray(data) ? data.find(isErrorInfo) : undefined;
  const id = own(own(info, 'metadata'), 'error_id');
  return nonEmpty(id) ? id : null;
}

/** Sets `metadata.error_id` of an ErrorInfo (creating the metadata) unless it already holds one; true when it did. */
function setInfoErrorId(info: JsonObject, errorId: string): boolean {
  const meta = own(info, 'metadata');
  if (!isObject(meta)) info.metadata = { error_id: errorId };
  else if (!nonEmpty(own(meta, 'error_id'))) meta.error_id = errorId;
  else return false;
  return true;
}

/** The typed payload and the AAP ErrorInfo (domain autoagentprotocol.org, else one whose reason is an AAP code) of a 2.0 `error.data`. */
function aapParts(data: unknown[]): { payload: JsonObject | undefined; aapInfo: JsonObject | undefined; infos: JsonObject[] } {
  const infos = data.filter(isErrorInfo);
  const aapInfo = infos.find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) ?? infos.find((i) => isAapCode(own(i, 'reason')));
  return { payload: data.find(isAapPayload), aapInfo, infos };
}

/**
 * An AAP 2.0 error whose id the host put in only one of its two places (typed payload, AAP
 * ErrorInfo metadata): copies it to the other, so the two agree (spec "Errors": the ErrorInfo
 * carries "string-valued metadata for code, error_id, retryable and created_at"). True when it did.
 */
export function completeAapErrorId(response: JsonObject, errorId: string): boolean {
  const data = own(own(response, 'error'), 'data');
  if (!Array.isArray(data)) return false;
  const { payload, aapInfo } = aapParts(data);
  if (!payload || !aapInfo) return false;
  let did = false;
  if (!nonEmpty(own(payload, 'error_id'))) {
    payload.error_id = errorId;
    did = true;
  }
  return setInfoErrorId(aapInfo, errorId) || did;
}

/**
 * ErrorInfo reasons for the JSON-RPC standard errors. -32603 is `INTERNAL`, not `INTERNAL_ERROR`:
 * that name is an AAP code, and an AAP code under domain a2a-protocol.org breaks
 * `aap.errorinfo-domain` (a checker reads it as a misfiled AAP error).
 */
const JSONRPC_REASONS: Readonly<Record<string, string>> = {
  '-32700': 'PARSE_ERROR',
  '-32600': 'INVALID_REQUEST',
  '-32601': 'METHOD_NOT_FOUND',
  '-32602': 'INVALID_PARAMS',
  '-32603': 'INTERNAL',
};

/** A minimal ErrorInfo (domain a2a-protocol.org) carrying `errorId`, for an error that has none. */
function errorInfoFor(error: ParsedError, errorId: string): JsonObject {
  const named = JSONRPC_REASONS[error.code] ?? (/^[A-Z][A-Z0-9_]{0,63}$/.test(error.code) ? error.code : 'UNKNOWN');
  const reason = isAapCode(named) ? 'UNKNOWN' : named;
  return { '@type': ERROR_INFO_TYPE_URL, reason, domain: A2A_ERROR_DOMAIN, metadata: { error_id: errorId } };
}

/**
 * Adds `errorId` to the error of `response` where the caller will see it: an AAP error in both its
 * typed payload and its AAP ErrorInfo (never in an A2A-domain ErrorInfo that happens to come
 * first), else the first ErrorInfo's metadata (A2A errors), else a new ErrorInfo; DMC-12
 * `error.data.error_id` / `result.data.error_id`. `dmc12Call`: the request was a DMC-12 call.
 * Returns true if it could.
 */
export function insertErrorId(response: JsonObject, error: ParsedError, errorId: string, dmc12Call: boolean): boolean {
  const errorMember = own(response, 'error');
  if (isObject(errorMember)) {
    const data = own(errorMember, 'data');
    if (Array.isArray(data)) {
      const { payload, aapInfo, infos } = aapParts(data);
      if (payload || aapInfo) {
        if (payload && !nonEmpty(own(payload, 'error_id'))) payload.error_id = errorId;
        if (aapInfo) setInfoErrorId(aapInfo, errorId);
        return true;
      }
      const first = infos[0];
      if (first) {
        setInfoErrorId(first, errorId);
        return true;
      }
      data.unshift(errorInfoFor(error, errorId));
      return true;
    }
    if (data === undefined) {
      errorMember.data = dmc12Call || error.protocol === 'dmc12' ? { error_id: errorId } : [errorInfoFor(error, errorId)];
      return true;
    }
    if (isObject(data) && !nonEmpty(own(data, 'error_id'))) {
      data.error_id = errorId;
      return true;
    }
    return false;
  }
  const data = own(own(response, 'result'), 'data');
  if (error.protocol === 'dmc12' && isObject(data) && !nonEmpty(own(data, 'error_id'))) {
    data.error_id = errorId;
    return true;
  }
  return false;
}

/**
 * Adds `result._metadata.trace_id` (`trc_<traceId>`) to a DMC-12 error result that has none
 * (spec/dmc12-errors.txt: every error result carries the trace id the partner quotes). True when it did.
 */
export function insertUpstreamTraceId(response: JsonObject, traceId: string): boolean {
  const result = own(response, 'result');
  const meta = own(result, '_metadata');
  if (isObject(result) && meta === undefined) {
    result._metadata = { trace_id: `trc_${traceId}` };
    return true;
  }
  if (isObject(meta) && !Object.hasOwn(meta, 'trace_id')) {
    meta.trace_id = `trc_${traceId}`;
    return true;
  }
  return false;
}

const URI_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s,"'<>]+/i;
const usableUri = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && !/\s/.test(v) && URL.canParse(v);

/**
 * Completes a -32008 `error` member in place so it carries the recovery instructions (AAP "The
 * activation error MUST carry recovery instructions"): the exact URI and `A2A-Extensions` in
 * `message`, and an ErrorInfo (domain a2a-protocol.org, reason EXTENSION_SUPPORT_REQUIRED) with
 * string metadata `extensionUri` and `requiredHeader`. The URI is the one the host named in that
 * ErrorInfo (an earlier draft put it there only), else `requiredUri`, else the one in its message.
 * Returns `'complete'` when nothing was missing, `'completed'` when it changed `error`, and
 * `'incomplete'` when something is missing but no URI is known or `mayEdit` is false.
 */
export function completeActivationError(error: JsonObject, requiredUri: string | null, mayEdit: boolean): 'complete' | 'completed' | 'incomplete' {
  const data = own(error, 'data');
  const info = Array.isArray(data) ? data.find((d) => isErrorInfo(d) && own(d, 'reason') === 'EXTENSION_SUPPORT_REQUIRED') : undefined;
  const meta = own(info, 'metadata');
  const message = own(error, 'message');
  const fromMessage = typeof message === 'string' ? URI_IN_TEXT.exec(message)?.[0]?.replace(/[.,;:)]+$/, '') : undefined;
  const metaUri = own(meta, 'extensionUri');
  const uri = usableUri(metaUri) ? metaUri : (requiredUri ?? (usableUri(fromMessage) ? fromMessage : null));
  const messageOk = typeof message === 'string' && uri !== null && message.includes(uri) && message.includes(A2A_EXTENSIONS_HEADER);
  const infoOk = isObject(info) && own(info, 'domain') === A2A_ERROR_DOMAIN && metaUri === uri && own(meta, 'requiredHeader') === A2A_EXTENSIONS_HEADER;
  if (uri !== null && messageOk && infoOk) return 'complete';
  if (uri === null || !mayEdit) return 'incomplete';
  if (!messageOk) error.message = `Activate ${uri} in the ${A2A_EXTENSIONS_HEADER} header before retrying this request.`;
  if (!infoOk) {
    if (isObject(info)) {
      if (own(info, 'domain') !== A2A_ERROR_DOMAIN) info.domain = A2A_ERROR_DOMAIN;
      if (!isObject(meta)) info.metadata = { extensionUri: uri, requiredHeader: A2A_EXTENSIONS_HEADER };
      else {
        if (meta.extensionUri !== uri) meta.extensionUri = uri;
        if (meta.requiredHeader !== A2A_EXTENSIONS_HEADER) meta.requiredHeader = A2A_EXTENSIONS_HEADER;
      }
    } else {
      const entry = {
        '@type': ERROR_INFO_TYPE_URL,
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        domain: A2A_ERROR_DOMAIN,
        metadata: { extensionUri: uri, requiredHeader: A2A_EXTENSIONS_HEADER },
      };
      if (Array.isArray(data)) data.unshift(entry);
      else error.data = [entry];
    }
  }
  return 'completed';
}

/** The JSON-RPC standard meaning of `code` (its text up to the colon), for a message whose only content was a stack trace. */
export function plainMessage(code: unknown): string {
  const info = JSONRPC_ERRORS[String(code) as keyof typeof JSONRPC_ERRORS];
  return info ? (info.meaning.split(':')[0] as string) : 'Server error';
}

/**
 * Cuts stack frames out of the message string at `o[key]` (AAP "MUST NOT leak internal stack
 * traces"), `fallback` when nothing else is left; true when it did.
 */
export function stripMessage(o: unknown, key: string, fallback: string): boolean {
  if (!isObject(o)) return false;
  const text = own(o, key);
  if (typeof text !== 'string' || !containsStackTrace(text)) return false;
  o[key] = stripStackTrace(text, fallback);
  return true;
}
