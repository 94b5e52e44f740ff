/**
 * Response completion: the only code that changes bytes on the wire (issues 3, 15). Works on one
 * parsed response object at a time and only ever touches error responses:
 * - an `AapError` that @a2a-js/sdk flattened (-32603, or a FAILED task) becomes the conformant
 *   AAP envelope of the endpoint's form, with the instance's error_id, created_at and details
 *   (a validation error whose fields were lost gets one `details.errors[]` entry), and no stack
 *   trace in any message;
 * - a -32008 without the recovery instructions (a bare one, or an earlier draft's with the URI
 *   only in its metadata) gets the URI and `A2A-Extensions` in its message and the ErrorInfo with
 *   `extensionUri` and `requiredHeader`;
 * - a stack trace in an error message is cut (spec: "MUST NOT leak internal stack traces"), the
 *   message of a typed `aap.error` payload the host wrote itself included;
 * - an error without an `error_id` gets a minted one where the caller sees it: in the typed AAP
 *   payload and the AAP ErrorInfo's metadata (both, so they agree), else the first ErrorInfo's
 *   metadata (A2A errors), DMC-12 `result.data.error_id`, `error.data.error_id` on DMC-12 errors;
 * - a DMC-12 error result without `_metadata.trace_id` gets `trc_<trace id>`.
 * Success responses are returned untouched. The caller splices the edited object back into the
 * host's bytes (json-splice.ts), so what is not changed here keeps the host's spelling.
 */
import {
  A2A_ERROR_DOMAIN,
  A2A_EXTENSIONS_HEADER,
  AAP_CODES,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  ERROR_INFO_TYPE_URL,
  JSONRPC_ERRORS,
  containsStackTrace,
  isAapCode,
  mintErrorId,
  parseCall,
  stripStackTrace,
} from '../protocol/index.js';
import type { CallOutcome, ParsedError, RequestCall } from '../protocol/index.js';
import { correlate } from './aap-error-hook.js';
import type { ExchangeErrors } from './aap-error-hook.js';
import { buildAapErrorObject, checkConformance } from './protocol-bridge.js';

/** Conformance rule ids the instrumentation itself reports for what it had to complete. */
export const REWRITE_RULES = {
  /** An AapError reached the wire as a generic -32603 (SDK dropped the typed payload). */
  aapErrorFlattened: 'aap-error-flattened',
  /** A skill failure was sent as a successful result with a FAILED task. */
  taskFailed: 'skill-error-as-failed-task',
  /** A -32008 without the extension URI, header name and ErrorInfo the AAP contract requires. */
  bareActivationError: 'activation-error-incomplete',
  /** An error payload without an error_id. */
  missingErrorId: 'error-id-missing',
  /** An error message carrying a stack trace (cut before it is sent). */
  stackTrace: 'stack-trace-in-message',
} as const;

const TASK_ERROR_PREFIX = 'Agent execution error: ';

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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: unknown, k: string): unknown => (isObj(o) && Object.hasOwn(o, k) ? o[k] : undefined);
const isErrorInfo = (d: unknown): d is Obj => {
  const t = own(d, '@type');
  return typeof t === 'string' && t.endsWith('google.rpc.ErrorInfo');
};
const isAapPayload = (d: unknown): d is Obj => own(d, '@type') === AAP_ERROR_TYPE_URL;
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Settings of one completion pass. */
export interface RewriteContext {
  store: ExchangeErrors | null;
  /** The AAP envelope form this endpoint serves (what a promoted AapError is written in). */
  aapForm: '2.0' | 'released';
  /** The endpoint's form when it is known (configured or read from its agent card), for the checker; else null. */
  endpointForm: '2.0' | 'released' | null;
  requiredExtensionUri: string | null;
  /** W3C trace id of the call, for DMC-12 `_metadata.trace_id`; null without a valid trace. */
  traceId: string | null;
  /** Whether the bytes may be changed (false: classify only). */
  mayRewrite: boolean;
  now: Date;
  /**
   * Whether to run the conformance rules (false for a call past the per-exchange audit cap: it is
   * counted, not audited, and the rules are most of a call's cost). @default true
   */
  conformance?: boolean;
}

/** What one response object became. */
export interface RewriteResult {
  item: Obj;
  changed: boolean;
  outcome: CallOutcome;
  /** Conformance rule ids the host's original response broke. */
  conformance: string[];
  /** The outcome's error_id was minted here (visible to the caller when `changed`). */
  minted: boolean;
}

