import { PSEUDONYM_BYTES } from '../audit/index.js';
import { ISSUE_KEY_LENGTH } from '../audit/issue-key.js';
import type { Query, QueryTerm } from './query.js';
import { QuerySyntaxError } from './query.js';
import { resolveTimeSpec, type TimeWindow } from './time.js';

/**
 * Compiles a parsed `Query` to a parameterised SQL condition over `error_events`. Values only
 * ever travel as bound parameters; the SQL text is built from fixed fragments chosen by field.
 */

/** What the compiler needs to turn raw `client:`/`subject:`/`idempotency:` values into pseudonyms. */
export interface QueryPseudonymizer {
  client(raw: string): string | null;
  subject(emailOrPhone: string): string | null;
  idempotency(raw: string): string | null;
}

/** Inputs of `compileQuery`. */
export interface CompileContext {
  /** Reference time for `since:`/`until:` durations, epoch ms. */
  now: number;
  /** The window the command asked for; `since:`/`until:` in the query override it. */
  window: TimeWindow;
  /** The current key's pseudonymiser, or null when no key is available. */
  pseudonymizer: QueryPseudonymizer | null;
  /**
   * Include the calls of `aap-triage probe` (`--include-probe`). Default false: without an
   * `origin:` term the condition keeps buyer calls only (`origin IS NULL`; docs/probe.md).
   */
  includeProbe?: boolean;
}

/** The condition that keeps buyer calls only: rows without an origin (no `aap-triage probe` calls). */
export const BUYER_CALLS_SQL = 'origin IS NULL';

/** A compiled query: `where` uses `?` placeholders bound, in order, to `params`. */
export interface CompiledQuery {
  where: string;
  params: (string | number)[];
  /** The effective window (command window overridden by the query's since:/until:). */
  window: TimeWindow;
  /**
   * `where` without the buyer-calls condition ({@link BUYER_CALLS_SQL}) when it was added, else
   * null: a count can then be the rows of any origin less the probe's, each an index-only
   * count, rather than a check of `origin` in every matching row (issue 31).
   */
  anyOrigin: string | null;
}

/** Length of a stored pseudonym: PSEUDONYM_BYTES of HMAC output, base64url without padding. */
const PSEUDONYM_LENGTH = Math.ceil((PSEUDONYM_BYTES * 4) / 3);

/**
 * Whether a `client:`/`subject:`/`idempotency:` value already looks like a pseudonym: exactly
 * the shape the audit layer stores (16 bytes of HMAC as 22 base64url characters). An email
 * (`@`) or a phone (`+`, spaces, 10–15 digits) never has that shape. How a value is used:
 * - with a key available, it is matched both as written and as its pseudonym under the current
 *   key, so an API key that happens to have the same shape is still found;
 * - without a key, a value of the pseudonym shape is used as it is, anything else is an error
 *   (it would silently match nothing).
 */
export function looksLikePseudonym(value: string): boolean {
  return value.length === PSEUDONYM_LENGTH && /^[A-Za-z0-9_-]+$/.test(value);
}

/**
 * Whether a raw value looks like a customer's email or phone, the shapes `looksLikePseudonym`
 * rules out: an email is `local@domain.tld` (no spaces); a phone is an optional `+` or `00`,
 * then 10–15 digits, with spaces, dots, dashes or parentheses between them. API keys and other
 * credentials (letters mixed with digits, no `@`) are neither. Used by `aap-triage hash` to pick
 * the role of a value when `--as` is not given.
 */
export function looksLikeSubject(value: string): boolean {
  const v = value.trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) return true;
  if (!/^\+?[\d\s().-]+$/.test(v)) return false;
  const digits = v.replace(/\D/g, '').length;
  return digits >= 10 && digits <= 15;
}

const EQ_COLUMN: Partial<Record<QueryTerm['field'], string>> = {
  code: 'code',
  skill: 'skill',
  method: 'rpc_method',
  protocol: 'protocol',
  service: 'service',
  fingerprint: 'fingerprint',
  id: 'error_id',
};
const NUM_COLUMN: Partial<Record<QueryTerm['field'], string>> = {
  attempt: 'attempt',
  http: 'http_status',
  jsonrpc: 'jsonrpc_code',
};
const PSEUDO_COLUMN = { client: 'client', subject: 'subject', idempotency: 'idempotency' } as const;

