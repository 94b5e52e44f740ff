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
import { AAP_CODES, isAapCode } from '../../protocol/codes/aap-codes.js';
import { containsStackTrace } from '../../protocol/builders/common.js';
import {
  completeAapErrorId,
  completeActivationError,
  failedTaskText,
  infoErrorId,
  insertErrorId,
  insertUpstreamTraceId,
  plainMessage,
  stripMessage,
  typedPayloads,
} from '../../protocol/envelope-edits.js';
import { type JsonObject, isObject, own } from '../../protocol/extract.js';
import { mintErrorId } from '../../protocol/error-id.js';
import { mayHoldError } from '../../protocol/call-shape.js';
import { decodeBody, isParseFailure, readJsonBody } from '../../protocol/json-body.js';
import { parseCall } from '../../protocol/parse-response.js';
import type { RequestCall } from '../../protocol/parse-request.js';
import type { CallOutcome } from '../../protocol/types.js';
import { correlate } from '../taps/aap-error-hook.js';
import type { ExchangeErrors } from '../taps/aap-error-hook.js';
import { envelopeDataText } from './envelope-text.js';
import { spliceBody } from './json-splice.js';
import { NO_RULES } from './pair.js';
import type { Answer } from './pair.js';
import { mayHoldResponseFacts } from '../genai-conventions.js';
import type { ReplyFacts } from '../genai-conventions.js';
import { buildAapErrorObject, builtOutcome, checkConformance } from './protocol-bridge.js';
import type { AapErrorLike } from './protocol-bridge.js';

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

/** What @a2a-js/sdk writes before a thrown executor error's message in the failed task's status text. */
const TASK_ERROR_PREFIX = 'Agent execution error: ';

/** Settings of one completion pass. */
export interface CompleteContext {
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
export interface Completion {
  item: JsonObject;
  changed: boolean;
  outcome: CallOutcome;
  /** Conformance rule ids the host's original response broke. */
  conformance: string[];
  /** The outcome's error_id was minted here (visible to the caller when `changed`). */
  minted: boolean;
  /** The reply's error was replaced whole by an envelope built here (the host's flattened form never leaves). */
  promoted: boolean;
  /** That envelope's `data` and its JSON text from the envelope's template (envelope-text.ts), for the splice; else null. */
  dataText?: [unknown, string] | null;
}

/**
 * Classifies one response object for `call` and, when allowed, completes it (see file doc).
 * Never throws on odd shapes; mutates only `item` (a private parsed copy).
 */
export function complete(item: JsonObject, call: RequestCall | null, ctx: CompleteContext): Completion {
  const family = call?.family ?? undefined;
  // A reply without an `error` member is parsed once up front: success (the fast path, never
  // touched or checked) or an error inside its result, whose outcome serves below unless the reply is replaced.
  let first: CallOutcome | null = null;
  if (!Object.hasOwn(item, 'error')) {
    first = parseCall(item, family);
    if (first.ok) return { item, changed: false, outcome: first, conformance: NO_RULES, minted: false, promoted: false, dataText: null };
  }
  const isA2A = family === 'aap' || family === undefined;
  const error = own(item, 'error');
  const flattened = isA2A && isObject(error) && own(error, 'code') === -32603 && typeof own(error, 'message') === 'string' ? correlate(ctx.store, own(error, 'message') as string) : undefined;
  // The typed envelope for an AapError the SDK flattened to -32603, from protocol's one builder;
  // undefined when the builder refuses (the host's error is then kept, and checked).
  const promoted = flattened && ctx.mayRewrite ? buildAapErrorObject(flattened, ctx.aapForm, ctx.now) : undefined;
  // When the reply is replaced by that envelope the host's flattened form never leaves: it is not
  // checked (issue 14), only the flattening is noted. test/instrument/rewrite.test.ts checks the
  // envelope itself against checkConformance.
  // Past the audit cap (or for a replaced reply) no rule is checked: the list is allocated only when the completion notes one.
  let conformance = ctx.conformance === false || promoted ? NO_RULES : checkConformance(item, family, ctx.endpointForm);
  const note = (rule: string): void => {
    if (conformance === NO_RULES) conformance = [rule];
    else if (!conformance.includes(rule)) conformance.push(rule);
  };
  let changed = false;
  let current = item;
  // The envelope built here, when the host's error is replaced by it: never re-parsed or re-checked (issue 26).
  let built: JsonObject | undefined;
  // What `built` was made from, for its data's text.
  let builtFrom: AapErrorLike | undefined;

  if (isObject(error)) {
    const code = own(error, 'code');
    const message = own(error, 'message');
    if (isA2A && code === -32603 && typeof message === 'string') {
      if (flattened) {
        note(REWRITE_RULES.aapErrorFlattened);
        if (promoted) {
          current.error = promoted;
          built = promoted;
          builtFrom = flattened;
          changed = true;
        }
      }
    } else if (isA2A && code === -32008) {
      const done = completeActivationError(error, ctx.requiredExtensionUri, ctx.mayRewrite);
      if (done !== 'complete') note(REWRITE_RULES.bareActivationError);
      if (done === 'completed') changed = true;
    }
    const sent = built ? undefined : own(current, 'error');
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
      built = aap && ctx.mayRewrite ? buildAapErrorObject(aap, ctx.aapForm, ctx.now) : undefined;
      builtFrom = aap;
      if (built) {
        const id = own(current, 'id');
        current = { jsonrpc: '2.0', id: id === undefined ? null : id, error: built };
        changed = true;
      }
    }
  }

