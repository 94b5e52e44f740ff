/**
 * What the observer needs of `src/protocol`, adapted to its use: protocol's AAP builder fed
 * sanitised inputs (nothing when it still refuses), the conformance checker reduced to rule ids,
 * and the recovery of an AapError from the message text a stock @a2a-js/sdk sends.
 */
import {
  AAP_CODES,
  buildAapError,
  containsDraftIdentifier,
  checkConformance as protocolCheckConformance,
  isAapCode,
  isRfc3339,
  mintErrorId,
  stripStackTrace,
  AAP_ERROR_TYPE_URL,
  parseAapPayload,
} from '../../protocol/index.js';
import type { CallOutcome, CheckConformanceOptions } from '../../protocol/index.js';
import { readId } from '../../protocol/parse-response.js';
import { isObject, own } from '../../protocol/extract.js';
import type { AapForm } from '../types.js';

/** What the rewrite needs of a thrown `AapError` (protocol's class has these fields). */
export interface AapErrorLike {
  code: string;
  aapMessage: string;
  message: string;
  details: Record<string, unknown> | undefined;
  retryable: boolean;
  errorId: string;
  /** `created_at` of the instance (RFC 3339), when it is a real `AapError`; else the rewrite's time is used. */
  createdAt?: string;
}

/** Reads an `AapError` instance (or a structurally equal object) into `AapErrorLike`. */
export function asAapError(err: unknown): AapErrorLike | undefined {
  if (!isObject(err) && !(err instanceof Error)) return undefined;
  const e = err as unknown as Record<string, unknown>;
  const code = e.code;
  if (typeof code !== 'string' || !isAapCode(code)) return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const aapMessage = typeof e.aapMessage === 'string' ? e.aapMessage : message;
  const errorId = typeof e.errorId === 'string' ? e.errorId : mintErrorId();
  const retryable = typeof e.retryable === 'boolean' ? e.retryable : AAP_CODES[code].retryable;
  const details = isObject(e.details) ? e.details : undefined;
  const like: AapErrorLike = { code, aapMessage: stripStackTrace(aapMessage, AAP_CODES[code].meaning), message, details, retryable, errorId };
  if (isRfc3339(e.createdAt)) like.createdAt = e.createdAt;
  return like;
}

/**
 * Keyword of the one `details.errors[]` entry the rewrite writes when a validation error's
 * failing fields were lost on the wire (the SDK kept only the message): the code's own constraint
 * where it names one, else `schema`. spec/aap-errors.txt "details.errors[] — all problems at once".
 */
const LOST_DETAILS_KEYWORD: Readonly<Record<string, string>> = {
  MISSING_REQUIRED_FIELD: 'required',
  INVALID_CONDITION: 'enum',
  SCHEMA_VALIDATION_FAILED: 'schema',
};

/**
 * `details` with a usable `errors[]` for a validation code: the error's own when it has one, else
 * one entry for the whole request (`instanceLocation` "" is the JSON Pointer of the root) carrying
 * the message, since the spec requires the array on every validation error.
 */
function validationDetails(err: AapErrorLike): Record<string, unknown> | undefined {
  if (!AAP_CODES[err.code as keyof typeof AAP_CODES]?.validation) return err.details;
  const errors = err.details ? own(err.details, 'errors') : undefined;
  const usable =
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => isObject(e) && typeof e.instanceLocation === 'string' && typeof e.keyword === 'string' && typeof e.error === 'string');
  if (usable) return err.details;
  return { ...err.details, errors: [{ instanceLocation: '', keyword: LOST_DETAILS_KEYWORD[err.code] ?? 'schema', error: err.aapMessage }] };
}

/**
 * `text` made fit for an AAP message: stack frames cut, and, when it names an AAP draft identifier
 * (`draft.autoagentprotocol.invalid`, which "MUST NOT be deployed"), replaced whole by the code's
 * meaning from the code table, so no part of a draft URI is sent. Never throws.
 */
