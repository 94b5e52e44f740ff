// Benchmark runner: `npm run bench` lists the scenarios; `npm run bench -- <name> [args…]`
// builds the project and runs one. Each scenario is one file, `bench/<name>.bench.mjs`, whose
// header says what it measures and its arguments; figures are recorded in docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const scenarios = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .map((f) => ({ name: f.slice(0, -'.bench.mjs'.length), file: f }));

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.log('Scenarios (npm run bench -- <name> [args…]):');
  for (const s of scenarios) {
    const firstLine = readFileSync(dir + s.file, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('// '))
      ?.slice(3);
    console.log(`  ${s.name.padEnd(20)} ${firstLine}`);
  }
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
process.exit(run.status ?? 1);
