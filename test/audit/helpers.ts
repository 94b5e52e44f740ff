/** Shared helpers for the audit tests: temp database files, events, a capturing logger. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import type { AuditLogger } from '../../src/audit/logger.js';
import { readHealthRecords, removeHealthRecord } from '../../src/audit/health.js';

/**
 * Removes the health files a writer of a store under `dir` left in the temp folder: a writer that
 * failed keeps its last report, and there when the store's own folder was not writable.
 */
export function removeFallbackHealthFiles(dir: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!/^aap-triage-[0-9a-f]{16}\.health\..*json$/.test(name)) continue;
    const file = join(tmpdir(), name);
    try {
      const { path } = JSON.parse(readFileSync(file, 'utf8')) as { path?: unknown };
      if (typeof path === 'string' && path.startsWith(`${dir}/`)) rmSync(file, { force: true });
    } catch {
      // another run's file, being written
    }
  }
}

/** A fresh temp folder; remove it with the returned cleanup (health files it caused in the temp folder included). */
export function tempDir(prefix = 'aap-audit-'): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, 'audit.db');
  return {
    dir,
    db,
    cleanup: () => {
      removeFallbackHealthFiles(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A well-formed event; `n` makes the error_id (time-ordered hex) and the time unique. */
export function makeEvent(n: number, overrides: Partial<ErrorEvent> = {}): ErrorEvent {
  return {
    error_id: `err_${n.toString(16).padStart(32, '0')}`,
    occurred_at: 1_700_000_000_000 + n,
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: '00f067aa0ba902b7',
    upstream_trace_id: null,
    service: 'dealer-test',
    protocol: 'aap',
    protocol_version: '2.0',
    rpc_method: 'SendMessage',
    skill: 'inventory.search',
    code: 'RATE_LIMITED',
    legacy_error: null,
    jsonrpc_code: -32029,
    http_status: 200,
    retryable: true,
    retry_after_ms: 30_000,
    client: 'client-pseudonym',
    fingerprint: 'fingerprint-pseudonym',
    idempotency: null,
    subject: null,
    attempt: 1,
    retry_flags: [],
    violations: [],
    conformance: [],
    duration_ms: 2.5,
    key_id: 'abcd1234',
    ...overrides,
  };
}

export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

/** A pino-compatible logger that keeps every line. */
export function captureLogger(): AuditLogger & { lines: CapturedLog[] } {
  const lines: CapturedLog[] = [];
  const at = (level: CapturedLog['level']) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Open a plain read-write connection for assertions. */
export function rawDb(path: string, readonly = true): BetterSqlite3.Database {
  return new BetterSqlite3(path, { readonly, fileMustExist: true });
}

export function count(path: string, table: string): number {
  const db = rawDb(path);
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Removes the health reports this process's writers left for `target` (a writer that lost records keeps its last one). */
export function removeOwnHealthRecords(target: string): void {
  for (const record of readHealthRecords(target)) if (record.pid === process.pid) removeHealthRecord(target, record);
}
