/**
 * Child-process tests run the package as a host would, from dist/ (through its own name,
 * `aap-triage`, which resolves to this package by self-reference, i.e. to the bundles in
 * dist/lib/). `ensureBuilt()` compiles dist/ and bundles dist/lib/ first when any source file
 * is newer than them.
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

/**
 * Builds dist/ with tsc and bundles dist/lib/ (scripts/bundle-lib.mjs) when either is missing
 * or older than src/. Synchronous; call from beforeAll.
 */
export function ensureBuilt(): void {
  let stale = true;
  try {
    const built = Math.min(statSync(join(ROOT, 'dist', 'instrument', 'register.js')).mtimeMs, statSync(join(ROOT, 'dist', 'lib', 'index.js')).mtimeMs);
    stale = built < newestMtime(join(ROOT, 'src'));
  } catch {
    stale = true;
  }
  if (stale) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'bundle-lib.mjs')], { cwd: ROOT, stdio: 'ignore' });
  }
}
