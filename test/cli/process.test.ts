// Runs the real launcher (`node bin/aap-triage.js`) in child processes to prove exit codes and the
// one-line, no-stack-trace error rule end to end. Builds dist/ first when it is missing or stale.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPseudonymizer } from '../../src/audit/index.js';
import { seededStore } from '../triage/seed.js';

const root = join(import.meta.dirname, '..', '..');
let store: ReturnType<typeof seededStore>;

function cli(args: string[], extra: { env?: Record<string, string>; input?: string } = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'aap-triage.js'), ...args], {
    cwd: store.dir,
    env: { PATH: process.env['PATH'] ?? '', AAP_TRIAGE_DB: store.path, ...extra.env },
    ...(extra.input !== undefined ? { input: extra.input } : {}),
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  const built = join(root, 'dist', 'cli', 'index.js');
  const newest = Math.max(...['index.ts', 'program.ts', 'context.ts'].map((f) => statSync(join(root, 'src', 'cli', f)).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) {
    try {
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore', timeout: 120_000 });
    } catch {
      // tsc exits non-zero on type errors elsewhere in the tree but still emits dist/
    }
  }
  store = seededStore();
}, 150_000);
afterAll(() => store.cleanup());

describe('bin/aap-triage.js', () => {
  it("hash - reads the value from the process's stdin and hashes an email as a subject", () => {
    const secret = 'process-test-secret-0123456789abcdef';
    const pseudo = createPseudonymizer(secret);
    const r = cli(['hash', '-'], { env: { AAP_TRIAGE_KEY: secret }, input: 'jo@example.com\n' });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `${pseudo.subject('jo@example.com')}\n`, 'aap-triage: hashed as subject (it looks like an email or phone; --as to choose)\n']);
  });

  it('exits 0 and prints JSON rows for a good search', () => {
    const r = cli(['search', '--json', '--since', '2026-11-30T09:00:00Z', '--until', '2026-11-30T11:00:00Z', 'code:RESERVATION_CONFLICT']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { error_id: string }[]).map((x) => x.error_id)).toEqual(['err_dmc12stray000000000000000000001']);
  });

  it.each([
    [['search', 'code:A', 'nope:1'], 2, /^aap-triage: bad query token 'nope:1'/],
    [['search', '--since', '3 days'], 2, /^aap-triage: --since '3 days' is not a duration/],
    [['--no-such-flag'], 2, /^aap-triage: unknown option '--no-such-flag'/],
    [['show', 'err_00000000000000000000000000000000'], 1, /^aap-triage: no error with id/],
    [['search', '--db', '/nonexistent/dir/audit.db'], 3, /^aap-triage: no audit database at \/nonexistent\/dir\/audit\.db/],
    [['doctor', '--db', '/nonexistent/dir/audit.db'], 3, null],
  ])('%j exits %i with at most one line on stderr and no stack trace', (args, status, pattern) => {
    const r = cli(args as string[]);
    expect(r.status).toBe(status);
    if (pattern) {
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern as RegExp);
    }
    expect(r.stderr + r.stdout).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
  });

  it('tail follows until SIGINT and then exits 0 without output on stderr', async () => {
    const child = spawn(process.execPath, [join(root, 'bin', 'aap-triage.js'), 'tail', '--interval', '100'], {
      cwd: store.dir,
      env: { PATH: process.env['PATH'] ?? '', AAP_TRIAGE_DB: store.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    for (let i = 0; i < 200 && !out.includes('ERROR_ID'); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // a few polls
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out.split('\n')[0]).toMatch(/^TIME \(UTC\)\s+CODE\s+RETRYABLE/);
    expect(err).toBe('');
  }, 20_000);
});
