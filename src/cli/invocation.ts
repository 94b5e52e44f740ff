/**
 * How this process was started, as the hints print it (issue 28 "Hints that work"): every
 * printed command must run where the user stands. `aap-triage` is not published on the npm
 * registry, so `npx aap-triage` would fetch whatever someone publishes under that name; hints
 * name `aap-triage` only when that name on PATH is this very script (an install from the
 * checkout or its tarball), else `node <absolute path of the script>`, which runs from any folder.
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * `value` as one POSIX shell word: bare when it holds only characters no shell treats
 * specially, else in single quotes (a `'` inside becomes `'\''`). For command lines in hints.
 */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The command name the package's `bin` installs. */
export const BIN_NAME = 'aap-triage';

const real = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The invocation of the script `script` (`process.argv[1]`), for hints: `aap-triage` when the
 * `aap-triage` found first on `PATH` (from `env`) is that script, or when `script` is not a path
 * (an in-process caller named it so); else `node '<absolute real path>'`. Never throws.
 */
export function invocationOf(script: string | undefined, env: NodeJS.ProcessEnv): string {
  if (!script || !isAbsolute(script)) return BIN_NAME;
  const self = real(script);
  if (self === null) return BIN_NAME;
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, BIN_NAME);
    if (!existsSync(candidate)) continue;
    // The first one on PATH is what the shell runs: it is either this script or another install.
    return real(candidate) === self ? BIN_NAME : `node ${shellWord(self)}`;
  }
  return `node ${shellWord(self)}`;
}