function sanitiseMessage(text: string, code: string): string {
  const meaning = AAP_CODES[code as keyof typeof AAP_CODES]?.meaning ?? 'Error';
  const cut = stripStackTrace(text, meaning);
  return containsDraftIdentifier(cut) ? meaning : cut;
}

/**
 * The JSON-RPC `error` member of a conformant AAP error (spec/aap-errors.txt "Error payload
 * shape" and "JSON-RPC error response"), in the 2.0 array form or the released bare-object form,
 * built by protocol's one builder (`buildAapError`) from sanitised inputs (message without stack
 * frames or draft identifiers, a validation code's lost `details.errors[]` restored). Returns
 * `undefined` when the builder still refuses — e.g. RATE_LIMITED without a retry hint (the spec's
 * SHOULD; "AAP does not standardize the rate-limit values themselves", so none is invented), or
 * details holding a draft identifier — and the caller then keeps the host's error. Never throws.
 */
export function buildAapErrorObject(input: AapErrorLike, form: AapForm, now: Date): Record<string, unknown> | undefined {
  if (!isAapCode(input.code)) return undefined;
  const aapMessage = sanitiseMessage(input.aapMessage, input.code);
  const details = validationDetails({ ...input, aapMessage });
  // The instance's own time: created_at says when the dealer generated the error, not when we saw it.
  const opts = {
    form: form === 'released' ? 'released' : '2.0',
    message: aapMessage,
    errorId: input.errorId,
    retryable: input.retryable,
    createdAt: input.createdAt ?? now,
  } as const;
  try {
    const built: unknown = buildAapError(input.code, details ? { ...opts, details } : opts);
    return isObject(built) && typeof built.code === 'number' ? built : undefined;
  } catch {
    return undefined;
  }
}

/** Conformance rule ids the response object breaks (protocol's `checkConformance`); `family` when the call's is known. */
export function checkConformance(response: unknown, family?: 'aap' | 'dmc12', form?: AapForm | null): string[] {
  const options: CheckConformanceOptions = {};
  if (family !== undefined) options.family = family;
  if (form === '2.0' || form === 'released') options.form = form;
  return protocolCheckConformance(response, options)
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
  // A host that sends `err.stack` (or appends it) still names the code on the first line; the
  // frames are cut before anything reaches the wire (spec: "MUST NOT leak internal stack traces").
  const m = /^(?:AapError: )?([A-Z][A-Z_]{2,63}): ([^\n]{0,2000})(?:\n|$)/.exec(message);
  if (!m) return undefined;
  const code = m[1] as string;
  if (!isAapCode(code) || AAP_CODES[code].legacy) return undefined;
  const rest = message.slice(m[0].length - (m[0].endsWith('\n') ? 1 : 0));
  const aapMessage = stripStackTrace(`${m[2] as string}${rest}`.slice(0, 2000), AAP_CODES[code].meaning);
  return { code, aapMessage, message, details: undefined, retryable: AAP_CODES[code].retryable, errorId: mintErrorId() };
}

/**
 * The outcome of a reply whose error is an envelope `buildAapErrorObject` built (`envelope`, in
 * `form`), read from its typed payload without parsing the whole reply again: the builder always
 * writes the payload's code, retryable, error_id and details, so this is what `parseCall` of the
 * reply gives (test/instrument/complete.test.ts compares the two for every code and form).
 */
export function builtOutcome(reply: Record<string, unknown>, envelope: Record<string, unknown>, form: '2.0' | 'released'): CallOutcome {
  const id = readId(reply);
  const jsonrpcCode = typeof envelope.code === 'number' ? envelope.code : null;
  const data = own(envelope, 'data');
  const payload = Array.isArray(data) ? data.find((d) => isObject(d) && own(d, '@type') === AAP_ERROR_TYPE_URL) : data;
  return { id, ok: false, error: parseAapPayload(payload, form === 'released' ? 'aap-released' : 'aap-2.0', jsonrpcCode) };
}
