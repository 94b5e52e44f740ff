/**
 * Small readers over untrusted parsed JSON. They read own properties only (never the prototype
 * chain) and coerce nothing loosely: the string "false" is false, anything unrecognised is null.
 */
import type { Violation } from './error-event.js';

/** A plain JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/**
 * The http(s) URIs named in a text, without trailing sentence punctuation. One reading for the
 * -32008 builder and the `a2a.extension-required-same-uri` rule, so what one builds the other accepts.
 */
export function urisIn(text: string): string[] {
  return (text.match(/https?:\/\/[^\s"'<>]+/g) ?? []).map((u) => u.replace(/[.,;:)]+$/, ''));
}

/** `value` is a non-null, non-array object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own property `key` of `obj`, or undefined (also when `obj` is not an object). */
export function own(obj: unknown, key: string): unknown {
  return isObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Own property as a string, or null. */
export function ownString(obj: unknown, key: string): string | null {
  const v = own(obj, key);
  return typeof v === 'string' ? v : null;
}

/** Own property as an object, or null. */
export function ownObject(obj: unknown, key: string): JsonObject | null {
  const v = own(obj, key);
  return isObject(v) ? v : null;
}

/**
 * A wire `retryable` read strictly: `true`/`false`, or the ErrorInfo string forms `"true"`/`"false"`
 * (exact, lower case). Anything else, including a missing value, is null: never defaulted.
 */
export function readRetryable(value: unknown): boolean | null {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return null;
}

function nonNegativeNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  // ErrorInfo metadata is map<string,string>, so a hint may arrive as "30000".
  if (typeof value === 'string' && /^\d{1,15}(\.\d{1,6})?$/.test(value)) return Number(value);
  return null;
}

/**
 * The retry hint in milliseconds from a details-like object: `retry_after_ms`, else
 * `retry_after_seconds` × 1000 (spec/aap-errors.txt "Per-code semantics: RATE_LIMITED").
 * Accepts non-negative finite numbers or decimal strings; returns null when there is none.
 */
export function retryAfterMs(details: unknown): number | null {
  const ms = nonNegativeNumber(own(details, 'retry_after_ms'));
  if (ms !== null) return Math.round(ms);
  const s = nonNegativeNumber(own(details, 'retry_after_seconds'));
  return s !== null ? Math.round(s * 1000) : null;
}

/**
 * `{location, keyword}` pairs from a `details.errors[]` array (JSON Schema 2020-12 output units:
 * `instanceLocation`, `keyword`). Entries without a string location are skipped; a missing
 * keyword reads as `unknown`. Locations are raw; the audit layer sanitises them.
 */
export function violationsFromErrors(errors: unknown, max = 1000): Violation[] {
  if (!Array.isArray(errors)) return [];
  const out: Violation[] = [];
  for (const e of errors.slice(0, max)) {
    const location = ownString(e, 'instanceLocation') ?? ownString(e, 'location') ?? ownString(e, 'field');
    if (location === null) continue;
    out.push({ location, keyword: ownString(e, 'keyword') ?? 'unknown' });
  }
  return out;
}

/**
 * `{location, keyword}` pairs from a google.rpc.BadRequest `fieldViolations[]`. The keyword is the
 * `description` prefix before `:` when it looks like a JSON Schema keyword (`type: must be…`).
 */
export function violationsFromBadRequest(fieldViolations: unknown, max = 1000): Violation[] {
  if (!Array.isArray(fieldViolations)) return [];
  const out: Violation[] = [];
  for (const v of fieldViolations.slice(0, max)) {
    const location = ownString(v, 'field');
    if (location === null) continue;
    const m = /^([A-Za-z$][A-Za-z0-9$]{0,40}):/.exec(ownString(v, 'description') ?? '');
    out.push({ location, keyword: m?.[1] ?? 'unknown' });
  }
  return out;
}

/** A thrown value as text, without ever throwing itself (`throw null`, hostile `toString`). */
export function errorText(err: unknown): string {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'unprintable error';
  }
}
