// Benchmark runner: `npm run bench` lists the scenarios; `npm run bench -- <name> [args…]` (or
// `npm run bench:<name> -- [args…]`) builds the project and runs one. Each scenario is one file,
// `bench/<name>.bench.mjs` (timed) or `bench/<name>.callgrind.mjs` (instruction counts, listed as
// `<name>-callgrind`), whose header says what it measures and its arguments; the method and the
// current figures are in docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const KINDS = [
  { suffix: '.bench.mjs', name: (base) => base },
  { suffix: '.callgrind.mjs', name: (base) => `${base}-callgrind` },
];
const scenarios = readdirSync(dir)
  .sort()
  .flatMap((f) => KINDS.filter((k) => f.endsWith(k.suffix)).map((k) => ({ name: k.name(f.slice(0, -k.suffix.length)), file: f })));

/** The first sentence of a file's header comment, at most 110 characters. */
function summary(text) {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('// '));
  const head = [];
  for (let i = first; i >= 0 && i < lines.length && lines[i].startsWith('// '); i++) head.push(lines[i].slice(3).trim());
  const joined = head.join(' ');
  const end = /\.(\s|$)/.exec(joined);
  const sentence = end ? joined.slice(0, end.index) : joined;
  return sentence.length > 110 ? `${sentence.slice(0, 109)}…` : sentence;
}

const [name, ...args] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  console.log('Scenarios (npm run bench:<name> -- [args…], or npm run bench -- <name> [args…]; --help after the name for its arguments):');
  for (const s of scenarios) console.log(`  ${s.name.padEnd(21)} ${summary(readFileSync(dir + s.file, 'utf8'))}`);
  process.exit(0);
}
const scenario = scenarios.find((s) => s.name === name);
if (!scenario) {
  console.error(`bench: no scenario "${name}" — run \`npm run bench\` for the list`);
  process.exit(2);
}
const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, [dir + scenario.file, ...args], { stdio: 'inherit' });
process.exit(run.status ?? (run.signal ? 1 : 0));
