import type { Key } from 'ink';

/**
 * What a key press means in normal mode (not while typing a filter or a command). Pure: the
 * keymap is tested without rendering, and the help screen lists the same keys.
 */
export type KeyCommand =
  | 'help'
  | 'filter'
  | 'command'
  | 'back'
  | 'quit'
  | 'down'
  | 'up'
  | 'first'
  | 'last'
  | 'pageDown'
  | 'pageUp'
  | 'open'
  | 'nextView'
  | 'mark'
  | 'draft'
  | 'write'
  | 'format'
  | 'refresh'
  | 'nextTerminal'
  | 'prevTerminal'
  | 'copyErrorId'
  | 'copyTraceId';

const BY_CHAR: Readonly<Record<string, KeyCommand>> = {
  '?': 'help',
  '/': 'filter',
  ':': 'command',
  q: 'quit',
  j: 'down',
  k: 'up',
  g: 'first',
  G: 'last',
  ' ': 'mark',
  d: 'draft',
  w: 'write',
  f: 'format',
  r: 'refresh',
  e: 'nextTerminal',
  E: 'prevTerminal',
  y: 'copyErrorId',
  Y: 'copyTraceId',
};

/** Maps one ink key event to a command, or null for keys without a meaning. */
export function keyToCommand(input: string, key: Key): KeyCommand | null {
  if (key.escape) return 'back';
  if (key.return) return 'open';
  if (key.tab && !key.shift) return 'nextView';
  if (key.downArrow) return 'down';
  if (key.upArrow) return 'up';
  if (key.pageDown || (key.ctrl && input === 'f')) return 'pageDown';
  if (key.pageUp || (key.ctrl && input === 'b')) return 'pageUp';
  if (key.home) return 'first';
  if (key.end) return 'last';
  if (key.ctrl || key.meta) return null;
  return BY_CHAR[input] ?? null;
}
