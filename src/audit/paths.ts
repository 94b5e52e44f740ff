import { createHash } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Default database file when neither an option nor `AAP_TRIAGE_DB` names one. */
export const DEFAULT_DB_PATH = './aap-triage.db';

const PG_URL = /^postgres(?:ql)?:\/\//i;

/** Whether `target` names the PostgreSQL store (`postgres://…` or `postgresql://…`); anything else is a SQLite path. */
export function isPostgresUrl(target: string | undefined): target is string {
  return typeof target === 'string' && PG_URL.test(target.trim());
}

/**
 * A PostgreSQL URL as it may be shown (logs, health file, doctor, the TUI title): scheme, user,
 * host, port and database only. The password and every query parameter (`password=`, `sslkey=`
 * and the like) are left out. A URL that does not parse becomes `postgres://(unparsable URL)`.
 */
export function redactPostgresUrl(url: string): string {
  try {
    const u = new URL(url.trim());
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `postgres://${user}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Where a store is, fit for output: the absolute file path, or the PostgreSQL URL without secrets. */
export function storeLabel(target: string): string {
  return isPostgresUrl(target) ? redactPostgresUrl(target) : resolve(target);
}

/**
 * The audit store: the explicit option, else `AAP_TRIAGE_DB`, else `./aap-triage.db`. A SQLite
 * path is resolved against the current directory; a `postgres://` URL is returned as given
 * (it may hold a password: show it only through {@link storeLabel}).
 */
export function resolveDbPath(path: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = path ?? (env['AAP_TRIAGE_DB'] || DEFAULT_DB_PATH);
  return isPostgresUrl(chosen) ? chosen.trim() : resolve(chosen);
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Where the sink writes its health file for `doctor`: `<db path>.health.json`; for PostgreSQL,
 * a file in the OS temp folder named after the redacted URL (one per host, no secret in it).
 */
export function healthFilePath(dbPath: string): string {
  if (isPostgresUrl(dbPath)) return join(tmpdir(), `aap-triage-pg-${digest(redactPostgresUrl(dbPath))}.health.json`);
  return `${resolve(dbPath)}.health.json`;
}

/**
 * Default pseudonym key file: beside the database, `<db path>.key` (never inside it). For
 * PostgreSQL, `~/.aap-triage/pg-<digest>.key`; a fleet on several hosts sets the same
 * `AAP_TRIAGE_KEY` (or key file) everywhere, or pseudonyms would not match between hosts.
 */
export function defaultKeyFilePath(dbPath: string): string {
  if (isPostgresUrl(dbPath)) return join(homedir(), '.aap-triage', `pg-${digest(redactPostgresUrl(dbPath))}.key`);
  return `${resolve(dbPath)}.key`;
}
