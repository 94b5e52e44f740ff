import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { AuditStoreError } from './errors.js';

let cached: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded on first use (not at import), so a broken native build surfaces as an
 * {@link AuditStoreError} of kind `native-module` instead of failing the host's import.
 */
export function loadDriver(path: string): typeof BetterSqlite3 {
  if (cached) return cached;
  try {
    cached = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    return cached;
  } catch (error) {
    throw new AuditStoreError(
      'native-module',
      path,
      `better-sqlite3 failed to load (${String((error as Error).message).split('\n')[0]}): run npm rebuild better-sqlite3`,
      { cause: error },
    );
  }
}

/**
 * Whether better-sqlite3 loads and opens an in-memory database: null when it does, else the
 * one-line `native-module` message (what failed and `npm rebuild better-sqlite3`). Never throws.
 */
export function nativeModuleProblem(): string | null {
  try {
    const Driver = loadDriver(':memory:');
    new Driver(':memory:').close();
    return null;
  } catch (error) {
    return error instanceof AuditStoreError ? error.message : `better-sqlite3 does not open a database (${String((error as Error).message).split('\n')[0]}): run npm rebuild better-sqlite3`;
  }
}
