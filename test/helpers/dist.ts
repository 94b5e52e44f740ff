/**
 * Child-process tests run the package as a host would, from dist/ (through its own name,
 * `aap-triage`, which resolves to this package by self-reference). `ensureBuilt()` compiles
 * dist/ first when any source file is newer than it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    newest = Math.max(newest, f.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ with tsc when it is missing or older than src/. Synchronous; call from beforeAll. */
export function ensureBuilt(): void {
  let stale = true;
  try {
    stale = statSync(join(ROOT, 'dist', 'instrument', 'register.js')).mtimeMs < newestMtime(join(ROOT, 'src'));
  } catch {
    stale = true;
  }
  if (stale) spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
}
