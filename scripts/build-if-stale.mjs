// `npm start` runs this before the demo: it builds only when dist/ is missing or older than what
// it is built from, so `npm ci && npm start` builds once (npm ci's `prepare` already did) instead
// of twice (issue 31 "First run"). Stale = a file under src/ or scripts/, package.json or a
// tsconfig is newer than dist/.build-stamp, which `npm run build` writes last.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.build-stamp');

/** Newest modification time (ms) under `path` (a file or a folder), 0 when absent. */
function newest(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const sources = Math.max(...['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) => newest(join(root, p))));
const built = newest(STAMP);
if (built === 0 || sources > built) {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
