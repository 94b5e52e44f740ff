/**
 * OSC 52 "set clipboard" escape: terminals that support it (xterm, iTerm2, kitty, WezTerm,
 * Windows Terminal, tmux with `set-clipboard on`) put `text` on the system clipboard, also over
 * SSH. Terminals that do not ignore it; the UI shows the value too, so it can be copied by hand.
 * Written straight to the output stream: it moves no cursor, so ink's frame is untouched.
 */
export function clipboardEscape(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}
