/**
 * The PostgreSQL side of {@link AuditReader} (issue #19): a small pool, read-only transactions
 * by default (`default_transaction_read_only`), the schema version checked at open.
 */
import pg from 'pg';
import { AuditStoreError } from '../errors.js';
import { postgresUrlForCommand, redactPostgresUrl } from '../paths.js';
import { UPGRADE_HINT } from '../reader.js';
import type { AuditReader, SqlValue } from '../backend.js';
import { PG_SCHEMA_VERSION, readPgVersion } from './schema.js';
import { describePgError, numberPlaceholders, poolConfig } from './sql.js';

/** SQLSTATE / Node codes meaning "the server is not there or refused us". */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', '57P03', '3D000', '28P01', '28000']);

/** An {@link AuditStoreError} for a failure to open or check the store at `label` (already redacted). */
export function classifyPgError(error: unknown, label: string): AuditStoreError {
  if (error instanceof AuditStoreError) return error;
  const { code, message } = describePgError(error);
  if (code === 'AAP_SCHEMA_TOO_NEW') return new AuditStoreError('schema-too-new', label, `${label} was written by a newer aap-triage (${message}): upgrade aap-triage`, { cause: error });
  if (code === 'AAP_NOT_AUDIT_DB') return new AuditStoreError('not-an-audit-db', label, `${label} is not an aap-triage audit store (${message}): check --db / AAP_TRIAGE_DB`, { cause: error });
  const how =
    code === 'ERR_INVALID_URL'
      ? 'check the URL: postgres://user@host:port/database'
      : /\bssl\b/i.test(message)
        ? 'check sslmode in the URL against what the server supports'
        : UNREACHABLE.has(code) || message === 'Connection terminated unexpectedly' || /timeout/i.test(message)
          ? 'check that the server runs and the URL, PGHOST/PGPORT/PGUSER/PGPASSWORD or ~/.pgpass are right'
          : 'check the role\'s rights on the database';
  return new AuditStoreError('unreadable', label, `cannot read ${label} (${code}: ${message}): ${how}`, { cause: error });
}

/** A reader's pool for `url`: `max` connections (default 2), each in read-only transactions. */
export function readerPool(url: string, max = 2): pg.Pool {
  return new pg.Pool({ ...poolConfig(url, { max, applicationName: 'aap-triage-reader' }), options: '-c default_transaction_read_only=on' });
}

/**
 * Open the PostgreSQL audit store at `url` for reading and check its schema version.
 * @throws {AuditStoreError} `missing` (no audit schema yet), `unreadable`, `not-an-audit-db`,
 *   `schema-too-old`, `schema-too-new`; messages carry the URL without its password.
 */
export async function openPgReader(url: string): Promise<AuditReader> {
  const label = redactPostgresUrl(url);
  const pool = readerPool(url);
  // An idle client whose server went away emits 'error' on the pool; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      const version = await readPgVersion(client);
      if (version === 0) {
        // Quoted when it keeps query parameters (`?`, `&` are the shell's).
        const db = postgresUrlForCommand(url);
        const env = db.includes('?') ? `AAP_TRIAGE_DB='${db}'` : `AAP_TRIAGE_DB=${db}`;
        throw new AuditStoreError('missing', label, `no audit store at ${label}: start an instrumented server with ${env} (it creates the tables) or run \`aap-triage doctor --migrate\``);
      }
      if (version < 0) throw new AuditStoreError('not-an-audit-db', label, `${label} is not an aap-triage audit store (tables but no schema version): check --db / AAP_TRIAGE_DB`);
      if (version > PG_SCHEMA_VERSION) throw new AuditStoreError('schema-too-new', label, `${label} has schema version ${version}, newer than this aap-triage's ${PG_SCHEMA_VERSION}: upgrade aap-triage`);
      if (version < PG_SCHEMA_VERSION) throw new AuditStoreError('schema-too-old', label, `${label} has schema version ${version}, older than this aap-triage's ${PG_SCHEMA_VERSION}: ${UPGRADE_HINT}`);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw classifyPgError(error, label);
  }
  return pgReader(pool, label);
}

/**
 * Distinct statement texts one reader prepares on the server at most; later texts run unnamed.
 * The store's SQL comes in a few dozen shapes (parameters are placeholders), so the cap is only
 * a bound on server memory for a reader that lives long.
 */
export const MAX_PREPARED_STATEMENTS = 256;

/**
 * An {@link AuditReader} over a pool. Statements with parameters run as named prepared
 * statements (one name per distinct text, prepared once per connection): the triage functions
 * ask the same few shapes over and over. PostgreSQL plans the first five runs of each for their
 * values, then keeps a generic plan where it costs less (an aggregate over a day, a trace over
 * every partition) and goes on planning per call where pruning to the statement's days wins (a
 * lookup near a time). It re-plans a prepared statement itself after DDL (a partition created or
 * dropped); a "cached plan must not change result type" error (a column added by a migration
 * while the reader was open) drops the name and runs the text unnamed.
 */
export function pgReader(pool: pg.Pool, label: string): AuditReader {
  let closed: Promise<void> | null = null;
  const names = new Map<string, string | null>();
  const query = async (client: pg.PoolClient, text: string, values: SqlValue[]) => {
    let name = names.get(text);
    if (name === undefined && values.length > 0 && names.size < MAX_PREPARED_STATEMENTS) names.set(text, (name = `aap_r${names.size}`));
    if (!name) return client.query(text, values);
    try {
      return await client.query({ name, text, values });
    } catch (error) {
      if ((error as { code?: unknown }).code !== '0A000') throw error;
      names.set(text, null);
      return client.query(text, values);
    }
  };
  const run = async (sql: string, params: readonly SqlValue[]) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      return await query(client, numberPlaceholders(sql), params as SqlValue[]);
    } catch (error) {
      // A statement's own error leaves the connection usable; anything else drops it.
      if (!(error instanceof pg.DatabaseError) || error.severity === 'FATAL' || error.severity === 'PANIC') broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  };
  return {
    dialect: 'postgres',
    location: label,
    async all<T>(sql: string, params: readonly SqlValue[] = []) {
      return (await run(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params: readonly SqlValue[] = []) {
      return (await run(sql, params)).rows[0] as T | undefined;
    },
    close() {
      closed ??= pool.end().catch(() => undefined);
      return closed;
    },
  };
}
