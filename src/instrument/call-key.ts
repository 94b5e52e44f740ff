/**
 * The retry tracker's in-memory key of a call (DESIGN §6): a SHA-1 of the canonical call —
 * method, skill and params with object keys sorted, leaving out the A2A `params.message.messageId`
 * (the JSON-RPC id is never part of it). Unkeyed and cheap: it never leaves the process and is
 * never stored; the keyed pseudonym (`Pseudonymizer.fingerprint`, HMAC) is computed only for the
 * audit row of an error. Hashing (rather than keeping the canonical text) keeps request values
 * out of the tracker's long-lived memory and each key at 28 characters.
 */
import { hash } from 'node:crypto';

/** Nodes visited at most per call; past it a marker stands for the rest (cycles, huge bodies). */
const MAX_NODES = 10_000;
/** Nesting depth beyond which the walk stops descending. */
const MAX_DEPTH = 64;

interface Walk {
  out: string;
  nodes: number;
}

function walk(w: Walk, value: unknown, depth: number, inMessage: boolean, atTop: boolean): void {
  if (++w.nodes > MAX_NODES || depth > MAX_DEPTH) {
    w.out += '"\u0000…"';
    return;
  }
  switch (typeof value) {
    case 'string':
      w.out += JSON.stringify(value);
      return;
    case 'number':
      w.out += Number.isFinite(value) ? String(value) : 'null';
      return;
    case 'boolean':
      w.out += value ? 'true' : 'false';
      return;
    case 'object':
      break;
    default:
      w.out += 'null';
      return;
  }
  if (value === null) {
    w.out += 'null';
    return;
  }
  if (Array.isArray(value)) {
    w.out += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) w.out += ',';
      walk(w, value[i], depth + 1, false, false);
    }
    w.out += ']';
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  w.out += '{';
  let first = true;
  for (const key of keys) {
    if (inMessage && key === 'messageId') continue;
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    if (!first) w.out += ',';
    first = false;
    w.out += JSON.stringify(key);
    w.out += ':';
    walk(w, member, depth + 1, atTop && key === 'message', false);
  }
  w.out += '}';
}

/**
 * The tracker key of a call: 28 base64 characters (SHA-1 of method, skill and the canonical
 * params). Never throws for JSON values; an accessor that throws propagates (the caller runs it
 * under its safe-call guard).
 */
export function callKey(method: string, skill: string | null, params: unknown): string {
  const w: Walk = { out: `${method}\u0000${skill ?? ''}\u0000`, nodes: 0 };
  walk(w, params, 0, false, true);
  return hash('sha1', w.out, 'base64');
}

/** The tracker key of an idempotency key (unkeyed hash; the HMAC pseudonym is for audit rows). */
export function idempotencyKey(raw: string): string {
  return hash('sha1', `idempotency\u0000${raw}`, 'base64');
}
