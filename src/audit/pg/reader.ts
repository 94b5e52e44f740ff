/**
 * The PostgreSQL side of {@link AuditReader} (issue #19): a small pool, read-only transactions
 * by default (`default_transaction_read_only`), the schema version checked at open.
 */
import pg from 'pg';
import { AuditStoreError } from '../errors.js';
import { redactPostgresUrl } from '../paths.js';
import { UPGRADE_HINT } from '../reader.js';
import type { AuditReader, ReadOptions, SqlValue } from '../backend.js';
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

/**
 * Open the PostgreSQL audit store at `url` for reading and check its schema version.
 * @throws {AuditStoreError} `missing` (no audit schema yet), `unreadable`, `not-an-audit-db`,
 *   `schema-too-old`, `schema-too-new`; messages carry the URL without its password.
 */
export async function openPgReader(url: string): Promise<AuditReader> {
  const label = redactPostgresUrl(url);
  const pool = new pg.Pool({ ...poolConfig(url, { max: 2, applicationName: 'aap-triage-reader' }), options: '-c default_transaction_read_only=on' });
  // An idle client whose server went away emits 'error' on the pool; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      const version = await readPgVersion(client);
      if (version === 0) throw new AuditStoreError('missing', label, `no audit store at ${label}: start an instrumented server with AAP_TRIAGE_DB=${label} (it creates the tables) or run \`aap-triage doctor --migrate\``);
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

/** Runs of one key-lookup text on one connection before it is read under a generic plan (ReadOptions). */
export const GENERIC_AFTER = 5;

/**
 * An {@link AuditReader} over a pool. Statements with parameters run as named prepared
 * statements (one name per distinct text, prepared once per connection): planning a query over
 * the day partitions costs more than running it (~2 ms against ~0.4 ms per `listIssues`
 * per-issue lookup on 30 partitions, bench/pg-store.bench.mjs), and the triage functions ask the
 * same few shapes over and over. PostgreSQL re-plans a prepared statement itself after DDL (a
 * partition created or dropped); a "cached plan must not change result type" error (a column
 * added by a migration while the reader was open) drops the name and runs the text unnamed.
 * Key lookups ({@link ReadOptions}) run under `plan_cache_mode = force_generic_plan` once their
 * text has run {@link GENERIC_AFTER} times on the connection.
 */
export function pgReader(pool: pg.Pool, label: string): AuditReader {
  let closed: Promise<void> | null = null;
  const names = new Map<string, string | null>();
  // Connections whose plan_cache_mode is force_generic_plan, and how often each ran each text.
  // A key lookup goes generic only once its text has run GENERIC_AFTER times on the connection:
  // a generic plan is built over every partition (~10 ms at 31 days, far more at a year), which
  // only pays off when the connection runs it again and again (the TUI, a bench), never for one
  // `aap-triage show`. PostgreSQL's own rule is the same count, but it compares costs that count
  // every partition, so it would never switch by itself.
  const generic = new WeakSet<pg.PoolClient>();
  const runs = new WeakMap<pg.PoolClient, Map<string, number>>();
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
  const run = async (sql: string, params: readonly SqlValue[], options: ReadOptions | undefined) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const text = numberPlaceholders(sql);
      let want = false;
      // Only key lookups are counted, and only prepared ones go generic (an unnamed statement
      // would build a generic plan on every call).
      if (options?.keyLookup === true) {
        let counts = runs.get(client);
        if (!counts) runs.set(client, (counts = new Map()));
        const n = (counts.get(text) ?? 0) + 1;
        if (counts.size < MAX_PREPARED_STATEMENTS || counts.has(text)) counts.set(text, n);
        want = n > GENERIC_AFTER && typeof names.get(text) === 'string';
      }
      if (generic.has(client) !== want) {
        // RESET, not SET auto: back to whatever the server, database or role says.
        await client.query(want ? 'SET plan_cache_mode = force_generic_plan' : 'RESET plan_cache_mode');
        if (want) generic.add(client);
        else generic.delete(client);
      }
      return await query(client, text, params as SqlValue[]);
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
    async all<T>(sql: string, params: readonly SqlValue[] = [], options?: ReadOptions) {
      return (await run(sql, params, options)).rows as T[];
    },
    async get<T>(sql: string, params: readonly SqlValue[] = [], options?: ReadOptions) {
      return (await run(sql, params, options)).rows[0] as T | undefined;
    },
    close() {
      closed ??= pool.end().catch(() => undefined);
      return closed;
    },
  };
}
