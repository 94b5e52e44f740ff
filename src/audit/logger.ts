import { createRequire } from 'node:module';
import type * as PinoModule from 'pino';

/**
 * The logger shape the audit store needs: pino-compatible (`logger.warn({ obj }, 'msg')`).
 * Only paths, counts, codes and SQLite error codes are ever logged: never a record's content.
 */
export interface AuditLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

let fallback: AuditLogger | undefined;

/** Default logger: pino to stderr, synchronous so a line written just before exit is kept. */
export function defaultLogger(): AuditLogger {
  if (!fallback) {
    // Loaded on first use, not at import (issue 13); pino is CommonJS, so `require` is synchronous.
    const { pino } = createRequire(import.meta.url)('pino') as typeof PinoModule;
    fallback = pino({ name: 'aap-triage.audit' }, pino.destination({ dest: 2, sync: true }));
  }
  return fallback;
}
