/**
 * PostgreSQL connection settings and SQL translation for the audit store (DESIGN §5, issue #19).
 * Credentials come from the URL or the standard `PG*` variables (PGPASSWORD, PGUSER, PGHOST,
 * ~/.pgpass through libpq's rules as node-postgres applies them); this module never prints them.
 */
import pg from 'pg';
import type { PoolConfig } from 'pg';
import { nodePgConnectionString, redactPostgresUrl } from '../paths.js';

/** OIDs of the types whose text form node-postgres would hand back as strings. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * `bigint` (epoch ms, COUNT, SUM of integers) and `numeric` (SUM of bigint) as JS numbers, as
 * better-sqlite3 returns them. Every value the store holds is well inside 2^53.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** Pool settings for `url`: the URL as libpq reads it, numbers as numbers, short timeouts. */
export function poolConfig(url: string, options: { max?: number; applicationName?: string } = {}): PoolConfig {
  return {
    connectionString: nodePgConnectionString(url),
    max: options.max ?? 4,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 10_000,
    application_name: options.applicationName ?? 'aap-triage',
    types: types as PoolConfig['types'],
  };
}

/**
 * `sql` with each `?` placeholder outside string literals and quoted names numbered `$1…$n`, the
 * form PostgreSQL expects. The store's SQL uses `?` (the portable form, see store.ts).
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else out += ch;
  }
  return out;
}

/**
 * One line about a PostgreSQL error, fit for logs and health output: the SQLSTATE or Node
 * error code and the first line of the message with anything that looks like a URL or a
 * `password=` setting replaced. The server's messages do not carry passwords; this is a belt.
 */
export function describePgError(error: unknown): { code: string; message: string } {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' && e.code !== '' ? e.code : 'ERROR';
  const text = String(e?.message ?? error).split('\n')[0] ?? '';
  return { code, message: scrub(text) };
}

/** Text with PostgreSQL URLs redacted and `password=…` values removed. */
export function scrub(text: string): string {
  return text
    .replace(/postgres(?:ql)?:\/\/[^\s'"]+/gi, (url) => redactPostgresUrl(url))
    .replace(/(password\s*=\s*)[^\s&'"]+/gi, '$1***');
}
