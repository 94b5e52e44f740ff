/**
 * The health file `doctor` reads (issue #4 "Writer"): `<db path>.health.json`, or, when that
 * folder is not writable (the usual reason the store failed), a file in the OS temp folder
 * named after the database path. Holds counters, state and a one-line reason: never a record.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { healthFilePath } from './paths.js';
import type { AuditHealth } from './sink.js';

/** What the health file holds. */
export interface AuditHealthFile extends AuditHealth {
  /** Absolute database path. */
  path: string;
  /** `service` option of the sink that wrote the file (null when not set). */
  service: string | null;
  /** Process id of the writer. */
  pid: number;
  /** When the file was written, epoch milliseconds. */
  updatedAt: number;
}

/** The fallback location, used when the database's folder cannot be written. */
export function fallbackHealthFilePath(dbPath: string): string {
  const digest = createHash('sha256').update(resolve(dbPath)).digest('hex').slice(0, 16);
  return join(tmpdir(), `aap-triage-${digest}.health.json`);
}

function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

/** Write the health file; returns where it went, or null if neither place was writable. */
export function writeHealthFile(health: AuditHealthFile): string | null {
  const text = `${JSON.stringify(health, null, 2)}\n`;
  for (const file of [healthFilePath(health.path), fallbackHealthFilePath(health.path)]) {
    try {
      writeAtomically(file, text);
      return file;
    } catch {
      // try the next place
    }
  }
  return null;
}

function parse(file: string): AuditHealthFile | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as AuditHealthFile;
    return value && typeof value === 'object' && typeof value.state === 'string' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The latest health report of the audit writer(s) of `dbPath` (`<db>.health.json` or its
 * temp-folder fallback, whichever is newer), or null when no writer has reported. Never throws.
 * With several writer processes the file holds the last one's report (`pid` says which).
 */
export function readHealth(dbPath: string): AuditHealthFile | null {
  const found = [parse(healthFilePath(dbPath)), parse(fallbackHealthFilePath(dbPath))].filter(
    (h): h is AuditHealthFile => h !== null,
  );
  found.sort((a, b) => b.updatedAt - a.updatedAt);
  return found[0] ?? null;
}
