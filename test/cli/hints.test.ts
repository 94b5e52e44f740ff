/**
 * Hints that work (issue 28): every command the demo, the CLI and the TUI print is run, as
 * printed, by a shell standing in another folder. The launcher runs as a user starts it from a
 * checkout (`node bin/aap-triage.js`, not on PATH: hints say `node '<absolute path>'`), and as
 * an install puts it on PATH (hints say `aap-triage`). Never `npx aap-triage`: the name is not
 * published on the registry, so npx would fetch whatever someone publishes under it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocationOf } from '../../src/cli/invocation.js';
import { ensureBuilt, ROOT } from '../helpers/dist.js';

const LAUNCHER = realpathSync(join(ROOT, 'bin', 'aap-triage.js'));
let dir: string;
let here: string;
let elsewhere: string;
let db: string;
/** PATH without any aap-triage on it (node stays reachable). */
const bareEnv = (): NodeJS.ProcessEnv => ({ ...process.env, CI: 'true', PATH: [join(process.execPath, '..'), '/usr/bin', '/bin'].join(delimiter), AAP_TRIAGE_DB: '' });

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const r = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs one printed command line in a POSIX shell from `cwd`. */
function sh(line: string, env: NodeJS.ProcessEnv, cwd: string) {
  const r = spawnSync('/bin/sh', ['-c', line], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'aap-hints-'));
  here = join(dir, 'here');
  elsewhere = join(dir, 'elsewhere');
  mkdirSync(here);
  mkdirSync(elsewhere);
  db = join(here, 'demo.db');
}, 180_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('invocationOf', () => {
  it('names aap-triage only when that name on PATH is this very script, else node and the absolute path', () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(LAUNCHER, join(bin, 'aap-triage'));
    expect(invocationOf(LAUNCHER, { PATH: `${bin}${delimiter}/usr/bin` })).toBe('aap-triage');
    expect(invocationOf(LAUNCHER, { PATH: '/usr/bin' })).toBe(`node ${LAUNCHER}`);
    expect(invocationOf('aap-triage', { PATH: '' })).toBe('aap-triage');
    expect(invocationOf(undefined, {})).toBe('aap-triage');
    expect(invocationOf('/no/such/script.js', {})).toBe('aap-triage');
  });
});

