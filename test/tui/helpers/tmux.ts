/**
 * A real terminal for end-to-end tests: a detached tmux session of a fixed size, keys typed
 * with `send-keys`, the screen read with `capture-pane`. Every wait polls with a timeout.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** True when a `tmux` binary runs here. */
export function haveTmux(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

/** One detached tmux session running `command` (a shell command line) in `cwd`. */
export class TmuxSession {
  constructor(readonly name: string) {}

  /** Starts the session `columns` × `rows` with its own server socket (`-L`), so tests never touch a user's tmux. */
  static start(name: string, command: string, opts: { cwd: string; columns: number; rows: number }): TmuxSession {
    const s = new TmuxSession(name);
    s.tmux(['new-session', '-d', '-s', name, '-x', String(opts.columns), '-y', String(opts.rows), '-c', opts.cwd, command]);
    return s;
  }

  /** Runs tmux on this test's private server. */
  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', `aap-tui-test-${process.pid}`, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Types `text` literally. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.name, '-l', text]);
  }

  /** Presses named keys (`Enter`, `Escape`, `Tab`, `q`…). */
  keys(...names: string[]): void {
    this.tmux(['send-keys', '-t', this.name, ...names]);
  }

  /** The visible screen, or with `history` the whole scrollback too. */
  screen(history = false): string {
    return this.tmux(['capture-pane', '-p', '-t', this.name, ...(history ? ['-S', '-'] : [])]);
  }

  /** Polls the screen until `check` matches; throws with the last screen after `timeoutMs`. */
  async waitFor(check: string | RegExp | ((screen: string) => boolean), timeoutMs = 10_000): Promise<string> {
    const test = typeof check === 'function' ? check : (s: string) => (typeof check === 'string' ? s.includes(check) : check.test(s));
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = this.screen();
      if (test(last)) return last;
      await sleep(50);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(check)}; screen:\n${last}`);
  }

  /**
   * Waits until the program in the pane has put its terminal in raw mode (`-icanon`): keys sent
   * before that are line-buffered by the tty and reach the program as one chunk on Enter.
   */
  async waitForRawMode(timeoutMs = 10_000): Promise<void> {
    const tty = this.tmux(['display-message', '-p', '-t', this.name, '#{pane_tty}']).trim();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const r = spawnSync('stty', ['-F', tty, '-a'], { encoding: 'utf8' });
      if (/(^|\s)-icanon(\s|$)/.test(r.stdout)) return;
      await sleep(50);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for raw mode on ${tty}`);
  }

  resize(columns: number, rows: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(columns), '-y', String(rows)]);
  }

  /** Kills the session (and the private server with its last session); never throws. */
  kill(): void {
    try {
      this.tmux(['kill-session', '-t', this.name]);
    } catch {
      // already gone
    }
  }
}

/**
 * Kills this test's private tmux server and removes its socket, which tmux leaves in
 * `$TMUX_TMPDIR/tmux-<uid>/` (default /tmp) after the server exits; never throws.
 */
export function killTmuxServer(): void {
  const name = `aap-tui-test-${process.pid}`;
  spawnSync('tmux', ['-L', name, 'kill-server']);
  rmSync(join(process.env['TMUX_TMPDIR'] || '/tmp', `tmux-${process.getuid?.() ?? 0}`, name), { force: true });
}
