import { RETRY_FLAGS } from '../protocol/error-event.js';
import { ISSUE_KEY_LENGTH, ISSUE_KEY_MIN_PREFIX, isIssueKeyPrefix } from '../audit/issue-key.js';
import { parseTimeSpec, type TimeSpec } from './time.js';

/**
 * The triage query language (issue 5 "Query language"):
 *
 *   code:RATE_LIMITED skill:lead.submit retryable:true protocol:dmc12 since:1h attempt:>2
 *   flag:retried_non_retryable trace:<id> client:<raw, pseudonym or its first ≥ 6 characters>
 *   subject:<email or phone> issue:<issue key or its first ≥ 6 hex digits>
 *
 * - `field:value`; several values as `field:A,B` (any of them); `-field:value` excludes.
 * - A bare word matches code, skill or JSON-RPC method (case-insensitive substring).
 * - Values may be quoted, in double or single quotes alike (`skill:"lead.submit"`,
 *   `code:'RATE_LIMITED'`, `"RATE LIMITED"`): a shell user writes single quotes inside double.
 * - `origin:probe` lists the calls of `aap-triage probe`, `origin:any` every call; without it a
 *   query sees buyer calls only (docs/probe.md).
 * - `since:`/`until:` take a duration (`15m`, `24h`, `7d`) or an RFC 3339 time and override
 *   the command's window.
 *
 * Parsing is pure: text in, `Query` out, or a `QuerySyntaxError` naming the bad token.
 */

/** The fields a term may name. Aliases resolve to these (see FIELD_ALIASES). */
export type QueryField =
  | 'text'
  | 'code'
  | 'skill'
  | 'method'
  | 'protocol'
  | 'service'
  | 'retryable'
  | 'attempt'
  | 'flag'
  | 'trace'
  | 'client'
  | 'subject'
  | 'idempotency'
  | 'fingerprint'
  | 'id'
  | 'http'
  | 'jsonrpc'
  | 'issue'
  | 'origin';

/** Comparison for numeric fields (`attempt:>2`). */
export type QueryOp = '=' | '>' | '>=' | '<' | '<=';

/** One condition of a query. */
export interface QueryTerm {
  field: QueryField;
  /** True for `-field:value`: rows matching any value are excluded. */
  negate: boolean;
  /** Values, any of which matches (`code:A,B`). Normalised (codes upper-cased, flags checked). */
  values: string[];
  /** Numeric comparison; `=` unless written `>2`, `>=2`, `<3`, `<=3`. */
  op: QueryOp;
  /** The token as written, for error messages. */
  token: string;
}

/** A parsed query: terms are ANDed. */
export interface Query {
  terms: QueryTerm[];
  since?: TimeSpec;
  until?: TimeSpec;
  /** The text the query was parsed from. */
  source: string;
}

/** Thrown by `parseQuery` for a query it cannot read; `token` is the offending token. */
export class QuerySyntaxError extends Error {
  override readonly name = 'QuerySyntaxError';
  constructor(
    readonly token: string,
    readonly reason: string,
  ) {
    super(`bad query token '${token}': ${reason}`);
  }
}

/** Field names and their aliases as typed by users. */
export const FIELD_ALIASES: Readonly<Record<string, QueryField>> = Object.freeze({
  code: 'code',
  skill: 'skill',
  tool: 'skill',
  method: 'method',
  protocol: 'protocol',
  proto: 'protocol',
  service: 'service',
  retryable: 'retryable',
  attempt: 'attempt',
  flag: 'flag',
  flags: 'flag',
  trace: 'trace',
  client: 'client',
  subject: 'subject',
  idempotency: 'idempotency',
  fingerprint: 'fingerprint',
  id: 'id',
  error_id: 'id',
  http: 'http',
  jsonrpc: 'jsonrpc',
  issue: 'issue',
  origin: 'origin',
});

/**
 * Values of `origin:`: `probe` — calls of `aap-triage probe`; `buyer` — every other call; `any`
 * — both. Without an `origin:` term (or `--include-probe`) views show buyer calls only.
 */
export const ORIGINS = ['probe', 'buyer', 'any'] as const;

const PROTOCOLS = ['aap', 'a2a', 'dmc12', 'jsonrpc'];
const MAX_VALUES = 100;

/**
 * Splits on whitespace outside quotes; quotes are removed. Single quotes mean what double ones
 * do (`code:'RATE_LIMITED'`, as a shell user writes inside double quotes), but only where a value
 * starts (at the start of a word or right after `field:`) and when a closing one follows;
 * elsewhere a `'` is a plain character (`it's`, `' OR 1=1`). Inside one kind the other is plain.
 */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const chars = [...text];
  let cur = '';
  let raw = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (quote === null && /\s/.test(ch)) {
      if (started) tokens.push(cur);
      cur = '';
      raw = '';
      started = false;
      continue;
    }
    const valueStart = !started || raw.endsWith(':');
    raw += ch;
    started = true;
    if (quote === null && (ch === '"' || (ch === "'" && valueStart && chars.indexOf("'", i + 1) !== -1))) quote = ch;
    else if (ch === quote) quote = null;
    else cur += ch;
  }
  if (quote !== null) throw new QuerySyntaxError(raw, `unterminated ${quote === '"' ? 'double' : 'single'} quote`);
  if (started) tokens.push(cur);
  return tokens;
}

