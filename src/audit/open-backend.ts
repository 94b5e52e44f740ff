/** {@link openBackend}: the one place that tells a PostgreSQL URL from a SQLite file path. */
import type { AuditBackend } from './backend.js';
import { isPostgresUrl } from './paths.js';
import { pgBackend } from './pg/backend.js';
import { sqliteBackend } from './sqlite/backend.js';

/**
 * The audit store at `target`: a `postgres://` / `postgresql://` URL is the PostgreSQL store
 * (credentials from the URL or the standard `PG*` variables), anything else a SQLite file path.
 * Opens nothing: each method opens what it needs (and the PostgreSQL client is loaded only then).
 */
export function openBackend(target: string): AuditBackend {
  return isPostgresUrl(target) ? pgBackend(target) : sqliteBackend(target);
}
