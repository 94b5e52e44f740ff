/**
 * CLI conventions (issue #17): the global options in every subcommand's help, shell completion
 * scripts generated from the program (checked by the real bash, zsh and fish where installed),
 * and NO_COLOR / --no-color in a real terminal (tmux, the terminal UI in colour and without).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { seededStore } from '../triage/seed.js';
import { haveTmux, killTmuxServer, TmuxSession } from '../tui/helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const has = (bin: string): boolean => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0;

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
    stderr: { write: (c: string | Uint8Array) => (err += String(c)) },
    env,
  });
  return { code, out, err };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aap-cli-conv-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('help', () => {
  it.each(COMMANDS.map((c) => c.name))('%s --help lists the global options', async (name) => {
    const r = await run([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Global Options:');
    for (const flag of ['--db <path|url>', '--json', '--since <time>', '--until <time>', '--limit <n>', '--key-file <path>', '--no-color']) expect(r.out).toContain(flag);
  });

  it('clients label --help lists them too', async () => {
    const r = await run(['clients', 'label', '--help']);
    expect(r.out).toMatch(/Global Options:[\s\S]*--db <path\|url>/);
  });
});

describe('aap-triage completion', () => {
  const script = async (shell: string): Promise<string> => {
    const r = await run(['completion', shell]);
    expect(r).toMatchObject({ code: 0, err: '' });
    const file = join(dir, `completion.${shell}`);
    writeFileSync(file, r.out);
    return file;
  };
  /** What bash completes for the words typed so far (the last one being completed). */
  const bashComplete = (file: string, words: string[]): string[] => {
    const r = spawnSync('bash', ['-c', `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _aap_triage; printf '%s\\n' "\${COMPREPLY[@]}"`], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean);
  };

  it('bash: completes commands, subcommands and each command\'s own and global options', async () => {
    const file = await script('bash');
    expect(spawnSync('bash', ['-n', file]).status).toBe(0);
    expect(bashComplete(file, ['aap-triage', 'is'])).toEqual(['issues']);
    expect(bashComplete(file, ['aap-triage', '--db', 'x.db', 'cl'])).toEqual(['clients']);
    expect(bashComplete(file, ['aap-triage', 'issues', '--so'])).toEqual(['--sort']);
    expect(bashComplete(file, ['aap-triage', 'clients', ''])).toEqual(expect.arrayContaining(['label', 'unlabel', '--db', '--json']));
    expect(bashComplete(file, ['aap-triage', 'clients', 'label', '--co'])).toEqual(['--contact']);
    expect(bashComplete(file, ['aap-triage', 'prune', '--d'])).toEqual(expect.arrayContaining(['--dry-run', '--db']));
    expect(bashComplete(file, ['aap-triage', 'search', '--no-c'])).toEqual(['--no-color']);
  });

  it.skipIf(!has('zsh'))('zsh: a script zsh parses, with every command', async () => {
    const file = await script('zsh');
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
    const text = (await run(['completion', 'zsh'])).out;
    expect(text.split('\n')[0]).toBe('#compdef aap-triage');
    for (const c of COMMANDS) expect(text).toContain(`'${c.name}:`);
  });

  it.skipIf(!has('fish'))('fish: completes commands and options', async () => {
    const file = await script('fish');
    // fish makes ~/.config/fish and ~/.local/share/fish even with --no-config: give it a home in the test's folder.
    const home = join(dir, 'fish-home');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state'), XDG_CACHE_HOME: join(home, '.cache') };
    const complete = (line: string): string[] =>
      spawnSync('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], { encoding: 'utf8', env })
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0] as string);
    expect(complete('aap-triage iss')).toEqual(['issues']);
    expect(complete('aap-triage issues --so')).toEqual(['--sort']);
    expect(complete('aap-triage clients un')).toEqual(['unlabel']);
  });

  it('refuses another shell with one line and exit 2', async () => {
    const r = await run(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.err).toBe("aap-triage: no completion for shell 'tcsh' — use one of bash, zsh, fish\n");
  });
});

describe.skipIf(!haveTmux())('NO_COLOR and --no-color in a real terminal', () => {
  let store: ReturnType<typeof seededStore>;
  const sessions: TmuxSession[] = [];
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/cli/completion.js'))) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
    store = seededStore();
  });
  afterAll(() => {
    for (const s of sessions) s.kill();
    killTmuxServer();
    store.cleanup();
  });
  /** The TUI's first screen with its escape sequences (`capture-pane -e`). */
  const firstScreen = async (name: string, prefix: string, args: string): Promise<string> => {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION TERM=xterm-256color ${prefix} node ${join(ROOT, 'bin/aap-triage.js')} ${args} --db ${store.path} --since 2026-11-30T09:00:00Z --until 2026-11-30T12:00:00Z`;
    const s = TmuxSession.start(`${name}-${process.pid}`, `sh -c '${cmd}; sleep 60'`, { cwd: dir, columns: 120, rows: 30 });
    sessions.push(s);
    await s.waitFor('[issues]', 30_000); // the view the UI opens on
    await s.waitForRawMode();
    const screen = s.tmux(['capture-pane', '-p', '-e', '-t', s.name]);
    s.keys('q');
    return screen;
  };
  // A colour is an SGR sequence with a colour parameter: 30–37, 90–97, 38;5;n / 38;2;… (and 4x backgrounds).
  // eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
  const COLOUR = /\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;

  it('the terminal UI uses colour by default, none with NO_COLOR=1 or --no-color', async () => {
    expect(await firstScreen('colour', '', 'tui')).toMatch(COLOUR);
    expect(await firstScreen('nocolor-env', 'NO_COLOR=1', 'tui')).not.toMatch(COLOUR);
    expect(await firstScreen('nocolor-flag', '', 'tui --no-color')).not.toMatch(COLOUR);
  }, 120_000);
});
