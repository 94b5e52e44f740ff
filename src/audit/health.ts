/**
 * The health files `doctor` reads (issue #4 "Writer", issue #17 "doctor"): one per writing
 * service and process, `<db path>.health.<service>.<pid>.json`, or, when that folder is not
 * writable (the usual reason the store failed), a file in the OS temp folder named after the
 * database path, service and pid. Several services and processes write one store; each keeps its
 * own record, so `doctor` shows every one by name. Holds counters, state and a one-line reason:
 * never a record. (Writers before issue #17 wrote one `<db path>.health.json`; it is still read.)
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { healthFilePath, isPostgresUrl, redactPostgresUrl } from './paths.js';
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

/** What names a store in file names: the absolute path, or the PostgreSQL URL without its password. */
const storeKey = (dbPath: string): string => (isPostgresUrl(dbPath) ? redactPostgresUrl(dbPath) : resolve(dbPath));
const fallbackPrefix = (dbPath: string): string => `aap-triage-${createHash('sha256').update(storeKey(dbPath)).digest('hex').slice(0, 16)}`;

/** A service name as it appears in a file name: `[A-Za-z0-9._-]`, at most 64, `unnamed` for none. */
export function serviceFileName(service: string | null): string {
  const s = (service ?? '').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return s === '' ? 'unnamed' : s;
}

/** `.health.<service>.<pid>.json`: the suffix of one writer's files. */
const writerSuffix = (service: string | null, pid: number): string => `.health.${serviceFileName(service)}.${pid}.json`;

/** Where one writer (service, pid) writes its health: beside the database. */
export function writerHealthFilePath(dbPath: string, service: string | null, pid: number): string {
  // A PostgreSQL store has no folder: its writers report in the temp folder of their host.
  if (isPostgresUrl(dbPath)) return fallbackHealthFilePath(dbPath, service, pid);
  return `${resolve(dbPath)}${writerSuffix(service, pid)}`;
}

/** The fallback location, used when the database's folder cannot be written; without `service`, the pre-#17 name. */
export function fallbackHealthFilePath(dbPath: string, service?: string | null, pid?: number): string {
  if (service === undefined || pid === undefined) return join(tmpdir(), `${fallbackPrefix(dbPath)}.health.json`);
  return join(tmpdir(), `${fallbackPrefix(dbPath)}${writerSuffix(service, pid)}`);
}

/**
 * Removes one writer's health files, beside the database and in the temp folder: a writer that
 * shut down cleanly leaves nothing behind, and `doctor` clears a gone writer's record after
 * showing it once. Never throws.
 */
export function removeWriterHealthFiles(dbPath: string, service: string | null, pid: number): void {
  for (const file of [writerHealthFilePath(dbPath, service, pid), fallbackHealthFilePath(dbPath, service, pid)]) {
    try {
      rmSync(file, { force: true });
    } catch {
      // a folder we cannot write: nothing of ours is there
    }
  }
}

function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

/** Write the health file; returns where it went, or null if neither place was writable. */
export function writeHealthFile(health: AuditHealthFile): string | null {
  const text = `${JSON.stringify(health, null, 2)}\n`;
  for (const file of [writerHealthFilePath(health.path, health.service, health.pid), fallbackHealthFilePath(health.path, health.service, health.pid)]) {
    try {
      writeAtomically(file, text);
      return file;
    } catch {
      // try the next place
    }
  }
  return null;
}

async function writeAtomicallyAsync(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, file);
}

/**
 * {@link writeHealthFile} off the caller's thread (libuv's pool): a rename on a busy disk can
 * take tens of milliseconds to seconds, which must never stall the host's event loop (issue 14:
 * measured 11 ms per request of `renameSync` under an all-error load on a saturated disk).
 * Resolves to where it went, or null; never rejects.
 */
export async function writeHealthFileAsync(health: AuditHealthFile): Promise<string | null> {
  const text = `${JSON.stringify(health, null, 2)}\n`;
  for (const file of [writerHealthFilePath(health.path, health.service, health.pid), fallbackHealthFilePath(health.path, health.service, health.pid)]) {
    try {
      await writeAtomicallyAsync(file, text);
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

/** Files in `folder` whose names start with `prefix` and end with `.json`; [] when the folder cannot be read. */
function filesStartingWith(folder: string, prefix: string): string[] {
  try {
    return readdirSync(folder)
      .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
      .map((f) => join(folder, f));
  } catch {
    return [];
  }
}

/**
 * Every writer's latest health report for `dbPath`: one per (service, pid), from the files
 * beside the database and in the temp folder (the newer of the two when both exist), newest
 * first. [] when no writer has reported. Never throws.
 */
export function readHealthRecords(dbPath: string): AuditHealthFile[] {
  const db = storeKey(dbPath);
  const files = [
    ...(isPostgresUrl(db) ? [] : filesStartingWith(dirname(db), `${basename(db)}.health.`)),
    ...filesStartingWith(tmpdir(), `${fallbackPrefix(db)}.health.`),
  ];
  const latest = new Map<string, AuditHealthFile>();
  for (const file of new Set([...files, healthFilePath(db), fallbackHealthFilePath(db)])) {
    const h = parse(file);
    if (!h) continue;
    const id = `${h.service ?? ''}\u0000${h.pid}`;
    const seen = latest.get(id);
    if (!seen || h.updatedAt > seen.updatedAt) latest.set(id, h);
  }
  return [...latest.values()].sort((a, b) => b.updatedAt - a.updatedAt);
}

/** The newest of {@link readHealthRecords}, or null when no writer has reported. Never throws. */
export function readHealth(dbPath: string): AuditHealthFile | null {
  return readHealthRecords(dbPath)[0] ?? null;
}

/**
 * Removes what `readHealthRecords(dbPath)` read for one writer: its own files, and a pre-#17
 * `<db>.health.json` that holds the same process. For `doctor`, once the writer is gone and its
 * last report has been shown. Never throws.
 */
export function removeHealthRecord(dbPath: string, record: Pick<AuditHealthFile, 'service' | 'pid'>): void {
  const db = storeKey(dbPath);
  removeWriterHealthFiles(db, record.service, record.pid);
  for (const file of [healthFilePath(db), fallbackHealthFilePath(db)]) {
    if (parse(file)?.pid !== record.pid) continue;
    try {
      rmSync(file, { force: true });
    } catch {
      // not ours to remove
    }
  }
}
