import { resolve } from 'node:path';

/** Default database file when neither an option nor `AAP_TRIAGE_DB` names one. */
export const DEFAULT_DB_PATH = './aap-triage.db';

/**
 * The audit database path: the explicit option, else `AAP_TRIAGE_DB`, else `./aap-triage.db`,
 * resolved against the current directory. (A `postgres://` URL is not a SQLite path; the
 * PostgreSQL store is a separate backend, DESIGN §5.)
 */
export function resolveDbPath(path: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = path ?? (env['AAP_TRIAGE_DB'] || DEFAULT_DB_PATH);
  return resolve(chosen);
}

/** Where the sink writes its health file for `doctor`: `<db path>.health.json`. */
export function healthFilePath(dbPath: string): string {
  return `${resolve(dbPath)}.health.json`;
}

/** Default pseudonym key file: beside the database, `<db path>.key` (never inside it). */
export function defaultKeyFilePath(dbPath: string): string {
  return `${resolve(dbPath)}.key`;
}
