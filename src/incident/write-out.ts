import { closeSync, constants, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/*
 * Here, not in src/cli, because both front ends write incident drafts out (`aap-triage draft
 * --out`, the TUI's `w`): src/tui may not import src/cli (DESIGN §3), and this module, like the
 * rest of src/incident, imports nothing of ours.
 */

/**
 * Writes `content` to `file` (mode 0600) without ever following a symlink at the final path.
 *
 * Without `force`, the file is created with `O_CREAT | O_EXCL | O_NOFOLLOW`: an existing file, a
 * symlink (dangling or not) or anything else at the path fails with `EEXIST`. With `force`, the
 * content goes to a new temporary file in the same folder, which is then renamed over the path:
 * `rename` replaces a symlink itself, never the file it points to.
 * @throws NodeJS.ErrnoException from `fs` (EEXIST, ENOENT, EACCES, EISDIR…).
 */
export function writeOutFile(file: string, content: string | Buffer, force: boolean): void {
  const target = force ? join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`) : file;
  const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  } catch (error) {
    closeSync(fd);
    if (force) unlinkSync(target);
    throw error;
  }
  closeSync(fd);
  if (!force) return;
  try {
    renameSync(target, file);
  } catch (error) {
    unlinkSync(target);
    throw error;
  }
}
