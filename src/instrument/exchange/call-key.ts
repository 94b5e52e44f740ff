/**
 * The retry tracker's in-memory key of a call (DESIGN §6): a 53-bit hash of the client and the
 * canonical call — method, skill and params with object keys in sorted order, leaving out the
 * A2A `params.message.messageId` (the JSON-RPC id is never part of it). Unkeyed in the sense that
 * matters: it never leaves the process and is never stored; the keyed pseudonym
 * (`Pseudonymizer.fingerprint`, HMAC) is computed only for the audit row of an error. Hashing
 * keeps request values out of the tracker's long-lived memory; a number (not a hex string, as
 * before) is a map key that needs no text built, concatenated or hashed again per call.
 *
 * Why not SHA-1 of the canonical text (as before): building the text (a JSON.stringify per
 * string, concatenation, flattening) and hashing it was the largest single cost of a successful
 * call (~25 000 instructions of ~2 M, bench/a2a-dealer.callgrind.mjs). This walk feeds the
 * values straight into two 32-bit multiply–xor lanes seeded per process, so a collision cannot
 * be prepared offline; an accidental one among the tracker's 50 000 keys has odds of about 1e-7.
 */
import { randomBytes } from 'node:crypto';

/** Nodes visited at most per call; past it a marker stands for the rest (cycles, huge bodies). */
const MAX_NODES = 10_000;
/** Nesting depth beyond which the walk stops descending. */
const MAX_DEPTH = 64;

const SEED = randomBytes(8);
const SEED_A = SEED.readUInt32LE(0);
const SEED_B = SEED.readUInt32LE(4);
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** Value tags: every value is framed by its kind, strings also by their length. */
const T_NULL = 1;
const T_FALSE = 2;
const T_TRUE = 3;
const T_NUMBER = 4;
const T_STRING = 5;
const T_ARRAY = 6;
const T_OBJECT = 7;
const T_END = 8;
const T_CUT = 9;
/** Key domains: a call's canonical form, an idempotency key. */
const D_CALL = 0xca11;
const D_IDEMPOTENCY = 0x1de4;

class Hasher {
  a = SEED_A;
  b = SEED_B;
  nodes = 0;

  word(w: number): void {
    this.a = Math.imul(this.a ^ w, 0x9e3779b1);
    this.b = Math.imul((this.b ^ w) + 0x7f4a7c15, 0x85ebca77);
  }

  str(s: string): void {
    this.word(T_STRING);
    this.word(s.length);
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x9e3779b1);
      b = Math.imul((b ^ c) + 0x7f4a7c15, 0x85ebca77);
    }
    this.a = a;
    this.b = b;
  }

  /** Both lanes finalised (murmur3's fmix32): 32 + 21 bits, a safe integer. */
  digest(): number {
    return fmix(this.a ^ this.b) * 0x200000 + (fmix(this.b + Math.imul(this.a, 0x27d4eb2f)) >>> 11);
  }

  /** Starts a key in `domain` for `client` (null: no credential), of a whole-batch failure of `batchOf` calls (0: not one). */
  scope(domain: number, client: string | null, batchOf: number): void {
    this.word(domain);
    this.word(batchOf);
    if (client === null) this.word(T_NULL);
    else this.str(client);
  }
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function walk(h: Hasher, value: unknown, depth: number, inMessage: boolean, atTop: boolean): void {
  if (++h.nodes > MAX_NODES || depth > MAX_DEPTH) {
    h.word(T_CUT);
    return;
  }
  switch (typeof value) {
    case 'string':
      h.str(value);
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        h.word(T_NULL); // as JSON writes it
        return;
      }
      F64[0] = value === 0 ? 0 : value; // -0 is 0, as in JSON
      h.word(T_NUMBER);
      h.word(U32[0] as number);
      h.word(U32[1] as number);
      return;
    case 'boolean':
      h.word(value ? T_TRUE : T_FALSE);
      return;
    case 'object':
      break;
    default:
      h.word(T_NULL);
      return;
  }
  if (value === null) {
    h.word(T_NULL);
    return;
  }
  if (Array.isArray(value)) {
    h.word(T_ARRAY);
    for (let i = 0; i < value.length; i++) walk(h, value[i], depth + 1, false, false);
    h.word(T_END);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Most bodies come with their keys in one order already: sort only when they are not.
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      keys.sort();
      break;
    }
  }
  h.word(T_OBJECT);
  for (const key of keys) {
    if (inMessage && key === 'messageId') continue;
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    h.str(key);
    walk(h, member, depth + 1, atTop && key === 'message', false);
  }
  h.word(T_END);
}

/**
 * The tracker key of a call: a non-negative safe integer, a hash of `client` (the caller's
 * pseudonym, null without one), `batchOf` (the size of a batch that failed as a whole, else 0),
 * method, skill and the canonical params, seeded per process. Never throws for JSON values; an
 * accessor that throws propagates (the caller runs it under its safe-call guard).
 */
export function callKey(method: string, skill: string | null, params: unknown, client: string | null = null, batchOf = 0): number {
  const h = new Hasher();
  h.scope(D_CALL, client, batchOf);
  h.str(method);
  if (skill === null) h.word(T_NULL);
  else h.str(skill);
  walk(h, params, 0, false, true);
  return h.digest();
}

/**
 * The tracker key of an idempotency key (for `client`, `batchOf` as in {@link callKey}), in a
 * domain of its own (the HMAC pseudonym is for audit rows).
 */
export function idempotencyKey(raw: string, client: string | null = null, batchOf = 0): number {
  const h = new Hasher();
  h.scope(D_IDEMPOTENCY, client, batchOf);
  h.str(raw);
  return h.digest();
}
