/** Shared helpers for the audit tests: temp database files, events, a capturing logger. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import type { AuditLogger } from '../../src/audit/logger.js';

/** A fresh temp folder; remove it with the returned cleanup. */
export function tempDir(prefix = 'aap-audit-'): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, db: join(dir, 'audit.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
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
