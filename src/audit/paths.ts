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

/** `scheme://authority/path?query`, split by hand so a URL that `new URL` refuses can still be named without its password. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?/i;

/** The parts of a `scheme://…` text, or null when it has no scheme. The password is dropped here. */
function splitUrl(text: string): { scheme: string; user: string; host: string; port: string | null; path: string; query: string } | null {
  const m = URL_PARTS.exec(text.trim());
  if (!m) return null;
  const authority = m[2]!;
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? '' : authority.slice(0, at).split(':')[0]!;
  const hostPort = authority.slice(at + 1);
  // An IPv6 literal keeps its colons inside brackets: the port is what follows `]:`.
  const close = hostPort.indexOf(']');
  const colon = hostPort.startsWith('[') ? (close < 0 ? -1 : hostPort.indexOf(':', close)) : hostPort.lastIndexOf(':');
  return {
    scheme: m[1]!.toLowerCase(),
    user,
    host: colon < 0 ? hostPort : hostPort.slice(0, colon),
    port: colon < 0 ? null : hostPort.slice(colon + 1),
    path: m[3]!,
    query: m[4] ?? '',
  };
}

/**
 * A PostgreSQL URL as it may be shown (logs, health file, doctor, the TUI title): scheme, user,
 * host, port and database only. The password and every query parameter (`password=`, `sslkey=`
 * and the like) are left out, also from a URL that does not parse.
 */
export function redactPostgresUrl(url: string): string {
  // A URL of another scheme (`pg://…`, refused by dbTargetProblem) keeps its own scheme when shown.
  const given = splitUrl(url)?.scheme;
  const scheme = given === undefined || given === 'postgres' || given === 'postgresql' ? 'postgres' : given;
  let user = '';
  let hostPort = '';
  let path = '';
  try {
    const u = new URL(url.trim());
    user = u.username ? decodeURIComponent(u.username) : '';
    hostPort = u.host;
    path = u.pathname;
  } catch {
    const parts = splitUrl(url);
    if (!parts) return 'postgres://(unparsable URL)';
    user = parts.user;
    hostPort = parts.port === null ? parts.host : `${parts.host}:${parts.port}`;
    path = parts.path;
  }
  return `${scheme}://${user ? `${user}@` : ''}${hostPort}${path === '/' ? '' : path}`;
}

/**
 * Query parameters a command line repeats from a PostgreSQL URL: they shape the connection and
 * hold no secret. Without them a hint run as printed would connect otherwise (`sslmode=require`
 * dropped is a connection without TLS).
 */
const CONNECTION_PARAMS = ['sslmode', 'uselibpqcompat'] as const;

/**
 * A PostgreSQL URL to repeat in a command line (a hint's `--db`): {@link redactPostgresUrl}'s form
 * plus the {@link CONNECTION_PARAMS} given, so the command connects as the given URL did. Only for
 * showing: key and health file names derive from {@link redactPostgresUrl}'s form alone.
 */
export function postgresUrlForCommand(url: string): string {
  const shown = redactPostgresUrl(url);
  const query = new URLSearchParams(splitUrl(url)?.query ?? '');
  const kept = new URLSearchParams();
  for (const name of CONNECTION_PARAMS) {
    const value = query.get(name);
    if (value !== null) kept.set(name, value);
  }
  const q = kept.toString();
  return q ? `${shown}?${q}` : shown;
}

/**
 * The `sslmode` values node-postgres understands: libpq's six and its own `no-verify`
 * (https://www.postgresql.org/docs/current/libpq-ssl.html; pg-connection-string).
 */
export const PG_SSLMODES: readonly string[] = Object.freeze(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']);

/**
 * `url` as handed to node-postgres. node-postgres 8 treats `sslmode=prefer`, `require` and
 * `verify-ca` as `verify-full` and prints a nine-line SECURITY WARNING saying so on the user's
 * terminal; here those modes are written as the `verify-full` they are, which connects exactly
 * as before without the warning. With `uselibpqcompat=true` the URL is left alone (libpq's
 * weaker meanings, no warning either). Anything that does not parse is returned as given.
 */
export function nodePgConnectionString(url: string): string {
  const text = url.trim();
  if (!URL.canParse(text)) return text;
  const u = new URL(text);
  const mode = u.searchParams.get('sslmode');
  if (u.searchParams.get('uselibpqcompat') === 'true' || (mode !== 'prefer' && mode !== 'require' && mode !== 'verify-ca')) return text;
  u.searchParams.set('sslmode', 'verify-full');
  return u.toString();
}

/**
 * What is wrong with `target` as an audit store, before anything opens it, or null. One sentence
 * without the password: a URL whose scheme is not `postgres://` or `postgresql://` (`pg://…`
 * would otherwise become a SQLite file named `pg:/…`), a port that is not a number from 1 to
 * 65535, an unknown `sslmode`, or a PostgreSQL URL that does not parse. A plain path is not
 * checked here (see `dbPathProblem`). Never throws.
 */
export function dbTargetProblem(target: string): string | null {
  const parts = splitUrl(target);
  if (!parts) return null;
  const shown = redactPostgresUrl(target);
  if (parts.scheme !== 'postgres' && parts.scheme !== 'postgresql') {
    return `${shown}: the scheme ${parts.scheme}:// is not a PostgreSQL URL (use postgres:// or postgresql://; a SQLite store is a file path)`;
  }
  if (parts.port !== null && parts.port !== '' && (!/^\d{1,5}$/.test(parts.port) || Number(parts.port) < 1 || Number(parts.port) > 65535)) {
    return `${shown}: the port '${parts.port}' is not a number from 1 to 65535`;
  }
  const sslmode = new URLSearchParams(parts.query).get('sslmode');
  if (sslmode !== null && !PG_SSLMODES.includes(sslmode)) {
    return `${shown}: sslmode '${sslmode}' is unknown (use one of ${PG_SSLMODES.join(', ')})`;
  }
  if (!URL.canParse(target.trim())) return `${shown} is not a valid PostgreSQL URL (postgres://user@host:port/database)`;
  return null;
}

/** Where a store is, fit for output: the absolute file path, or the URL (PostgreSQL or mistyped) without secrets. */
export function storeLabel(target: string): string {
  return isPostgresUrl(target) || splitUrl(target) !== null ? redactPostgresUrl(target) : resolve(target);
}

/**
 * The audit store: the explicit option, else `AAP_TRIAGE_DB`, else `./aap-triage.db`. A SQLite
 * path is resolved against the current directory; a `postgres://` URL (or any other
 * `scheme://…`, which {@link dbTargetProblem} then refuses) is returned as given (it may hold a
 * password: show it only through {@link storeLabel}).
 */
export function resolveDbPath(path: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = path ?? (env['AAP_TRIAGE_DB'] || DEFAULT_DB_PATH);
  // Any `scheme://…` stays as given (`pg://…` is a mistyped URL, not a file `pg:/…`): see dbTargetProblem.
  return isPostgresUrl(chosen) || splitUrl(chosen) !== null ? chosen.trim() : resolve(chosen);
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
