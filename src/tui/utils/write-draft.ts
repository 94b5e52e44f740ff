import { isAbsolute, join, resolve } from 'node:path';
import { writeOutFile } from '../../incident/write-out.js';
import type { DraftFormat } from '../types.js';

/** File extension per draft format. */
export const DRAFT_EXTENSIONS: Readonly<Record<DraftFormat, string>> = { text: 'txt', md: 'md', eml: 'eml' };

/** Options of `writeDraft`. */
export interface WriteDraftOptions {
  /** Folder for the default file name. */
  readonly dir: string;
  /** Explicit path (relative to `dir` unless absolute); otherwise a name is made up. */
  readonly path?: string;
  /**
   * What the draft is about, slugged into the default name: the bare storm id
   * (`storm-20261130T0259Z-147dfc4f`, which already says "storm"), an error id, `3-marked-errors`…
   */
  readonly stem: string;
  /** Epoch milliseconds, for the default name. */
  readonly now: number;
}

/**
 * Writes a draft and returns the absolute path. The default name is
 * `incident-<stem>-<YYYYMMDDTHHMMSSZ>.<ext>` (e.g.
 * `incident-storm-20261130T0259Z-147dfc4f-20261130T031500Z.txt`). Written through
 * `writeOutFile` (issue 16): an existing file — default name or explicit path — is never
 * overwritten and a symlink at the final path is never followed (`O_EXCL | O_NOFOLLOW`), so a
 * second `w` in the same second fails with a clear message instead of losing a draft.
 * Mode 0600: a draft is PII-free, but it is still an incident record.
 * @throws Error from `fs` (EEXIST, EACCES, ENOENT) with its message.
 */
export function writeDraft(text: string, format: DraftFormat, opts: WriteDraftOptions): string {
  const ext = DRAFT_EXTENSIONS[format];
  const stamp = new Date(opts.now).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const slug = opts.stem.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'draft';
  const file = opts.path
    ? isAbsolute(opts.path)
      ? opts.path
      : resolve(opts.dir, opts.path)
    : join(resolve(opts.dir), `incident-${slug}-${stamp}.${ext}`);
  writeOutFile(file, text.endsWith('\n') ? text : text + '\n', false);
  return file;
}
