/**
 * Request side: what each JSON-RPC call in a request body is (id, method, notification, skill),
 * and pairing of batch replies with their calls by id (JSON-RPC 2.0 §6: replies may come in any
 * order; `1` and `"1"` are different ids; notifications get no reply).
 */
import type { CallOutcome } from './types.js';
import { errorText, isObject, own, ownObject, ownString } from './extract.js';
import { type BodyLimits, type ParseFailure, parseFailure, readJsonBody } from './json-body.js';
import { type CallFamily, isResponseObject, parseCall, readId } from './parse-response.js';
import { A2A_RPC_METHODS } from './skills.js';

/** One call of a request body, as the instrumentation needs it. */
export interface RequestCall {
  /** The JSON-RPC id as sent; null for a notification, a null id, or an id of another type. */
  id: string | number | null;
  /** `method` when it is a string, else null (an invalid request the server answers -32600). */
  method: string | null;
  /** No own `id` member: the server sends no reply (JSON-RPC 2.0 §4.1). */
  isNotification: boolean;
  /** `aap` for A2A methods, `dmc12` for `tools/*`, null otherwise. */
  family: CallFamily | null;
  /**
   * AAP: `params.message.parts[0].data.type` without its `.request` suffix (`inventory.search`);
   * DMC-12: `params.name` of `tools/call` (`create_reservation`). Null when absent.
   */
  skill: string | null;
  /** `params` as sent (not copied; read own properties only). */
  params: unknown;
}

/** A2A JSON-RPC method names, v1.0 and v0.3 (AAP runs on A2A), as a set (`A2A_RPC_METHODS`). */
export const A2A_METHODS: ReadonlySet<string> = new Set(A2A_RPC_METHODS);

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

function familyOf(method: string | null): CallFamily | null {
  if (method === null) return null;
  if (A2A_METHODS.has(method)) return 'aap';
  if (method.startsWith('tools/')) return 'dmc12';
  return null;
}

function skillOf(method: string | null, params: unknown): string | null {
  if (method === null) return null;
  if (SEND_METHODS.has(method)) {
    const parts = own(ownObject(params, 'message'), 'parts');
    const type = Array.isArray(parts) ? ownString(own(parts[0], 'data'), 'type') : null;
    if (type === null) return null;
    return type.endsWith('.request') ? type.slice(0, -'.request'.length) : type;
  }
  if (method === 'tools/call') return ownString(params, 'name');
  return null;
}

/** One request object → its `RequestCall`. */
export function classifyCall(call: unknown): RequestCall {
  const method = ownString(call, 'method');
  const params = own(call, 'params');
  return {
    id: readId(call),
    method,
    isNotification: !(isObject(call) && Object.hasOwn(call, 'id')),
    family: familyOf(method),
    skill: skillOf(method, params),
    params,
  };
}

/**
 * Classifies every call in a request body (object or batch; text, bytes or parsed value), in
 * body order. Never throws; unreadable bodies give a `ParseFailure` (see `parseResponse`).
 */
export function classifyRequest(body: unknown, limits: BodyLimits = {}): RequestCall[] | ParseFailure {
  const read = readJsonBody(body, limits);
  if ('parseError' in read) return read;
  const v = read.value;
  try {
    if (Array.isArray(v)) {
      if (v.length === 0) return parseFailure('not-jsonrpc', 'empty batch array');
      return v.map(classifyCall);
    }
    if (isObject(v)) return [classifyCall(v)];
  } catch (err) {
    return parseFailure('not-jsonrpc', `unreadable request: ${errorText(err)}`);
  }
  return parseFailure('not-jsonrpc', 'body is not a JSON-RPC request object or batch');
}

/** One call paired with its reply. `outcome` is null when the reply holds no response with its id. */
export interface MatchedCall {
  request: RequestCall;
  outcome: CallOutcome | null;
}

/** Result of `matchBatch`. */
export interface BatchMatch {
  /** Every call that expects a reply (notifications left out), in request order. */
  calls: MatchedCall[];
  /** Replies whose id matches no call (e.g. a -32700 with id null answering a whole batch). */
  unmatched: CallOutcome[];
  /** How many notifications the request held (they get no reply). */
  notifications: number;
}

const idKey = (id: string | number | null): string => (id === null ? 'null' : `${typeof id}:${String(id)}`);

/**
 * Pairs the calls of a request body with the outcomes of its response body by id, never by
 * position; `1` and `"1"` are different ids; a duplicated id pairs in order. Each reply is
 * interpreted with its call's protocol family (so a DMC-12 -32001 is not read as an A2A error).
 * A single call answered by a single reply with id null (parse/invalid-request errors) is paired.
 *
 * Never throws; returns a `ParseFailure` when either body is unreadable (message says which).
 */
export function matchBatch(requestBody: unknown, responseBody: unknown, limits: BodyLimits = {}): BatchMatch | ParseFailure {
  try {
    return pairCalls(requestBody, responseBody, limits);
  } catch (err) {
    return parseFailure('not-jsonrpc', `unreadable batch: ${errorText(err)}`);
  }
}

function pairCalls(requestBody: unknown, responseBody: unknown, limits: BodyLimits): BatchMatch | ParseFailure {
  const calls = classifyRequest(requestBody, limits);
  if (!Array.isArray(calls)) {
    return parseFailure(calls.parseError.code, `request: ${calls.parseError.message}`);
  }
  const read = readJsonBody(responseBody, limits);
  if ('parseError' in read) {
    return parseFailure(read.parseError.code, `response: ${read.parseError.message}`);
  }
  const responses = (Array.isArray(read.value) ? read.value : [read.value]).filter(isResponseObject);
  if (responses.length === 0) {
    return parseFailure('not-jsonrpc', 'response: no JSON-RPC response objects');
  }

  const expecting = calls.filter((c) => !c.isNotification);
  const waiting = new Map<string, MatchedCall[]>();
  const matched: MatchedCall[] = expecting.map((request) => ({ request, outcome: null }));
  for (const m of matched) {
    const key = idKey(m.request.id);
    const list = waiting.get(key);
    if (list) list.push(m);
    else waiting.set(key, [m]);
  }

  const unmatched: CallOutcome[] = [];
  for (const response of responses) {
    const key = idKey(readId(response));
    let slot = waiting.get(key)?.shift();
    if (!slot && key === 'null' && matched.length === 1 && responses.length === 1) slot = matched[0];
    if (slot && slot.outcome === null) slot.outcome = parseCall(response, slot.request.family ?? undefined);
    else unmatched.push(parseCall(response));
  }
  return { calls: matched, unmatched, notifications: calls.length - expecting.length };
}