/** Shortest pseudonym prefix `client:` accepts as a prefix (the views display 8). */
export const CLIENT_PREFIX_MIN = 6;
/**
 * Longest one: 12. An API key is longer, so without a key `client:<api key>` is still refused
 * rather than read as a prefix that matches nothing.
 */
export const CLIENT_PREFIX_MAX = 12;

/** Whether a value may be a displayed prefix of a pseudonym: 6–12 base64url characters. */
export function looksLikePseudonymPrefix(value: string): boolean {
  return value.length >= CLIENT_PREFIX_MIN && value.length <= CLIENT_PREFIX_MAX && /^[A-Za-z0-9_-]+$/.test(value);
}

/** `column` starts with one of `prefixes`, as index-friendly ranges (`~` sorts after every base64url and hex character). */
function prefixSql(column: string, prefixes: readonly string[]): { sql: string; params: string[] } {
  return {
    sql: prefixes.map(() => `(${column} >= ? AND ${column} < ?)`).join(' OR '),
    params: prefixes.flatMap((p) => [p, `${p}~`]),
  };
}

/** Conditions ORed: one as it is, several in parentheses. */
const anyOf = (parts: readonly string[]): string => (parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`);

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(',');
const likeEscape = (v: string): string => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function pseudonymValues(term: QueryTerm, field: keyof typeof PSEUDO_COLUMN, ctx: CompileContext): string[] {
  const out = new Set<string>();
  for (const v of term.values) {
    if (field === 'client' && looksLikePseudonymPrefix(v) && !ctx.pseudonymizer) {
      continue; // matched as a prefix by the caller
    }
    if (ctx.pseudonymizer) {
      out.add(v);
      const p = ctx.pseudonymizer[field](v);
      if (p !== null) out.add(p);
    } else if (looksLikePseudonym(v)) {
      out.add(v);
    } else {
      throw new QuerySyntaxError(
        term.token,
        `${field}: with a raw value needs the pseudonymisation key (set AAP_TRIAGE_KEY or --key-file), or give the pseudonym (aap-triage hash)`,
      );
    }
  }
  return [...out];
}

/** The positive condition of one term (negation is applied by the caller). */
function termSql(term: QueryTerm, ctx: CompileContext): { sql: string; params: (string | number)[]; nullable: string | null } {
  const eq = EQ_COLUMN[term.field];
  if (eq) return { sql: `${eq} IN (${placeholders(term.values.length)})`, params: term.values, nullable: eq };
  const num = NUM_COLUMN[term.field];
  if (num) {
    if (term.op !== '=') return { sql: `${num} ${term.op} ?`, params: [Number(term.values[0])], nullable: num };
    return { sql: `${num} IN (${placeholders(term.values.length)})`, params: term.values.map(Number), nullable: num };
  }
  switch (term.field) {
    case 'text': {
      // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
      const v = likeEscape((term.values[0] ?? '').toLowerCase());
      return {
        sql: `(lower(code) LIKE ? ESCAPE '\\' OR lower(COALESCE(skill, '')) LIKE ? ESCAPE '\\' OR lower(rpc_method) LIKE ? ESCAPE '\\')`,
        params: [v, v, v],
        nullable: null,
      };
    }
    case 'retryable': {
      const parts: string[] = [];
      if (term.values.includes('true')) parts.push('retryable = 1');
      if (term.values.includes('false')) parts.push('retryable = 0');
      if (term.values.includes('unknown')) parts.push('retryable IS NULL');
      return { sql: `(${parts.join(' OR ')})`, params: [], nullable: null };
    }
    case 'flag': {
      if (term.values.includes('any')) return { sql: `retry_flags <> '[]'`, params: [], nullable: null };
      // Flags are a closed set of identifiers stored as a JSON array of strings, so the quoted
      // name is an exact element match.
      return {
        sql: `(${term.values.map(() => "retry_flags LIKE ? ESCAPE '\\'").join(' OR ')})`,
        params: term.values.map((v) => likeEscape(JSON.stringify(v))),
        nullable: null,
      };
    }
    case 'trace': {
      const p = placeholders(term.values.length);
      return {
        sql: `(trace_id IN (${p}) OR upstream_trace_id IN (${p}))`,
        params: [...term.values, ...term.values],
        nullable: null,
      };
    }
    case 'client': {
      // A value of 6–21 base64url characters is also the start of a pseudonym, as the views show it.
      const values = pseudonymValues(term, 'client', ctx);
      const prefix = prefixSql('client', term.values.filter(looksLikePseudonymPrefix));
      const parts = [...(values.length ? [`client IN (${placeholders(values.length)})`] : []), ...(prefix.sql ? [prefix.sql] : [])];
      return { sql: anyOf(parts), params: [...values, ...prefix.params], nullable: 'client' };
    }
    case 'subject': {
      const values = pseudonymValues(term, 'subject', ctx);
      const p = placeholders(values.length);
      // COALESCE: a row without a subject is kept by `-subject:x`, as other excluded values keep NULLs.
      return { sql: `(COALESCE(subject, '') IN (${p}) OR COALESCE(subject_alt, '') IN (${p}))`, params: [...values, ...values], nullable: null };
    }
    case 'idempotency': {
      const values = pseudonymValues(term, term.field, ctx);
      return { sql: `${PSEUDO_COLUMN[term.field]} IN (${placeholders(values.length)})`, params: values, nullable: PSEUDO_COLUMN[term.field] };
    }
    case 'origin': {
      const parts: string[] = [];
      if (term.values.includes('any')) parts.push('1 = 1');
      if (term.values.includes('probe')) parts.push("origin = 'probe'");
      if (term.values.includes('buyer')) parts.push(BUYER_CALLS_SQL);
      return { sql: `(${parts.join(' OR ')})`, params: [], nullable: null };
    }
    case 'issue': {
      const full = term.values.filter((v) => v.length === ISSUE_KEY_LENGTH);
      const prefix = prefixSql('issue_key', term.values.filter((v) => v.length < ISSUE_KEY_LENGTH));
      const parts = [...(full.length ? [`issue_key IN (${placeholders(full.length)})`] : []), ...(prefix.sql ? [prefix.sql] : [])];
      return { sql: anyOf(parts), params: [...full, ...prefix.params], nullable: 'issue_key' };
    }
    default:
      throw new QuerySyntaxError(term.token, 'unsupported field');
  }
}

/**
 * Compiles `query` to a condition including the time window (`occurred_at >= ? AND
 * occurred_at < ?`). Throws `QuerySyntaxError` when a `client:`/`subject:` raw value cannot be
 * pseudonymised (no key). Pure: no database access.
 */
export function compileQuery(query: Query, ctx: CompileContext): CompiledQuery {
  const window: TimeWindow = {
    since: query.since ? resolveTimeSpec(query.since, ctx.now) : ctx.window.since,
    until: query.until ? resolveTimeSpec(query.until, ctx.now) : ctx.window.until,
  };
  const where: string[] = ['occurred_at >= ?', 'occurred_at < ?'];
  const params: (string | number)[] = [window.since, window.until];
  for (const term of query.terms) {
    const t = termSql(term, ctx);
    if (!term.negate) where.push(t.sql);
    // An excluded value keeps rows where the column is NULL (`-skill:x` keeps rows with no skill).
    else where.push(t.nullable ? `(${t.nullable} IS NULL OR NOT ${t.sql})` : `NOT ${t.sql}`);
    params.push(...t.params);
  }
  const anyOrigin = where.join(' AND ');
  if (ctx.includeProbe || query.terms.some((t) => t.field === 'origin')) return { where: anyOrigin, params, window, anyOrigin: null };
  return { where: `${anyOrigin} AND ${BUYER_CALLS_SQL}`, params, window, anyOrigin };
}
