// The runnable dealer examples (issue 18): each of examples/aap-dealer-express and
// examples/dmc12-dealer-http is started as its README says (`npm start` in its folder), every
// curl of its README is run as written (only the port changed) and must get the documented
// status and body, and after a clean stop the README's `aap-triage search` / `show` must print
// the documented lines.
//
// The example runs from a temp copy of its folder whose node_modules links `aap-triage` to this
// checkout (what `"aap-triage": "file:../.."` installs) and its other dependencies to this
// checkout's node_modules, so the test needs no registry; it imports dist/ (npm test builds it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dashboards/prometheus.js';
import { jsonDifferences, missingLines, parseReadme, type CurlCase } from './readme-cases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'bin', 'aap-triage.js');

interface Example {
  dir: string;
  /** Port the README's curls use (replaced by a free one). */
  port: number;
  /** The line the server prints on stderr once it listens. */
  ready: RegExp;
  /** Lines the server itself writes on stderr during the documented run, besides `ready`. */
  stderr: RegExp[];
}

const EXAMPLES: Example[] = [
  {
    dir: 'aap-dealer-express', port: 8080, ready: /^AAP dealer agent on http:\/\/127\.0\.0\.1:\d+\/a2a .*$/m,
    // @a2a-js/sdk 1.3 writes its own error for the version it refuses (README case 5).
    stderr: [/^Unhandled error in JSON-RPC POST handler: VersionNotSupportedError/m],
  },
  { dir: 'dmc12-dealer-http', port: 8081, ready: /^DMC-12 dealer agent on http:\/\/127\.0\.0\.1:\d+\/rpc$/m, stderr: [] },
];

/** Copies the example's own files to a temp folder and links its dependencies as npm would. */
function prepare(ex: Example): string {
  const src = join(ROOT, 'examples', ex.dir);
  const dir = mkdtempSync(join(tmpdir(), `aap-triage-${ex.dir}-`));
  for (const f of ['package.json', 'server.js', 'README.md']) copyFileSync(join(src, f), join(dir, f));
  const pkg = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const [name, spec] of Object.entries(pkg.dependencies)) {
    const target = name === 'aap-triage' ? ROOT : join(ROOT, 'node_modules', name);
    if (name === 'aap-triage') expect(spec).toBe('file:../..');
    if (!existsSync(target)) throw new Error(`${target} is missing: run npm ci in the repository root`);
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  }
  return dir;
}

/** Output of a finished shell command. */
function sh(command: string, cwd: string): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

describe.each(EXAMPLES)('examples/$dir', (ex) => {
  const readme = readFileSync(join(ROOT, 'examples', ex.dir, 'README.md'), 'utf8');
  const { curls, commands } = parseReadme(readme);
  let dir = '';
  let port = 0;
  let server: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';
  let exited: Promise<number | null> = Promise.resolve(null);
  const answers = new Map<number, string>();

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'instrument', 'index.js'))) throw new Error('dist/ is not built: run `npm run build` first (npm test does)');
    dir = prepare(ex);
    port = await freePort();
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe('node server.js');
    // The README's defaults, whatever this shell exports: audit db ./aap-triage.db, no exporters.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
    for (const k of Object.keys(env)) if (k === 'AAP_TRIAGE_DB' || k === 'AAP_TRIAGE_KEY' || k.startsWith('OTEL_')) delete env[k];
    server = spawn(process.execPath, ['server.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    server.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    exited = new Promise((resolve) => server?.once('exit', (code) => resolve(code)));
    const until = Date.now() + 15_000;
    while (!ex.ready.test(stderr)) {
      if (server.exitCode !== null || Date.now() > until) throw new Error(`example did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 30_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGKILL');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('documents a success and one request per kind of error, each with its answer', () => {
    expect(curls.length).toBeGreaterThanOrEqual(5);
    expect(curls[0]?.status).toBe('HTTP/1.1 200 OK');
    expect(JSON.stringify(curls[0]?.body)).not.toContain('"error"');
    expect(commands.map((c) => c.command.split(' ').slice(0, 2).join(' '))).toEqual(['./node_modules/.bin/aap-triage search', './node_modules/.bin/aap-triage show']);
  });

  it.each(curls.map((c) => [c.n, c] as [number, CurlCase]))('answers curl %i as documented', (_n, c) => {
    const run = sh(c.command.replaceAll(`127.0.0.1:${ex.port}`, `127.0.0.1:${port}`), dir);
    expect(run.status, run.stderr).toBe(0);
    const [head, ...body] = run.stdout.split('\r\n\r\n');
    expect(head?.split('\r\n')[0]).toBe(c.status);
    const answer = body.join('\r\n\r\n');
    answers.set(c.n, answer);
    expect(jsonDifferences(JSON.parse(answer) as unknown, c.body)).toEqual([]);
  });

  it('logs one JSON line per error answer on stderr, nothing on stdout, and nothing unexpected', async () => {
    const errors = curls.filter((c) => c.status !== 'HTTP/1.1 200 OK' || JSON.stringify(c.body).includes('"error'));
    const deadline = Date.now() + 5_000;
    const isErrorLine = (l: string): boolean => l.startsWith('{') && l.includes('"msg":"json-rpc error sent"');
    const logged = (): string[] => stderr.split('\n').filter(isErrorLine);
    while (logged().length < errors.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(logged()).toHaveLength(errors.length);
    expect(stdout).toBe('');
    let rest = stderr
      .split('\n')
      .filter((l) => !isErrorLine(l))
      .join('\n')
      .replace(ex.ready, '');
    for (const re of ex.stderr) {
      expect(stderr).toMatch(re);
      // The SDK's line is followed by its stack and the error's fields, up to the closing brace.
      rest = rest.replace(new RegExp(`${re.source}[\\s\\S]*?\\n\\}\\n`, 'm'), '');
    }
    expect(rest.trim()).toBe('');
  });

  it('stops cleanly on SIGTERM, flushing the audit store', async () => {
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'aap-triage.db'))).toBe(true);
  });

  it('prints what the README shows for aap-triage search and show', () => {
    for (const c of commands) {
      const command = c.command
        .replace(/^\.\/node_modules\/\.bin\/aap-triage /, `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} `)
        .replace(/<error_id of answer (\d+)>/, (_m, n: string) => /"error_id":"(err_[0-9a-f]{32})"/.exec(answers.get(Number(n)) ?? '')?.[1] ?? 'missing');
      const run = sh(command, dir);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(missingLines(run.stdout, c.lines), `${c.command}\n${run.stdout}`).toEqual([]);
    }
  });
});
