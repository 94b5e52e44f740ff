/**
 * Raw readers over one answer body, for what the battery checks beyond the protocol checker:
 * every error_id an answer carries, every `retryable` as sent (not as a parser normalised it), and
 * the one-line summary a report shows. Pure; never throw.
 */
import { AAP_ERROR_TYPE_URL, ERROR_INFO_TYPE_URL } from '../protocol/index.js';
import { isObject, own, ownObject, type JsonObject } from '../protocol/extract.js';

/** The response objects of a body: itself, or the entries of a batch reply. */
export function replies(json: unknown): JsonObject[] {
  const list: unknown[] = Array.isArray(json) ? json : [json];
  return list.filter(isObject);
}

/** The typed aap.error of a reply: the `@type`-tagged entry of the 2.0 array, or the released object. */
export function aapPayloadOf(reply: unknown): JsonObject | null {
  const data = own(ownObject(reply, 'error'), 'data');
  if (Array.isArray(data)) return (data.find((e) => own(e, '@type') === AAP_ERROR_TYPE_URL) as JsonObject | undefined) ?? null;
  return isObject(data) && own(data, 'type') === 'aap.error' ? data : null;
}

/** The ErrorInfo entries of a reply's `error.data` array. */
export function errorInfosOf(reply: unknown): JsonObject[] {
  const data = own(ownObject(reply, 'error'), 'data');
  return Array.isArray(data) ? (data.filter((e) => isObject(e) && e['@type'] === ERROR_INFO_TYPE_URL) as JsonObject[]) : [];
}

/** A DMC-12 error inside a successful result (`result.data` with `error_code` or a legacy `error`), or null. */
export function dmc12DataOf(reply: unknown): JsonObject | null {
  const data = ownObject(ownObject(reply, 'result'), 'data');
  return data && (Object.hasOwn(data, 'error_code') || typeof own(data, 'error') === 'string') ? data : null;
}

/** Every error_id in a body (aap.error, ErrorInfo metadata, DMC-12 data), deduplicated, in order. */
export function errorIdsOf(json: unknown): string[] {
  const ids: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length > 0 && !ids.includes(v)) ids.push(v);
  };
  for (const r of replies(json)) {
    add(own(aapPayloadOf(r), 'error_id'));
    for (const info of errorInfosOf(r)) add(own(ownObject(info, 'metadata'), 'error_id'));
    add(own(dmc12DataOf(r), 'error_id'));
    const data = own(ownObject(r, 'error'), 'data');
    if (isObject(data)) add(own(data, 'error_id'));
  }
  return ids;
}

/** The error_id of one reply, as a buyer would quote it (aap.error / DMC-12 first, then ErrorInfo), or null. */
export function errorIdOfReply(reply: unknown): string | null {
  return errorIdsOf(reply)[0] ?? null;
}

/** Where a `retryable` was found and what it was, as sent. */
export interface RetryableSeen {
  where: 'aap.error' | 'dmc12';
  value: unknown;
  code: unknown;
}

/** Every `retryable` member of the typed payloads in a body (ErrorInfo metadata is a string map by spec, so not here). */
export function retryablesOf(json: unknown): RetryableSeen[] {
  const out: RetryableSeen[] = [];
  for (const r of replies(json)) {
    const p = aapPayloadOf(r);
    if (p) out.push({ where: 'aap.error', value: own(p, 'retryable'), code: own(p, 'code') });
    const d = dmc12DataOf(r);
    if (d) out.push({ where: 'dmc12', value: own(d, 'retryable'), code: own(d, 'error_code') });
  }
  return out;
}

/** Every human-readable message of a body: error.message, the aap.error's and the DMC-12 data's. */
export function messagesOf(json: unknown): string[] {
  const out: string[] = [];
  for (const r of replies(json)) {
    for (const m of [own(ownObject(r, 'error'), 'message'), own(aapPayloadOf(r), 'message'), own(dmc12DataOf(r), 'message')]) {
      if (typeof m === 'string') out.push(m);
    }
  }
  return out;
}

/** The JSON-RPC error code of a reply, or null. */
export function jsonrpcCodeOf(reply: unknown): number | null {
  const c = own(ownObject(reply, 'error'), 'code');
  return typeof c === 'number' ? c : null;
}

/**
 * One reply in a few words for the report — codes and ids only, never message text (a dealer's
 * message may echo what was sent): `-32008 EXTENSION_SUPPORT_REQUIRED`, `result VALIDATION_FAILED`,
 * `result (success)`.
 */
export function describeReply(reply: unknown): { got: string; jsonrpcCode: number | null; code: string | null } {
  const code = jsonrpcCodeOf(reply);
  const payload = aapPayloadOf(reply);
  const reason = own(errorInfosOf(reply)[0], 'reason');
  const dmc = dmc12DataOf(reply);
  const domain = [own(payload, 'code'), own(dmc, 'error_code'), reason].find((c) => typeof c === 'string') as string | undefined;
  if (code !== null) return { got: `${code}${domain ? ` ${domain}` : ''}`, jsonrpcCode: code, code: domain ?? null };
  if (isObject(reply) && Object.hasOwn(reply, 'result')) {
    return { got: dmc ? `result ${domain ?? String(own(dmc, 'error'))}` : 'result (success)', jsonrpcCode: null, code: domain ?? null };
  }
  return { got: 'not a JSON-RPC response', jsonrpcCode: null, code: null };
}
