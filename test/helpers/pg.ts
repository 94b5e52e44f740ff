/**
 * A PostgreSQL database of its own for one test file: created on the local server
 * (127.0.0.1:5432, trust authentication; override with AAP_TEST_PG_URL) and dropped at the end,
 * so test runs never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server's maintenance database, from which test databases are created. */
export const PG_ADMIN_URL = process.env['AAP_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database: its URL and a `drop()` that removes it (connections are closed first). */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** Creates `aap_test_<random>` on the server of {@link PG_ADMIN_URL}. */
export async function createTestDatabase(prefix = 'aap_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
