/**
 * vitest globalSetup: the test run leaves nothing in the temp folder or the home folder (issue 31
 * "Leftovers"). Before any test file runs, TMPDIR and HOME point at two empty folders of this
 * run (`$TMPDIR/aapt-…`, `$TMPDIR/aaph-…`) (every worker inherits them; `os.tmpdir()` and `os.homedir()` read them), so the check
 * sees only what this run made, whatever other processes do in the real /tmp meanwhile. At the
 * end, anything left in either folder is listed and fails the run (exit 1); the folders are
 * removed either way, so a failed run does not leave them behind either.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Entries under `dir`, as paths relative to `label`, one level deep (a folder is one entry). */
function entries(dir: string, label: string): string[] {
  try {
    return readdirSync(dir).map((name) => `${label}/${name}`);
  } catch {
    return [];
  }
}

export default function setup(): () => void {
  const realHome = homedir();
  // Short names: a test that shows a path in a 120-column terminal (the TUI's "written: <path>")
  // must not find it cut because the temp folder got longer.
  const tmp = mkdtempSync(join(tmpdir(), 'aapt-'));
  const home = mkdtempSync(join(tmpdir(), 'aaph-'));
  // Like /tmp: others (initdb runs as the postgres user) may make their own folders in it.
  chmodSync(tmp, 0o1777);
  const saved = { TMPDIR: process.env['TMPDIR'], HOME: process.env['HOME'] };
  // npm (run by a few tests) keeps its cache and logs under HOME: keep them where they were.
  process.env['npm_config_cache'] ??= join(realHome, '.npm');
  process.env['TMPDIR'] = tmp;
  process.env['HOME'] = home;
  return () => {
    const left = [...entries(tmp, '$TMPDIR'), ...entries(home, '~')];
    for (const dir of [tmp, home]) rmSync(dir, { recursive: true, force: true });
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    if (left.length > 0) {
      process.stderr.write(`\nThe test run left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} behind (now removed): ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}\n`);
      process.exitCode = 1;
    }
  };
}
