import { spawnSync } from 'node:child_process';

/**
 * OSC 52 "set clipboard" escape: terminals that support it (xterm, iTerm2, kitty, WezTerm,
 * Windows Terminal, tmux with `set-clipboard on`) put `text` on the system clipboard, also over
 * SSH. Terminals that do not ignore it, and none answers either way, so a program cannot know
 * whether it was taken; the UI therefore says "sent", never "copied", and shows the value too.
 * Written straight to the output stream: it moves no cursor, so ink's frame is untouched.
 */
export function clipboardEscape(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/** What became of a copy. */
export type CopyOutcome =
  /** A clipboard tool took the text and exited 0: delivered. */
  | { readonly kind: 'copied'; readonly via: string }
  /** The OSC 52 escape went to the terminal; whether the terminal took it is unknown. */
  | { readonly kind: 'sent' }
  /** Neither: no terminal to send OSC 52 to and no clipboard tool that worked. */
  | { readonly kind: 'failed'; readonly reason: string };

/** What `copyText` may use. */
export interface CopyContext {
  /** The terminal stream (OSC 52 goes here when it is a TTY). */
  readonly stdout: { readonly isTTY?: boolean; write(chunk: string): unknown };
  /** Decides which clipboard tool may work (`DISPLAY`, `WAYLAND_DISPLAY`). */
  readonly env: NodeJS.ProcessEnv;
  /** @default process.platform */
  readonly platform?: NodeJS.Platform;
}

/** Clipboard tools by what the environment offers, first that works wins. */
function clipboardTools(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]][] {
  if (platform === 'darwin') return [['pbcopy', []]];
  const tools: [string, string[]][] = [];
  if (env['WAYLAND_DISPLAY']) tools.push(['wl-copy', []]);
  if (env['DISPLAY']) tools.push(['xclip', ['-selection', 'clipboard']], ['xsel', ['--clipboard', '--input']]);
  return tools;
}

/** Milliseconds a clipboard tool may take before it counts as failed (the keys wait for it). */
const TOOL_TIMEOUT_MS = 1500;

/**
 * Puts `text` on the clipboard as well as can be known: a local clipboard tool first (pbcopy;
 * wl-copy with Wayland; xclip or xsel with X11), whose exit status confirms the copy; else the
 * OSC 52 escape to the terminal, which cannot be confirmed; else a failure with the reason.
 * Never throws.
 */
export function copyText(text: string, ctx: CopyContext): CopyOutcome {
  for (const [cmd, args] of clipboardTools(ctx.env, ctx.platform ?? process.platform)) {
    // stdout/stderr ignored: xclip keeps running to serve the selection and would hold a pipe open.
    const r = spawnSync(cmd, args, { input: text, stdio: ['pipe', 'ignore', 'ignore'], timeout: TOOL_TIMEOUT_MS });
    if (r.status === 0) return { kind: 'copied', via: cmd };
  }
  if (ctx.stdout.isTTY) {
    try {
      ctx.stdout.write(clipboardEscape(text));
      return { kind: 'sent' };
    } catch (err) {
      return { kind: 'failed', reason: `the terminal write failed (${(err as Error).message})` };
    }
  }
  return { kind: 'failed', reason: 'no terminal for OSC 52 and no clipboard tool (pbcopy, wl-copy, xclip, xsel)' };
}

/** The status-line message for a copy of `value`: says exactly what is known, the value last. */
export function copyMessage(label: string, value: string, outcome: CopyOutcome): { text: string; kind: 'ok' | 'info' | 'problem' } {
  switch (outcome.kind) {
    case 'copied':
      return { text: `copied ${label} (${outcome.via}): ${value}`, kind: 'ok' };
    case 'sent':
      return { text: `sent to terminal clipboard (OSC 52): ${value}`, kind: 'info' };
    default:
      return { text: `could not copy ${label}: ${outcome.reason} — copy it from here: ${value}`, kind: 'problem' };
  }
}
