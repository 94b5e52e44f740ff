import { statSync } from 'node:fs';

/**
 * Why `path` cannot be an audit database before anything opens it, or null. Today: it is a
 * directory (`--db /tmp`), which SQLite would otherwise report as a baffling
 * `SQLITE_IOERR_READ: disk I/O error`. A missing or unreadable path is left to the audit reader,
 * whose own errors say what to do. Shared by the CLI and the TUI so both say the same line.
 * Never throws.
 * @returns `{ what, how }`, printed as `aap-triage: <what> — <how>` (exit 3).
 */
export function dbPathProblem(path: string): { readonly what: string; readonly how: string } | null {
  let isDirectory = false;
  try {
    isDirectory = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return null; // EACCES on a parent folder and the like: the reader reports it
  }
  return isDirectory ? { what: `${path} is a directory, not an audit database`, how: 'pass the .db file' } : null;
}
