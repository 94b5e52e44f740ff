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