  if (built) {
    const text = builtFrom ? envelopeDataText(builtFrom, ctx.aapForm, built, buildAapErrorObject) : null;
    const dataText: [unknown, string] | null = text === null ? null : [built.data, text];
    return { item: current, changed, outcome: builtOutcome(current, built, ctx.aapForm), conformance, minted: false, promoted: true, dataText };
  }
  // Nothing above changed a reply that has no `error` member unless it replaced it (a failed task).
  const outcome = first !== null && current === item && !changed ? first : parseCall(current, family);
  let minted = false;
  if (!outcome.ok && outcome.error) {
    // The parser's own fresh object (parseCall builds one per reply): completed in place.
    const e = outcome.error;
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
      if (ctx.mayRewrite && insertErrorId(current, e, e.errorId, family === 'dmc12')) changed = true;
    } else if (ctx.mayRewrite && completeAapErrorId(current, e.errorId)) {
      changed = true;
    }
    if (e.protocol === 'dmc12' && ctx.mayRewrite && ctx.traceId !== null && !own(current, 'error') && insertUpstreamTraceId(current, ctx.traceId)) changed = true;
  }
  return { item: current, changed, outcome, conformance, minted, promoted: false, dataText: null };
}

/** What the completion of a body needs to know of the call a reply answers. */
export interface ReplyTarget {
  call: RequestCall | null;
  /** W3C trace id for DMC-12 `_metadata.trace_id`, or null. */
  traceId: string | null;
  /** Within the audit cap (the conformance rules run). */
  audited: boolean;
}

/**
 * Completes one JSON response body (a single reply or a batch's array): each reply is classified
 * and, when `ctx.mayRewrite`, completed by {@link complete}; its answer is appended to `answers`.
 * Returns the completed body as text — the host's bytes spliced where replies changed
 * (json-splice.ts), so what was not completed keeps the host's spelling — or null when nothing
 * changed, the body holds no error (a cheap scan, most bodies), or it is not JSON. `facts` (GenAI
 * opt-in only, else null) reads a few members of every reply, what was sent: a success body is
 * then parsed too when it can hold one of them, and only read. Never throws on odd input.
 * `target` may hand back one object refilled per reply: each is read before the next call.
 */
export function completeBody(
  host: Buffer | string,
  maxBytes: number,
  ctx: CompleteContext,
  target: (id: string | number | null) => ReplyTarget,
  answers: Answer[],
  facts: ReplyFacts | null = null,
): string | null {
  // A body with no error member and no failed task is all successes: nothing to parse.
  const errors = mayHoldError(host);
  if (!errors && (facts === null || !mayHoldResponseFacts(host))) return null;
  const text = decodeBody(host, maxBytes);
  if (typeof text !== 'string') return null;
  const read = readJsonBody(text, { maxBytes });
  if (isParseFailure(read)) return null;
  const items = Array.isArray(read.value) ? read.value : [read.value];
  let changed = false;
  let known: Map<unknown, string> | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item) || !(Object.hasOwn(item, 'result') || Object.hasOwn(item, 'error'))) continue;
    const id = typeof item.id === 'string' || typeof item.id === 'number' ? item.id : null;
    if (!errors) {
      // Successes only (opt-in): nothing to complete or classify, the facts alone.
      facts?.read(item, id);
      continue;
    }
    const t = target(id);
    ctx.traceId = t.traceId;
    ctx.conformance = t.audited;
    const r = complete(item, t.call, ctx);
    facts?.read(r.item, id);
    if (r.changed) {
      changed = true;
      items[i] = r.item;
      if (r.dataText) (known ??= new Map()).set(r.dataText[0], r.dataText[1]);
    }
    answers.push({ outcome: r.outcome, conformance: r.conformance });
  }
  if (!changed) return null;
  const spliced = spliceBody(text, Array.isArray(read.value) ? items : items[0], known);
  return spliced === text ? null : spliced;
}
