/**
 * Child-process tests run the package as a host would, from dist/ (through its own name,
 * `aap-triage`, which resolves to this package by self-reference, i.e. to the bundles in
 * dist/lib/). `ensureBuilt()` compiles dist/ and bundles dist/lib/ first when any source file
 * is newer than them (scripts/build-if-stale.mjs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Builds dist/ (`npm run build`: tsc, then the bundles) when it is missing or older than its
 * sources — the same check `npm start` makes (scripts/build-if-stale.mjs). Synchronous; call
 * from beforeAll.
 */
export function ensureBuilt(): void {
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'ignore' });
}
