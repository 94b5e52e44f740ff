import type { Key } from 'ink';
import type { ErrorSortKey, IssueSortKey } from './types.js';

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
  | 'copyTraceId'
  | 'sort'
  | 'resolveIssue'
  | 'muteIssue'
  | 'reopenIssue';

/**
 * The sort keys of the Errors view, one per column (k9s style: Shift + a letter of the column);
 * pressing the key of the sorted column again reverses the order. The footer, the help screen
 * and docs/tui.md list them from here.
 */
export const SORT_KEYS: Readonly<Record<string, { readonly by: ErrorSortKey; readonly column: string }>> = {
  T: { by: 'time', column: 'time' },
  C: { by: 'code', column: 'code' },
  R: { by: 'retryable', column: 'retry' },
  S: { by: 'skill', column: 'skill' },
  P: { by: 'protocol', column: 'proto' },
  L: { by: 'client', column: 'client' },
  A: { by: 'attempt', column: 'att' },
};

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
  // Issues view (issue 29): resolve now, mute forever, open again; release forms on the CLI.
  c: 'resolveIssue',
  m: 'muteIssue',
  o: 'reopenIssue',
};

/**
 * The sort keys of the Issues view, one per sortable column (the orders `listIssues` offers):
 * most errors, most recently first seen, most recently seen first.
 */
export const ISSUE_SORT_KEYS: Readonly<Record<string, { readonly by: IssueSortKey; readonly column: string }>> = {
  N: { by: 'count', column: 'count' },
  F: { by: 'first_seen', column: 'first' },
  L: { by: 'last_seen', column: 'last' },
};

/**
 * A sort-key table as one short hint: each column name with its key letter in upper case and
 * the rest in lower case (`Time Code Retry Skill Proto cLient Att`), like a menu accelerator.
 */
export function sortHint(keys: Readonly<Record<string, { readonly column: string }>>): string {
  return Object.entries(keys)
    .map(([k, { column }]) => {
      const i = column.toLowerCase().indexOf(k.toLowerCase());
      return i < 0 ? `${k}:${column}` : column.slice(0, i).toLowerCase() + k + column.slice(i + 1).toLowerCase();
    })
    .join(' ');
}

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
  if (Object.hasOwn(SORT_KEYS, input) || Object.hasOwn(ISSUE_SORT_KEYS, input)) return 'sort';
  return BY_CHAR[input] ?? null;
}
