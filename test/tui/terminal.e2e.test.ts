/**
 * The terminal UI in a real terminal (tmux): start it on a seeded database, filter by code,
 * open a storm, draft, write, check the file, quit — and the non-terminal refusals.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocationOf } from '../../src/cli/invocation.js';
import { notInteractiveMessage } from '../../src/tui/interactive.js';
import { seedTuiDb, type SeedFacts } from './helpers/seed.js';
import { haveTmux, killTmuxServer, TmuxSession } from './helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bin/aap-triage.js');
/**
 * The refusal as the CLI prints it for `tui --db <db>`: its hints name the program the way it
 * was started and carry the `--db` given, so each runs as printed (issue 28).
 */
const refusal = (db: string): string => notInteractiveMessage((rest) => `${invocationOf(CLI, process.env)} --db ${db} ${rest}`);
const tmux = haveTmux();

let dir: string;
let db: string;
let facts: SeedFacts;
const sessions: TmuxSession[] = [];

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/tui/index.js')) || !existsSync(join(ROOT, 'dist/cli/commands/tui.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  }
  dir = mkdtempSync(join(tmpdir(), 'aap-tui-e2e-'));
  db = join(dir, 'audit.db');
  facts = seedTuiDb(db, Date.now());
});

afterAll(() => {
  for (const s of sessions) s.kill();
  killTmuxServer();
  rmSync(dir, { recursive: true, force: true });
});

/** A shell command line running the CLI with CI unset (tmux may inherit CI=true from the runner). */
const cli = (args: string) => `env -u CI -u CONTINUOUS_INTEGRATION node ${CLI} ${args}`;
const start = (name: string, command: string, columns = 120, rows = 36) => {
  const s = TmuxSession.start(`${name}-${process.pid}`, `sh -c '${command}; echo "EXIT=$?"; sleep 60'`, { cwd: dir, columns, rows });
  sessions.push(s);
  return s;
};

describe.skipIf(!tmux)('terminal UI in tmux', () => {
  it('filters by code, opens a storm, drafts and writes the email, and quits cleanly', async () => {
    const t = start('flow', `echo SCROLLBACK-MARKER; ${cli(`tui --db ${db}`)}`);
    // Generous timeouts: a loaded 2-core CI machine takes seconds to load ink and yoga.
    // It opens on the Issues view; Tab goes on to the Errors.
    let screen = await t.waitFor('issues 1–4 of 4', 30_000);
    await t.waitForRawMode();
    expect(screen).toContain('[issues]');
    t.keys('Tab');
    screen = await t.waitFor(`of ${facts.total}`);
    expect(screen).toContain('[errors]');
    expect(screen).toMatch(/rows 1–\d+ of 151/);
    for (const line of screen.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(120);

    t.keys('/');
    t.type('code:RATE_LIMITED');
    t.keys('Enter');
    screen = await t.waitFor(/rows 1–\d+ of 45/);
    const rows = screen.split('\n').filter((l) => /^[› ][* ](\d\d-\d\d )?\d\d:\d\d:\d\d /.test(l));
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect(r).toContain('RATE_LIMITED');

    t.keys('Tab');
    screen = await t.waitFor('storms 1–2 of 2');
    t.keys('j', 'Enter');
    // The scope label shows at once; the rows follow when the store answers (reads are async).
    screen = await t.waitFor(/rows 1–\d+ of 100 · storm cliBBBBB \d\d:\d\d:00–\d\d:\d\d:00 UTC/);
    t.keys('Escape');
    await t.waitFor('[storms]');
    t.keys('d');
    screen = await t.waitFor('Subject: [aap-triage] Retry storm');
    t.keys('w');
    screen = await t.waitFor('written: ');
    const written = /written: (\S+\.txt)/.exec(screen)?.[1] ?? '';
    expect(written.startsWith(dir)).toBe(true);
    // Named from the bare storm id: `storm` once.
    expect(written).toMatch(/\/incident-storm-\d{8}T\d{4}Z-[0-9a-f]{8}-\d{8}T\d{6}Z\.txt$/);
    expect(readFileSync(written, 'utf8')).toContain('Subject: [aap-triage] Retry storm from client cliBBBBB');

    // A smaller terminal re-lays the screen: no line wider, no frame taller.
    t.resize(90, 24);
    screen = await t.waitFor((s) => s.split('\n').every((l) => stringWidth(l) <= 90) && s.includes('w write file'));
    t.keys('q');
    screen = await t.waitFor('EXIT=0');
    // Nothing cleared the scrollback: the line printed before the UI started is still there.
    expect(t.screen(true)).toContain('SCROLLBACK-MARKER');
  });

  it('refuses stdin from /dev/null, stdin from a pipe and CI=true with one line and exit 2', async () => {
    const cases = {
      devnull: `${cli(`tui --db ${db}`)} < /dev/null`,
      pipe: `echo hello | ${cli(`tui --db ${db}`)}`,
      ci: `CI=true node ${CLI} tui --db ${db}`,
    };
    for (const [name, command] of Object.entries(cases)) {
      const t = start(name, command);
      const screen = await t.waitFor('EXIT=');
      expect(screen, name).toContain('EXIT=2');
      // tmux wraps the line at the pane's width and drops a space that falls at a wrap, so compare without white space.
      const text = screen.replace(/\s+/g, '');
      expect(text, name).toContain(refusal(db).replace(/\s+/g, ''));
      expect(screen, name).not.toMatch(/Raw mode|setRawMode|\s+at \S+ \(/);
    }
  });

  it('opens with no command at all in an interactive terminal', async () => {
    const t = start('default', cli(`--db ${db}`), 100, 30);
    const screen = await t.waitFor('issues 1–4 of 4', 30_000);
    expect(screen).toContain('[issues]');
    await t.waitForRawMode();
    t.keys('q');
    await t.waitFor('EXIT=0');
  });

  it('says in one line that a directory is not an audit database and exits 3', async () => {
    const t = start('directory', cli(`tui --db ${dir}`));
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=3');
    expect(screen).toContain('is a directory, not an audit database');
    expect(screen).not.toContain('SQLITE_IOERR');
  });

  it('says in one line that the database is missing and exits 3', async () => {
    const t = start('missing', cli(`tui --db ${join(dir, 'nope.db')}`));
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=3');
    expect(screen).toContain('aap-triage: no audit database at');
    expect(screen).not.toMatch(/\s+at \S+ \(/);
  });
});

describe('terminal UI without a terminal', () => {
  it('prints the help and exits 0 when no command is given outside a terminal', () => {
    const r = spawnSync('node', [CLI, '--db', db], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 15_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: aap-triage');
  });

  for (const [name, stdin, env] of [
    ['stdin from /dev/null', 'ignore', {}],
    ['stdin from a pipe', 'pipe', {}],
    ['CI=true', 'ignore', { CI: 'true' }],
  ] as const) {
    it(`prints the one line and exits 2 with ${name}`, () => {
      const r = spawnSync('node', [CLI, 'tui', '--db', db], {
        stdio: [stdin, 'pipe', 'pipe'],
        input: stdin === 'pipe' ? 'hello\n' : undefined,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(refusal(db) + '\n');
      expect(r.stdout).toBe('');
    });
  }
});
