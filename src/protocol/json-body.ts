import { errorText } from './extract.js';

/**
 * Turning an untrusted HTTP body into a JSON value without throwing: size cap, strict UTF-8,
 * nesting-depth cap, truncation detection. Everything downstream reads own properties only,
 * so a `"__proto__"` key (which JSON.parse creates as an ordinary own property) is inert.
 */

/** Why a body could not be read as JSON-RPC. Stable strings: callers branch and count on them. */
export type ParseFailureCode =
  | 'empty' // zero bytes / only whitespace
  | 'too-large' // more bytes than `maxBytes`
  | 'invalid-utf8' // bytes that are not well-formed UTF-8
  | 'too-deep' // arrays/objects nested deeper than `maxDepth`
  | 'truncated' // JSON text that ends before its last value is closed
  | 'invalid-json' // any other JSON syntax error
  | 'not-jsonrpc'; // valid JSON, but not a JSON-RPC response (or request) object or batch

/**
 * The value `parseResponse`, `classifyRequest` and `matchBatch` return instead of throwing.
 * Discriminate with `isParseFailure(x)` (or `!Array.isArray(x)`).
 */
export interface ParseFailure {
  ok: false;
  parseError: { code: ParseFailureCode; message: string };
}

/** Limits for reading a body. */
export interface BodyLimits {
  /** Largest body accepted, in bytes (UTF-8). Default 8 MiB. */
  maxBytes?: number;
  /** Deepest array/object nesting accepted (top level = 1). Default 64. */
  maxDepth?: number;
}

/** Default `maxBytes` (8 MiB). */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/** Default `maxDepth`. AAP/DMC-12 bodies nest about 10 deep; 64 leaves room without risk. */
export const DEFAULT_MAX_DEPTH = 64;

/** Type guard for the failure value. */
export function isParseFailure(value: unknown): value is ParseFailure {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { parseError?: unknown }).parseError === 'object'
  );
}

/** Builds a `ParseFailure`. */
export function parseFailure(code: ParseFailureCode, message: string): ParseFailure {
  return { ok: false, parseError: { code, message } };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads `body` (JSON text, Buffer/Uint8Array of UTF-8, or an already-parsed value) into a JSON
 * value within the limits. Never throws. An already-parsed value is only depth-checked.
 */
export function readJsonBody(body: unknown, limits: BodyLimits = {}): { value: unknown } | ParseFailure {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  try {
    if (!(body instanceof Uint8Array) && typeof body !== 'string') {
      return valueDepthOk(body, maxDepth)
        ? { value: body }
        : parseFailure('too-deep', `value nests deeper than ${maxDepth} levels (or is cyclic)`);
    }
    const decoded = decodeBody(body, maxBytes);
    if (typeof decoded !== 'string') return decoded;
    const text = decoded;
    // Parse first: V8's JSON.parse is iterative (a text nested 10 000 deep cannot overflow the
    // stack) and native, and the depth of what it built is one walk over its objects, far
    // cheaper than a scan of every character of a large batch (issue 26). The scan runs only on a
    // failed parse, to say why (empty, truncated, too deep, or another syntax error).
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      return scanJsonText(text, maxDepth) ?? parseFailure('invalid-json', `invalid JSON: ${errorText(err)}`);
    }
    return valueDepthOk(value, maxDepth) ? { value } : parseFailure('too-deep', `JSON nests deeper than ${maxDepth} levels`);
  } catch (err) {
    // Defensive: nothing above should throw, but the contract is "never throws".
    const isText = typeof body === 'string' || body instanceof Uint8Array;
    return parseFailure(isText ? 'invalid-json' : 'not-jsonrpc', `unreadable body: ${errorText(err)}`);
  }
}

/**
 * Text of a body (string, or UTF-8 bytes decoded strictly), without a leading BOM, within
 * `maxBytes` (UTF-8 bytes). Returns a `ParseFailure` (`too-large`, `invalid-utf8`) instead of
 * throwing.
 */
export function decodeBody(body: string | Uint8Array, maxBytes: number = DEFAULT_MAX_BYTES): string | ParseFailure {
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxBytes) {
      return parseFailure('too-large', `body is ${body.byteLength} bytes, over the ${maxBytes}-byte limit`);
    }
    try {
      return utf8.decode(body);
    } catch {
      return parseFailure('invalid-utf8', 'body is not well-formed UTF-8');
    }
  }
  // Each UTF-16 unit is at least one UTF-8 byte, so the length alone can already decide.
  if (body.length > maxBytes || (body.length * 3 > maxBytes && Buffer.byteLength(body, 'utf8') > maxBytes)) {
    return parseFailure('too-large', `body is over the ${maxBytes}-byte limit`);
  }
  return body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
}

/**
 * One pass over JSON text that JSON.parse refused, tracking string state and nesting depth, so
 * that a body cut short is reported as truncated (and a deep one as too deep) rather than as a
 * generic syntax error. Returns null when it finds none of those.
 */
function scanJsonText(text: string, maxDepth: number): ParseFailure | null {
  let depth = 0;
  let inString = false;
  let sawValue = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    switch (c) {
      case 0x22:
        inString = true;
        sawValue = true;
        break;
      case 0x7b /* { */:
      case 0x5b /* [ */:
        sawValue = true;
        if (++depth > maxDepth) return parseFailure('too-deep', `JSON nests deeper than ${maxDepth} levels`);
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        depth--;
        if (depth < 0) return parseFailure('invalid-json', `unbalanced closing bracket at offset ${i}`);
        break;
      case 0x20:
      case 0x0a:
      case 0x0d:
      case 0x09:
        break;
      default:
        sawValue = true;
    }
  }
  if (!sawValue) return parseFailure('empty', 'body is empty');
  if (inString || depth > 0) {
    return parseFailure('truncated', `JSON ends early (${inString ? 'inside a string' : `${depth} unclosed`})`);
  }
  return null;
}

/**
 * Depth check of a value (parsed here, or handed in already parsed); a cycle exceeds any depth.
 * Recursive, at most `maxDepth` frames deep; own enumerable members only (what JSON holds), read
 * without building a list per object; at most 10 000 000 objects visited, so a value that shares
 * objects (or a cycle) is refused rather than walked without end.
 */
function valueDepthOk(root: unknown, maxDepth: number): boolean {
  if (typeof root !== 'object' || root === null) return true;
  const budget = { left: 10_000_000 };
  return nodeDepthOk(root, 1, maxDepth, budget);
}

function nodeDepthOk(node: object, depth: number, maxDepth: number, budget: { left: number }): boolean {
  if (depth > maxDepth || --budget.left < 0) return false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === 'object' && child !== null && !nodeDepthOk(child, depth + 1, maxDepth, budget)) return false;
    }
    return true;
  }
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    const child: unknown = (node as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !nodeDepthOk(child, depth + 1, maxDepth, budget)) return false;
  }
  return true;
}