/** Text of a FAILED task's status message, when the result is one. */
function failedTaskText(result: unknown): string | null {
  const task = isObj(own(result, 'task')) ? own(result, 'task') : own(result, 'statusUpdate');
  const status = own(task, 'status');
  const state = own(status, 'state');
  if (state !== 'TASK_STATE_FAILED' && state !== 'failed') return null;
  const parts = own(own(status, 'message'), 'parts');
  if (!Array.isArray(parts)) return null;
  for (const p of parts) {
    const text = own(p, 'text');
    if (typeof text === 'string') return text;
  }
  return null;
}

/** `metadata.error_id` of the first ErrorInfo in `error.data`, when it is a non-empty string; else null. */
function infoErrorId(item: Obj): string | null {
  const data = own(own(item, 'error'), 'data');
  const info = Array.isArray(data) ? data.find(isErrorInfo) : undefined;
  const id = own(own(info, 'metadata'), 'error_id');
  return nonEmpty(id) ? id : null;
}

/** Sets `metadata.error_id` of an ErrorInfo (creating the metadata) unless it already holds one; true when it did. */
function setInfoErrorId(info: Obj, errorId: string): boolean {
  const meta = own(info, 'metadata');
  if (!isObj(meta)) info.metadata = { error_id: errorId };
  else if (!nonEmpty(own(meta, 'error_id'))) meta.error_id = errorId;
  else return false;
  return true;
}

/**
 * An AAP 2.0 error whose id the host put in only one of its two places (typed payload, AAP
 * ErrorInfo metadata): copies it to the other, so the two agree (spec "Errors": the ErrorInfo
 * carries "string-valued metadata for code, error_id, retryable and created_at"). True when it did.
 */
function completeAapErrorId(item: Obj, errorId: string): boolean {
  const data = own(own(item, 'error'), 'data');
  if (!Array.isArray(data)) return false;
  const payload = data.find(isAapPayload);
  const infos = data.filter(isErrorInfo);
  const aapInfo = infos.find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) ?? infos.find((i) => isAapCode(own(i, 'reason')));
  if (!payload || !aapInfo) return false;
  let did = false;
  if (!nonEmpty(own(payload, 'error_id'))) {
    payload.error_id = errorId;
    did = true;
  }
  return setInfoErrorId(aapInfo, errorId) || did;
}

/**
 * Adds `errorId` to the error payload of `item` where the caller will see it. An AAP error gets it
 * in both its typed payload and its AAP ErrorInfo (domain autoagentprotocol.org), never in an
 * A2A-domain ErrorInfo that happens to come first. Returns true if it could.
 */
function insertErrorId(item: Obj, error: ParsedError, errorId: string, family: RequestCall['family'] | undefined): boolean {
  const errorMember = own(item, 'error');
  if (isObj(errorMember)) {
    const data = own(errorMember, 'data');
    if (Array.isArray(data)) {
      const payload = data.find(isAapPayload);
      const infos = data.filter(isErrorInfo);
      const aapInfo = infos.find((i) => own(i, 'domain') === AAP_ERROR_DOMAIN) ?? infos.find((i) => isAapCode(own(i, 'reason')));
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
      errorMember.data = family === 'dmc12' || error.protocol === 'dmc12' ? { error_id: errorId } : [errorInfoFor(error, errorId)];
      return true;
    }
    if (isObj(data) && !nonEmpty(own(data, 'error_id'))) {
      data.error_id = errorId;
      return true;
    }
    return false;
  }
  const data = own(own(item, 'result'), 'data');
  if (error.protocol === 'dmc12' && isObj(data) && !nonEmpty(own(data, 'error_id'))) {
    data.error_id = errorId;
    return true;
  }
  return false;
}

function errorInfoFor(error: ParsedError, errorId: string): Obj {
  const named = JSONRPC_REASONS[error.code] ?? (/^[A-Z][A-Z0-9_]{0,63}$/.test(error.code) ? error.code : 'UNKNOWN');
  const reason = isAapCode(named) ? 'UNKNOWN' : named;
  return { '@type': ERROR_INFO_TYPE_URL, reason, domain: A2A_ERROR_DOMAIN, metadata: { error_id: errorId } };
}

const URI_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s,"'<>]+/i;
const usableUri = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && !/\s/.test(v) && URL.canParse(v);