describe('every printed hint runs from another folder', () => {
  it('the demo report, the storms and issues hints, and the terminal UI\'s refusal, as printed', () => {
    const env = bareEnv();
    const demo = run(['demo', '--duration', '3s', '--db', db], env, here);
    expect(demo.code, demo.err).toBe(0);
    expect(demo.out).not.toContain('npx');
    const explore = demo.out.split('Explore further\n')[1]?.split('\n').map((l) => l.trim()).filter(Boolean) ?? [];
    // Five, plus the draft of the worst storm when the run had one (a loaded machine may not).
    expect(explore.length).toBeGreaterThanOrEqual(5);
    expect(explore.join('\n')).not.toContain('<');
    const lines = explore.map((l) => l.replace(/\s+\(in a terminal\)$/, ''));
    for (const line of lines) expect(line.startsWith(`node ${LAUNCHER} `), line).toBe(true);

    const ran: string[] = [];
    const check = (line: string, codes: number[] = [0]) => {
      const r = sh(line, env, elsewhere);
      ran.push(line);
      expect(codes, `${line}\n${r.err}`).toContain(r.code);
      expect(r.err).not.toMatch(/unknown (command|option)|not found|ENOENT|npm (ERR|error)/);
      return r;
    };
    for (const line of lines.filter((l) => !/ tui /.test(l))) check(line);
    // The TUI without a terminal refuses (exit 2) with one line of hints; those run too.
    const tui = check(lines.find((l) => / tui /.test(l)) ?? '', [2]);
    const twins = (tui.err.split('instead: ')[1] ?? '').trim().split(', ');
    expect(twins).toHaveLength(5);
    const someError = JSON.parse(sh(`node ${LAUNCHER} search --db ${db} --since 1h --json --limit 1`, env, elsewhere).out) as { error_id: string; code: string }[];
    // Each twin carries the --db and --since the refused command was given; only the two
    // placeholders are the user's to fill in.
    for (const twin of twins) {
      expect(twin.startsWith(`node ${LAUNCHER} --db ${db} --since 1h `), twin).toBe(true);
      check(twin.replace('<error_id>', someError[0]!.error_id).replace('<query>', `code:${someError[0]!.code}`));
    }

    // The CLI's own hints, with the placeholder filled in.
    const storms = check(`node ${LAUNCHER} --db ${db} --since 1h storms`);
    if (storms.out.includes('draft one with: ')) {
      const draftHint = storms.out.trim().split('draft one with: ')[1] ?? '';
      expect(draftHint.startsWith(`node ${LAUNCHER} --db ${db} --since 1h draft --storm <ID>`)).toBe(true);
      check(draftHint.replace('<ID>', /^(storm-\S+) /m.exec(storms.out)?.[1] ?? ''));
    }
    const issues = check(`node ${LAUNCHER} --db ${db} --since 1h issues`);
    const issueHint = issues.out.trim().split("list one's errors with: ")[1] ?? '';
    const key = /^([0-9a-f]{16}) /m.exec(issues.out)?.[1] ?? '';
    check(issueHint.replace('<KEY>', key));
    const clients = check(`node ${LAUNCHER} --db ${db} clients`);
    const nameHint = clients.out.trim().split('name one with: ')[1] ?? '';
    expect(nameHint.startsWith(`node ${LAUNCHER} --db ${db} clients label <PSEUDONYM> `), nameHint).toBe(true);
    const pseudonym = /^\S+ +(\S{22}) /m.exec(clients.out.split('\n').slice(1).join('\n'))?.[1] ?? '';
    check(nameHint.replace('<PSEUDONYM>', pseudonym).replace('<name>', 'Example Co').replace('<email>', 'ops@example.com'));
    expect(ran.length).toBeGreaterThanOrEqual(14);
  }, 120_000);

  it("the usage errors' hints (unknown command, bad arguments, bad query token) run as printed from another folder", () => {
    const env = bareEnv();
    const cases: [string[], RegExp][] = [
      [['no-such-command'], /^aap-triage: unknown command 'no-such-command' — see (.+)$/],
      [['storms', 'extra'], /^aap-triage: too many arguments for 'storms'\. .* — see (.+)$/],
      [['search', '--db', db, 'bogus:x'], /^aap-triage: bad query token 'bogus:x': .* — see (.+) for the query language$/],
    ];
    for (const [args, shape] of cases) {
      const r = run(args, env, elsewhere);
      expect(r.code, r.err).toBe(2);
      const hint = shape.exec(r.err.trim())?.[1] ?? '';
      expect(hint, r.err).toMatch(new RegExp(`^node ${LAUNCHER} (search )?--help$`));
      const help = sh(hint, env, elsewhere);
      expect(help.code, `${hint}\n${help.err}`).toBe(0);
      expect(help.out).toMatch(/^Usage: aap-triage /);
    }
  });

  it('says aap-triage when the launcher is installed on PATH, and those hints run', () => {
    const bin = join(dir, 'installed-bin');
    mkdirSync(bin);
    symlinkSync(LAUNCHER, join(bin, 'aap-triage'));
    const env = { ...bareEnv(), PATH: `${bin}${delimiter}${bareEnv()['PATH']}` };
    const r = sh(`aap-triage --db ${db} --since 1h issues`, env, elsewhere);
    expect(r.code, r.err).toBe(0);
    const hint = r.out.trim().split("list one's errors with: ")[1] ?? '';
    expect(hint.startsWith(`aap-triage --db ${db} --since 1h search issue:<KEY>`)).toBe(true);
    const key = /^([0-9a-f]{16}) /m.exec(r.out)?.[1] ?? '';
    const listed = sh(hint.replace('<KEY>', key), env, elsewhere);
    expect(listed.code, listed.err).toBe(0);
  });
});
