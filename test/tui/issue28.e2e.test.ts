/**
 * The terminal UI in a real terminal (tmux) on a real demo store, for issue 28: the help view
 * closes on any key and that key does nothing else; the Issues columns are sized from what they
 * need — at 80 × 24 every row keeps its code and skill or method (rows are told apart), at
 * 160 × 45 the `where` column is whole. Run by hand: `npm run build && npx vitest run test/tui/issue28.e2e.test.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveTmux, killTmuxServer, TmuxSession } from './helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bin/aap-triage.js');
const tmux = haveTmux();
const WAIT = 30_000;

let dir: string;
let db: string;
let issues: { code: string; skill: string | null; rpc_method: string; service: string; protocol: string }[] = [];
const sessions: TmuxSession[] = [];

beforeAll(() => {
  if (!tmux) return;
  if (!existsSync(join(ROOT, 'dist/tui/index.js'))) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'aap-tui-28-'));
  db = join(dir, 'demo.db');
  const demo = spawnSync(process.execPath, [CLI, 'demo', '--duration', '4s', '--db', db], { cwd: dir, env: { ...process.env, CI: 'true' }, encoding: 'utf8', timeout: 90_000 });
  if (demo.status !== 0) throw new Error(`demo failed: ${demo.stderr}`);
  const list = spawnSync(process.execPath, [CLI, 'issues', '--db', db, '--since', '1h', '--json'], { cwd: dir, encoding: 'utf8' });
  issues = (JSON.parse(list.stdout) as { issues: typeof issues }).issues;
}, 120_000);

afterAll(() => {
  for (const s of sessions) s.kill();
  if (tmux) killTmuxServer();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(name: string, columns: number, rows: number): Promise<TmuxSession> {
  const cmd = `env -u CI -u CONTINUOUS_INTEGRATION -u DISPLAY -u WAYLAND_DISPLAY node ${CLI} tui --db ${db} --since 1h`;
  const t = TmuxSession.start(`${name}-${process.pid}`, `sh -c '${cmd}; echo "EXIT=$?"; sleep 60'`, { cwd: dir, columns, rows });
  sessions.push(t);
  await t.waitFor(/issues \d+–\d+ of \d+/, WAIT);
  await t.waitForRawMode();
  return t;
}

/** The Issues table's rows: cursor cell, then a state. */
const issueRows = (screen: string) => screen.split('\n').filter((l) => /^[› ] (new|regressed|ongoing) /.test(l));

describe.skipIf(!tmux)('issue 28 in tmux', { timeout: 180_000 }, () => {
  it('80 × 24: every Issues row keeps its code and skill or method, so no two rows read alike; every line within 80 cells', async () => {
    const t = await open('narrow', 80, 24);
    const screen = t.screen();
    const rows = issueRows(screen);
    // The frame is one line short of the terminal (App.tsx), six of its lines are not rows.
    expect(rows.length).toBe(Math.min(issues.length, 24 - 1 - 6));
    expect(new Set(rows.map((r) => r.slice(1).replace(/\s+/g, ' '))).size).toBe(rows.length);
    for (const i of issues.slice(0, rows.length)) {
      const where = i.skill ?? i.rpc_method;
      expect(rows.some((r) => r.includes(` ${i.code} `) && r.includes(where)), `${i.code} ${where}`).toBe(true);
    }
    for (const line of screen.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('160 × 45: the where column is whole (skill · service (protocol)), never cut for a wider trend', async () => {
    const t = await open('wide', 160, 45);
    const rows = issueRows(t.screen());
    expect(rows.length).toBe(Math.min(issues.length, 45 - 1 - 6));
    for (const i of issues.slice(0, rows.length)) {
      const where = `${i.skill ?? i.rpc_method} · ${i.service} (${i.protocol})`;
      expect(rows.some((r) => r.includes(where)), where).toBe(true);
    }
    for (const r of rows) expect(r).not.toContain('…');
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it.each([
    ['80 × 24', 80, 24],
    ['160 × 45', 160, 45],
  ])('%s: the help closes on any key — unmapped (x, a, 1), Left, Down, Space, Enter, q — and the key does nothing else', async (_size, columns, rows) => {
    const t = await open(`help${columns}`, columns, rows);
    const before = issueRows(t.screen());
    for (const key of ['x', 'a', '1', 'h', 'Left', 'Down', 'Space', 'Enter', 'q']) {
      t.keys('?');
      await t.waitFor(/this help \(any key closes it\)/, WAIT);
      t.keys(key);
      const screen = await t.waitFor((s) => !s.includes('this help (any key closes it)') && /issues \d+–\d+ of \d+/.test(s), WAIT);
      // Still the Issues view, the cursor still on the first row: the key only closed the help.
      expect(screen, key).toContain('[issues]');
      expect(issueRows(screen)[0], key).toBe(before[0]);
      expect(screen, key).not.toContain('EXIT=');
    }
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });
});