function splitValues(raw: string, token: string): string[] {
  const values = raw.split(',').map((v) => v.trim());
  if (values.length === 0 || values.some((v) => v === '')) throw new QuerySyntaxError(token, 'empty value');
  if (values.length > MAX_VALUES) throw new QuerySyntaxError(token, `more than ${MAX_VALUES} values`);
  return values;
}

function normaliseValues(field: QueryField, values: string[], token: string): { values: string[]; op: QueryOp } {
  switch (field) {
    case 'code':
      return { values: values.map((v) => v.toUpperCase()), op: '=' };
    case 'protocol': {
      const out = values.map((v) => v.toLowerCase());
      const bad = out.find((v) => !PROTOCOLS.includes(v));
      if (bad !== undefined) throw new QuerySyntaxError(token, `protocol must be one of ${PROTOCOLS.join(', ')}`);
      return { values: out, op: '=' };
    }
    case 'retryable': {
      const out = values.map((v) => {
        const l = v.toLowerCase();
        if (l === 'true' || l === 'yes' || l === '1') return 'true';
        if (l === 'false' || l === 'no' || l === '0') return 'false';
        if (l === 'unknown' || l === 'null') return 'unknown';
        throw new QuerySyntaxError(token, 'retryable must be true, false or unknown');
      });
      return { values: out, op: '=' };
    }
    case 'flag': {
      const out = values.map((v) => v.toLowerCase());
      const bad = out.find((v) => v !== 'any' && !(RETRY_FLAGS as readonly string[]).includes(v));
      if (bad !== undefined) throw new QuerySyntaxError(token, `flag must be any or one of ${RETRY_FLAGS.join(', ')}`);
      return { values: out, op: '=' };
    }
    case 'origin': {
      const out = values.map((v) => v.toLowerCase());
      if (out.some((v) => !(ORIGINS as readonly string[]).includes(v))) throw new QuerySyntaxError(token, `origin must be one of ${ORIGINS.join(', ')}`);
      return { values: out, op: '=' };
    }
    case 'issue': {
      const out = values.map((v) => v.toLowerCase());
      if (out.some((v) => !isIssueKeyPrefix(v))) {
        throw new QuerySyntaxError(token, `issue takes an issue key (${ISSUE_KEY_LENGTH} hex digits) or its first ${ISSUE_KEY_MIN_PREFIX} or more`);
      }
      return { values: out, op: '=' };
    }
    case 'attempt':
    case 'http':
    case 'jsonrpc': {
      const first = values[0] ?? '';
      const m = /^(>=|<=|>|<|=)?(-?\d{1,15})$/.exec(first);
      if (values.length === 1 && m) return { values: [m[2] ?? ''], op: (m[1] ?? '=') as QueryOp };
      if (values.every((v) => /^-?\d{1,15}$/.test(v))) return { values, op: '=' };
      throw new QuerySyntaxError(token, `${field} takes an integer, a list of integers, or >n, >=n, <n, <=n`);
    }
    default:
      return { values, op: '=' };
  }
}

/**
 * Parses query text (or the words of a command line, joined by spaces) into a `Query`.
 * An empty text is a query that matches everything. Throws `QuerySyntaxError` naming the
 * first bad token: an unknown field, an empty value, a bad duration, a bad enum value.
 */
export function parseQuery(text: string): Query {
  const query: Query = { terms: [], source: text };
  for (const token of tokenize(text)) {
    let body = token;
    let negate = false;
    if (body.startsWith('-') && body.length > 1 && !/^-\d/.test(body)) {
      negate = true;
      body = body.slice(1);
    }
    if (body.startsWith('-') && !/^-\d/.test(body)) {
      throw new QuerySyntaxError(token, 'not an option of this command nor a query term (to exclude, write -field:value)');
    }
    const colon = body.indexOf(':');
    if (colon <= 0) {
      if (body === '') throw new QuerySyntaxError(token, 'empty word');
      query.terms.push({ field: 'text', negate, values: [body], op: '=', token });
      continue;
    }
    const name = body.slice(0, colon).toLowerCase();
    const raw = body.slice(colon + 1);
    if (name === 'since' || name === 'until') {
      if (negate) throw new QuerySyntaxError(token, `${name}: cannot be negated`);
      const spec = parseTimeSpec(raw);
      if (!spec) throw new QuerySyntaxError(token, 'expected a duration like 15m, 24h, 7d or an RFC 3339 time');
      query[name] = spec;
      continue;
    }
    const field = Object.hasOwn(FIELD_ALIASES, name) ? FIELD_ALIASES[name] : undefined;
    if (field === undefined) {
      throw new QuerySyntaxError(token, `unknown field '${name}' (fields: ${Object.keys(FIELD_ALIASES).join(', ')}, since, until)`);
    }
    const { values, op } = normaliseValues(field, splitValues(raw, token), token);
    query.terms.push({ field, negate, values, op, token });
  }
  return query;
}
