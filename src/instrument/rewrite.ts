/**
 * Response completion: the only code that changes bytes on the wire (issue 3). Works on one
 * parsed response object at a time and only ever touches error responses:
 * - an `AapError` that @a2a-js/sdk flattened (-32603, or a FAILED task) becomes the conformant
 *   AAP envelope of the configured form;
 * - a bare -32008 becomes the activation error with the extension URI and the header name;
 * - an error without an `error_id` gets a minted one where the caller sees it (ErrorInfo
 *   metadata `error_id`; DMC-12 `result.data.error_id`; `error.data.error_id` on DMC-12 errors);
 * - a DMC-12 error result without `_metadata.trace_id` gets `trc_<trace id>`.
 * Success responses are returned untouched.
 */
import { A2A_ERROR_DOMAIN, ERROR_INFO_TYPE_URL, mintErrorId, parseCall } from '../protocol/index.js';
import type { CallOutcome, ParsedError, RequestCall } from '../protocol/index.js';
import { correlate } from './aap-error-hook.js';
import type { ExchangeErrors } from './aap-error-hook.js';
import { buildAapErrorObject, buildExtensionRequiredErrorObject, checkConformance } from './protocol-bridge.js';
import type { AapForm } from './types.js';

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
} as const;

const TASK_ERROR_PREFIX = 'Agent execution error: ';

const JSONRPC_REASONS: Readonly<Record<string, string>> = {
  '-32700': 'PARSE_ERROR',
  '-32600': 'INVALID_REQUEST',
  '-32601': 'METHOD_NOT_FOUND',
  '-32602': 'INVALID_PARAMS',
  '-32603': 'INTERNAL_ERROR',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: unknown, k: string): unknown => (isObj(o) && Object.hasOwn(o, k) ? o[k] : undefined);
const isErrorInfo = (d: unknown): d is Obj => {
  const t = own(d, '@type');
  return typeof t === 'string' && t.endsWith('google.rpc.ErrorInfo');
};

/** Settings of one completion pass. */
export interface RewriteContext {
  store: ExchangeErrors | null;
  aapForm: AapForm;
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

/** Adds `errorId` to the error payload of `item` where the caller will see it. Returns true if it could. */
function insertErrorId(item: Obj, error: ParsedError, errorId: string, family: RequestCall['family'] | undefined): boolean {
  const errorMember = own(item, 'error');
  if (isObj(errorMember)) {
    const data = own(errorMember, 'data');
    if (Array.isArray(data)) {
      const info = data.find(isErrorInfo);
      if (info) {
        const meta = own(info, 'metadata');
        if (isObj(meta)) meta.error_id = errorId;
        else info.metadata = { error_id: errorId };
        return true;
      }
      data.unshift(errorInfoFor(error, errorId));
      return true;
    }
    if (data === undefined) {
      errorMember.data = family === 'dmc12' || error.protocol === 'dmc12' ? { error_id: errorId } : [errorInfoFor(error, errorId)];
      return true;
    }
    if (isObj(data) && !Object.hasOwn(data, 'error_id')) {
      data.error_id = errorId;
      return true;
    }
    return false;
  }
  const data = own(own(item, 'result'), 'data');
  if (error.protocol === 'dmc12' && isObj(data) && !Object.hasOwn(data, 'error_id')) {
    data.error_id = errorId;
    return true;
  }
  return false;
}

function errorInfoFor(error: ParsedError, errorId: string): Obj {
  const reason = JSONRPC_REASONS[error.code] ?? (/^[A-Z][A-Z0-9_]{0,63}$/.test(error.code) ? error.code : 'UNKNOWN');
  return { '@type': ERROR_INFO_TYPE_URL, reason, domain: A2A_ERROR_DOMAIN, metadata: { error_id: errorId } };
}

function hasActivationDetail(error: Obj): boolean {
  const data = own(error, 'data');
  if (!Array.isArray(data)) return false;
  return data.some((d) => isErrorInfo(d) && typeof own(own(d, 'metadata'), 'extensionUri') === 'string');
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
  const conformance = ctx.conformance === false ? [] : checkConformance(item, family);
  let changed = false;
  let current = item;
  const isA2A = family === 'aap' || family === undefined;

  const error = own(current, 'error');
  if (isObj(error)) {
    const code = own(error, 'code');
    const message = own(error, 'message');
    if (isA2A && code === -32603 && typeof message === 'string') {
      const aap = correlate(ctx.store, message);
      if (aap) {
        conformance.push(REWRITE_RULES.aapErrorFlattened);
        if (ctx.mayRewrite) {
          current.error = buildAapErrorObject(aap, ctx.aapForm, ctx.now);
          changed = true;
        }
      }
    } else if (code === -32008 && !hasActivationDetail(error)) {
      conformance.push(REWRITE_RULES.bareActivationError);
      const uri = ctx.requiredExtensionUri ?? (typeof message === 'string' ? /\b[a-z][a-z0-9+.-]*:\/\/[^\s,]+/i.exec(message)?.[0] : undefined);
      if (uri && ctx.mayRewrite) {
        current.error = buildExtensionRequiredErrorObject(uri.replace(/[.)]+$/, ''));
        changed = true;
      }
    }
  } else if (isA2A) {
    const text = failedTaskText(own(current, 'result'));
    if (text !== null) {
      if (!conformance.includes(REWRITE_RULES.taskFailed)) conformance.push(REWRITE_RULES.taskFailed);
      const aap = text.startsWith(TASK_ERROR_PREFIX) ? correlate(ctx.store, text.slice(TASK_ERROR_PREFIX.length)) : undefined;
      if (aap && ctx.mayRewrite) {
        const id = own(current, 'id');
        current = { jsonrpc: '2.0', id: id === undefined ? null : id, error: buildAapErrorObject(aap, ctx.aapForm, ctx.now) };
        changed = true;
      }
    }
  }

  const outcome = parseCall(current, family);
  let minted = false;
  if (!outcome.ok && outcome.error) {
    const e = { ...outcome.error };
    outcome.error = e;
    if (!e.errorId) {
      e.errorId = mintErrorId();
      minted = true;
      if (!conformance.includes(REWRITE_RULES.missingErrorId)) conformance.push(REWRITE_RULES.missingErrorId);
      if (ctx.mayRewrite && insertErrorId(current, e, e.errorId, family)) changed = true;
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
