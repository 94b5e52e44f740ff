/**
 * Readers over one answer body, for what the battery checks beyond the protocol checker: the
 * typed payloads a case expects, the error_ids the answer carries (through the protocol parser),
 * and the one-line summary a report shows. Pure; never throw.
 */
import { ERROR_INFO_TYPE_URL, isParseFailure, locateAapPayload, locateDmc12Data, parseResponse } from '../protocol/index.js';
import { isObject, own, ownObject, type JsonObject } from '../protocol/extract.js';
import type { ProbeFamily } from './types.js';

/** The response objects of a body: itself, or the entries of a batch reply. */
export function replies(json: unknown): JsonObject[] {
  const list: unknown[] = Array.isArray(json) ? json : [json];
  return list.filter(isObject);
}

/** The typed aap.error of a reply (2.0 array entry or released object), as the protocol locates it. */
export function aapPayloadOf(reply: unknown): JsonObject | null {
  return locateAapPayload(own(reply, 'error'))?.payload ?? null;
}

/** The ErrorInfo entries of a reply's `error.data` array. */
export function errorInfosOf(reply: unknown): JsonObject[] {
  const data = own(ownObject(reply, 'error'), 'data');
  return Array.isArray(data) ? (data.filter((e) => isObject(e) && e['@type'] === ERROR_INFO_TYPE_URL) as JsonObject[]) : [];
}

/** A DMC-12 error inside a successful result (`result.data`), as the protocol locates it, or null. */
export function dmc12DataOf(reply: unknown): JsonObject | null {
  const found = locateDmc12Data(reply);
  return found && !found.inError ? found.data : null;
}

/**
 * Every error_id in a body, deduplicated, in order: what the protocol parser reads for each error
 * reply (the aap.error's, else its ErrorInfo metadata's, the DMC-12 data's, an A2A protocol
 * error's ErrorInfo metadata). `family` is the call's, as for `parseResponse`.
 */
export function errorIdsOf(json: unknown, family?: ProbeFamily): string[] {
  if (json === undefined) return [];
  const outcomes = parseResponse(json, { family });
  if (isParseFailure(outcomes)) return [];
  const ids: string[] = [];
  for (const o of outcomes) {
    const id = o.error?.errorId;
    if (typeof id === 'string' && id.length > 0 && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The error_id of one reply, as a buyer would quote it (see `errorIdsOf`), or null. */
export function errorIdOfReply(reply: unknown, family?: ProbeFamily): string | null {
  return errorIdsOf(reply, family)[0] ?? null;
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