/**
 * Completes a -32008 in place so it carries the recovery instructions (spec "The activation error
 * MUST carry recovery instructions"): the exact URI and `A2A-Extensions` in `message`, and an
 * ErrorInfo (domain a2a-protocol.org, reason EXTENSION_SUPPORT_REQUIRED) with string metadata
 * `extensionUri` and `requiredHeader`. The URI is the one the host named in that ErrorInfo (an
 * earlier draft put it there only), else `requiredExtensionUri`, else the one in its message.
 * Returns `'complete'` when nothing was missing, `'completed'` when it changed `error`, and
 * `'incomplete'` when something is missing but no URI is known or rewriting is off.
 */
function completeActivation(error: Obj, ctx: RewriteContext): 'complete' | 'completed' | 'incomplete' {
  const data = own(error, 'data');
  const info = Array.isArray(data) ? data.find((d) => isErrorInfo(d) && own(d, 'reason') === 'EXTENSION_SUPPORT_REQUIRED') : undefined;
  const meta = own(info, 'metadata');
  const message = own(error, 'message');
  const fromMessage = typeof message === 'string' ? URI_IN_TEXT.exec(message)?.[0]?.replace(/[.,;:)]+$/, '') : undefined;
  const metaUri = own(meta, 'extensionUri');
  const uri = usableUri(metaUri) ? metaUri : (ctx.requiredExtensionUri ?? (usableUri(fromMessage) ? fromMessage : null));
  const messageOk = typeof message === 'string' && uri !== null && message.includes(uri) && message.includes(A2A_EXTENSIONS_HEADER);
  const infoOk = isObj(info) && own(info, 'domain') === A2A_ERROR_DOMAIN && metaUri === uri && own(meta, 'requiredHeader') === A2A_EXTENSIONS_HEADER;
  if (uri !== null && messageOk && infoOk) return 'complete';
  if (uri === null || !ctx.mayRewrite) return 'incomplete';
  if (!messageOk) error.message = `Activate ${uri} in the ${A2A_EXTENSIONS_HEADER} header before retrying this request.`;
  if (!infoOk) {
    if (isObj(info)) {
      if (own(info, 'domain') !== A2A_ERROR_DOMAIN) info.domain = A2A_ERROR_DOMAIN;
      if (!isObj(meta)) info.metadata = { extensionUri: uri, requiredHeader: A2A_EXTENSIONS_HEADER };
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
function plainMessage(code: unknown): string {
  const info = JSONRPC_ERRORS[String(code) as keyof typeof JSONRPC_ERRORS];
  return info ? (info.meaning.split(':')[0] as string) : 'Server error';
}

/**
 * The typed `aap.error` payloads of a JSON-RPC `error` member: `error.data` itself in the released
 * form, the entries tagged with the AAP `@type` (or `type: "aap.error"`) of the 2.0 array.
 */
function typedPayloads(error: unknown): Obj[] {
  const data = own(error, 'data');
  const isPayload = (d: unknown): d is Obj => isObj(d) && (own(d, '@type') === AAP_ERROR_TYPE_URL || own(d, 'type') === 'aap.error');
  if (Array.isArray(data)) return data.filter(isPayload);
  return isPayload(data) ? [data] : [];
}

/** Cuts stack frames out of a message string at `o[key]`; true when it did. */
function stripMessage(o: unknown, key: string, fallback: string): boolean {
  if (!isObj(o)) return false;
  const text = own(o, key);
  if (typeof text !== 'string' || !containsStackTrace(text)) return false;
  o[key] = stripStackTrace(text, fallback);
  return true;
}

/**
 * Classifies one response object for `call` and, when allowed, completes it (see file doc).
 * Never throws on odd shapes; mutates only `item` (a private parsed copy).
 */
export function rewriteItem(item: Obj, call: RequestCall | null, ctx: RewriteContext): RewriteResult {
  const family = call?.family ?? undefined;
  if (!Object.hasOwn(item, 'error')) {
    // Success fast path: a result that hides no error is never touched or checked.
    const first = parseCall(item, family);
    if (first.ok) return { item, changed: false, outcome: first, conformance: [], minted: false };
  }
  const isA2A = family === 'aap' || family === undefined;
  const error = own(item, 'error');
  const flattened = isA2A && isObj(error) && own(error, 'code') === -32603 && typeof own(error, 'message') === 'string' ? correlate(ctx.store, own(error, 'message') as string) : undefined;
  // The typed envelope for an AapError the SDK flattened to -32603, from protocol's one builder;
  // undefined when the builder refuses (the host's error is then kept, and checked).
  const promoted = flattened && ctx.mayRewrite ? buildAapErrorObject(flattened, ctx.aapForm, ctx.now) : undefined;
  // When the reply is replaced by that envelope the host's flattened form never leaves: it is not
  // checked (issue 14), only the flattening is noted. test/instrument/rewrite.test.ts checks the
  // envelope itself against checkConformance.
  const conformance = ctx.conformance === false || promoted ? [] : checkConformance(item, family, ctx.endpointForm);
  const note = (rule: string): void => {
    if (!conformance.includes(rule)) conformance.push(rule);
  };
  let changed = false;
  let current = item;

  if (isObj(error)) {
    const code = own(error, 'code');
    const message = own(error, 'message');
    if (isA2A && code === -32603 && typeof message === 'string') {
      if (flattened) {
        note(REWRITE_RULES.aapErrorFlattened);
        if (promoted) {
          current.error = promoted;
          changed = true;
        }
      }
    } else if (isA2A && code === -32008) {
      const done = completeActivation(error, ctx);
      if (done !== 'complete') note(REWRITE_RULES.bareActivationError);
      if (done === 'completed') changed = true;
    }
    const sent = own(current, 'error');
    if (typeof own(sent, 'message') === 'string' && containsStackTrace(own(sent, 'message') as string)) {
      note(REWRITE_RULES.stackTrace);
      if (ctx.mayRewrite && stripMessage(sent, 'message', plainMessage(own(sent, 'code')))) changed = true;
    }
    for (const payload of typedPayloads(sent)) {
      const text = own(payload, 'message');
      if (typeof text !== 'string' || !containsStackTrace(text)) continue;
      note(REWRITE_RULES.stackTrace);
      const code = own(payload, 'code');
      const meaning = typeof code === 'string' && isAapCode(code) ? AAP_CODES[code].meaning : 'Error';
      if (ctx.mayRewrite && stripMessage(payload, 'message', meaning)) changed = true;
    }
  } else if (isA2A) {
    const text = failedTaskText(own(current, 'result'));
    if (text !== null) {
      note(REWRITE_RULES.taskFailed);
      const aap = text.startsWith(TASK_ERROR_PREFIX) ? correlate(ctx.store, text.slice(TASK_ERROR_PREFIX.length)) : undefined;
      const built = aap && ctx.mayRewrite ? buildAapErrorObject(aap, ctx.aapForm, ctx.now) : undefined;
      if (built) {
        const id = own(current, 'id');
        current = { jsonrpc: '2.0', id: id === undefined ? null : id, error: built };
        changed = true;
      }
    }
  }

  const outcome = parseCall(current, family);
  let minted = false;
  if (!outcome.ok && outcome.error) {
    const e = { ...outcome.error };
    outcome.error = e;
    if (e.protocol === 'dmc12' && ctx.mayRewrite) {
      const data = own(own(current, 'result'), 'data');
      if (stripMessage(data, 'message', 'Error')) {
        note(REWRITE_RULES.stackTrace);
        changed = true;
      }
    }
    // The parser reads error_id from AAP payloads and AAP ErrorInfos only; an A2A or plain error
    // may carry the host's own in the ErrorInfo where insertErrorId would put one.
    if (!e.errorId) e.errorId = infoErrorId(current);
    if (!e.errorId) {
      e.errorId = mintErrorId();
      minted = true;
      note(REWRITE_RULES.missingErrorId);
      if (ctx.mayRewrite && insertErrorId(current, e, e.errorId, family)) changed = true;
    } else if (ctx.mayRewrite && completeAapErrorId(current, e.errorId)) {
      changed = true;
    }
    if (e.protocol === 'dmc12' && ctx.mayRewrite && ctx.traceId !== null && !own(current, 'error')) {
      const result = own(current, 'result');
      const meta = own(result, '_metadata');
      if (isObj(result) && meta === undefined) {
        result._metadata = { trace_id: `trc_${ctx.traceId}` };
        changed = true;
      } else if (isObj(meta) && !Object.hasOwn(meta, 'trace_id')) {
        meta.trace_id = `trc_${ctx.traceId}`;
        changed = true;
      }
    }
  }
  return { item: current, changed, outcome, conformance, minted };
}
