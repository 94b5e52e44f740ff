/**
 * The keymap: every key of the terminal UI in one table (issue 27). Key handling
 * (`keyToCommand`, `rowFor`), each view's hint line (`hintsFor`), the `?` screen (`helpLines`)
 * and the key table of docs/tui.md (`keyTableMarkdown`; a test compares) all come from
 * {@link KEYMAP}. Adding a key is one row: its keys, command, views, hints, help and what it runs.
 */
import type { Key } from 'ink';
import { TAB_VIEWS, type ViewName, VIEW_NAMES } from './registry.js';
import { ISSUE_SORT_KEYS, SORT_KEYS } from './sort-keys.js';

export { ISSUE_SORT_KEYS, SORT_KEYS, sortHint } from './sort-keys.js';

/** What a key press means in normal mode (not while typing a filter or a command). */
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

/** A cursor or scroll move: what the list keys do on every list and scrolled text. */
export type Move = 'down' | 'up' | 'first' | 'last' | 'pageDown' | 'pageUp';

/**
 * What the keymap's rows can ask the app to do (implemented by `useKeyActions`, actions.ts).
 * Each acts on the current view; a row's `views` say where it is offered at all.
 */
export interface KeyActions {
  quit(): void;
  help(): void;
  prompt(mode: 'filter' | 'command'): void;
  back(): void;
  move(how: Move): void;
  open(): void;
  nextView(): void;
  mark(): void;
  draft(): void;
  write(): void;
  cycleFormat(): void;
  refresh(): void;
  findTerminal(direction: 1 | -1): void;
  copy(what: 'error_id' | 'trace_id'): void;
  /** `key` is the sort key pressed (a key of SORT_KEYS or ISSUE_SORT_KEYS). */
  sort(key: string): void;
  /** The operator's state of the highlighted issue (issue 29): resolve now, mute forever, open again. */
  setIssueState(action: 'resolve' | 'mute' | 'reopen'): void;
}

/**
 * One row of the keymap.
 *
 * Key names are written as the help shows them and are also what `keyToCommand` matches: one
 * printable character (`j`, `G`, `?`), `space`, `Esc`, `Enter`, `Tab`, `↓`, `↑`, `PgDn`, `PgUp`,
 * `Home`, `End`, or `Ctrl+<letter>`.
 */
export interface KeyRow {
  readonly command: KeyCommand;
  /** The keys, most memorable first (the hint line shows these). */
  readonly keys: readonly string[];
  /** Other keys for the same command (arrows, Home/End, Ctrl+F/B): in the help, not the hints. */
  readonly also?: readonly string[];
  /** Views where the keys act; elsewhere they do nothing. */
  readonly views: readonly ViewName[];
  /**
   * The hint on a view's bottom line: `[rank, label]` (lower ranks first; `quit` is last, the
   * line pins its last hint), or `[rank, label, keys]` to show other key text (`:since`).
   * A row without its own hint on a view lends its keys to the hint of the row just above on
   * the same help line (`j/k`, `e/E`, `y/Y`).
   */
  readonly hint?: Partial<Record<ViewName, readonly [number, string] | readonly [number, string, string]>>;
  /** Help text (the `?` screen, docs/tui.md). Absent: the row's keys join the line above's. */
  readonly help?: string;
  readonly run: (act: KeyActions, key: string) => void;
}

/** Every view but Help, which closes on any key (issue 28). */
const ALL: readonly ViewName[] = VIEW_NAMES.filter((v) => v !== 'help');
const LISTS: readonly ViewName[] = ['issues', 'errors', 'storms', 'detail', 'draft'];
const codes = (keys: Readonly<Record<string, { readonly column: string }>>) => Object.values(keys).map((k) => k.column).join(', ');

/** The keymap. Order is the order of the help and of docs/tui.md. */
export const KEYMAP: readonly KeyRow[] = [
  { command: 'help', keys: ['?'], views: ALL, hint: { errors: [0, 'help'], issues: [5, 'help'], storms: [5, 'help'], draft: [4, 'help'], help: [0, 'close', 'any key'] }, help: 'this help (any key closes it); q quits', run: (a) => a.help() },
  { command: 'quit', keys: ['q'], views: ALL, hint: Object.fromEntries(ALL.map((v) => [v, [99, 'quit'] as const])), run: (a) => a.quit() },
  { command: 'filter', keys: ['/'], views: ALL, hint: { issues: [1, 'filter'], errors: [1, 'filter'] }, help: 'filter, in the query language of `aap-triage search` (Enter applies, Esc cancels, Ctrl+U clears, Ctrl+W deletes a word)', run: (a) => a.prompt('filter') },
  {
    command: 'command',
    keys: [':'],
    views: ALL,
    hint: { errors: [7, 'command'], storms: [4, '24h', ':since'] },
    help: `command: ${TAB_VIEWS.map((v) => `:${v}`).join(' ')} :since 1h :until <time>|now :format md :w [path] :q`,
    run: (a) => a.prompt('command'),
  },
  { command: 'back', keys: ['Esc'], views: ALL, hint: { detail: [0, 'back'], draft: [3, 'back'] }, help: 'back: closes detail, leaves a drill-down (Issues, Storms), then clears the marks, then the filter', run: (a) => a.back() },
  { command: 'down', keys: ['j'], also: ['↓'], views: LISTS, hint: { detail: [4, 'scroll'], storms: [2, 'move'], draft: [2, 'scroll'] }, help: 'move down / up (scroll in Detail and Draft); first / last', run: (a) => a.move('down') },
  { command: 'up', keys: ['k'], also: ['↑'], views: LISTS, run: (a) => a.move('up') },
  { command: 'first', keys: ['g'], also: ['Home'], views: LISTS, run: (a) => a.move('first') },
  { command: 'last', keys: ['G'], also: ['End'], views: LISTS, run: (a) => a.move('last') },
  { command: 'pageDown', keys: ['PgDn'], also: ['Ctrl+F'], views: LISTS, help: 'a page down / up', run: (a) => a.move('pageDown') },
  { command: 'pageUp', keys: ['PgUp'], also: ['Ctrl+B'], views: LISTS, run: (a) => a.move('pageUp') },
  {
    command: 'open',
    keys: ['Enter'],
    views: ['issues', 'errors', 'storms'],
    hint: { issues: [0, 'its errors'], errors: [2, 'detail'], storms: [0, 'its errors'] },
    help: 'open: the issue’s errors (Issues), the error’s detail (Errors), the storm’s errors (Storms); Esc comes back',
    run: (a) => a.open(),
  },
  {
    command: 'nextView',
    keys: ['Tab'],
    views: ALL,
    hint: { issues: [4, 'errors'], errors: [6, 'storms'], storms: [3, 'draft view'] },
    help: `next view: ${TAB_VIEWS.join(' → ')} (into Draft with nothing drafted: the highlighted storm, else the marked errors)`,
    run: (a) => a.nextView(),
  },
  { command: 'mark', keys: ['space'], views: ['errors'], hint: { errors: [3, 'mark'] }, help: 'mark / unmark the error (and move down)', run: (a) => a.mark() },
  {
    command: 'draft',
    keys: ['d'],
    views: ALL,
    hint: { issues: [3, 'draft'], errors: [4, 'draft'], detail: [3, 'draft'], storms: [1, 'draft'] },
    help: 'draft the incident email: the selected issue (Issues) or storm (Storms), the shown error (Detail), else the marked errors, else the filter',
    run: (a) => a.draft(),
  },
  { command: 'format', keys: ['f'], views: ['draft'], hint: { draft: [1, 'format'] }, help: 'draft format text → md → eml; w writes the draft to a file, never over one (path in the status line)', run: (a) => a.cycleFormat() },
  { command: 'write', keys: ['w'], views: ALL, hint: { draft: [0, 'write file'] }, run: (a) => a.write() },
  { command: 'refresh', keys: ['r'], views: ALL, help: 'refresh now (it also refreshes every 2 s)', run: (a) => a.refresh() },
  { command: 'nextTerminal', keys: ['e'], views: ['errors'], hint: { errors: [5, 'next/prev terminal'] }, help: 'next / previous `retryable=false` error (scans 500 rows either way)', run: (a) => a.findTerminal(1) },
  { command: 'prevTerminal', keys: ['E'], views: ['errors'], run: (a) => a.findTerminal(-1) },
  {
    command: 'copyErrorId',
    keys: ['y'],
    views: ['errors', 'detail'],
    hint: { errors: [8, 'copy id'], detail: [1, 'copy error_id'] },
    help: 'copy the error_id / trace_id (a clipboard tool, else OSC 52) and show it in the status line',
    run: (a) => a.copy('error_id'),
  },
  { command: 'copyTraceId', keys: ['Y'], views: ['errors', 'detail'], hint: { detail: [2, 'copy trace_id'] }, run: (a) => a.copy('trace_id') },
  { command: 'sort', keys: Object.keys(SORT_KEYS), views: ['errors'], help: `sort Errors by ${codes(SORT_KEYS)} (again: reverse)`, run: (a, k) => a.sort(k) },
  {
    command: 'resolveIssue',
    keys: ['c'],
    views: ['issues'],
    help: `Issues: resolve now, mute, reopen the issue (c m o); sort by ${codes(ISSUE_SORT_KEYS)}`,
    run: (a) => a.setIssueState('resolve'),
  },
  { command: 'muteIssue', keys: ['m'], views: ['issues'], run: (a) => a.setIssueState('mute') },
  { command: 'reopenIssue', keys: ['o'], views: ['issues'], run: (a) => a.setIssueState('reopen') },
  { command: 'sort', keys: Object.keys(ISSUE_SORT_KEYS), views: ['issues'], hint: { issues: [2, 'sort'] }, run: (a, k) => a.sort(k) },
];

/** Whether the key event is the key named `name` (a name as written in {@link KeyRow.keys}). */
function isKey(name: string, input: string, key: Key): boolean {
  switch (name) {
    case 'Esc':
      return key.escape;
    case 'Enter':
      return key.return;
    case 'Tab':
      return key.tab && !key.shift;
    case '↓':
      return key.downArrow;
    case '↑':
      return key.upArrow;
    case 'PgDn':
      return key.pageDown;
    case 'PgUp':
      return key.pageUp;
    case 'Home':
      return key.home;
    case 'End':
      return key.end;
    case 'space':
      return input === ' ' && !key.ctrl && !key.meta;
    default:
      if (name.startsWith('Ctrl+')) return key.ctrl && input === name.slice(5).toLowerCase();
      return input === name && !key.ctrl && !key.meta;
  }
}

/** Maps one ink key event to a command, or null for keys without a meaning. Pure. */
export function keyToCommand(input: string, key: Key): KeyCommand | null {
  const row = KEYMAP.find((r) => [...r.keys, ...(r.also ?? [])].some((k) => isKey(k, input, key)));
  return row?.command ?? null;
}

/** The row that runs `command` on `view`, or undefined where the command does nothing. */
export function rowFor(command: KeyCommand, view: ViewName): KeyRow | undefined {
  return KEYMAP.find((r) => r.command === command && r.views.includes(view));
}

/** The keymap's rows grouped as the help shows them: a row with help text and those after it without. */
function helpGroups(): KeyRow[][] {
  const groups: KeyRow[][] = [];
  for (const row of KEYMAP) {
    const last = groups[groups.length - 1];
    if (row.help === undefined && last) last.push(row);
    else groups.push([row]);
  }
  return groups;
}

/** Keys of a help line: the primary keys of its rows, then their other keys. */
const lineKeys = (group: readonly KeyRow[]): string[] => [...group.flatMap((r) => r.keys), ...group.flatMap((r) => r.also ?? [])];

/** The `?` screen's key lines: `[keys, what they do]`, keys separated by spaces. */
export function helpLines(): (readonly [string, string])[] {
  return helpGroups().map((g) => [lineKeys(g).join(' '), g[0]?.help ?? ''] as const);
}

/** The hint line of `view`: `[key, what it does]` pairs, most used first, `q quit` last. */
export function hintsFor(view: ViewName): (readonly [string, string])[] {
  const hints: { rank: number; key: string; label: string }[] = [];
  for (const group of helpGroups()) {
    group.forEach((row, i) => {
      const hint = row.hint?.[view];
      if (!hint) return;
      const next = group[i + 1];
      const keys = next && !next.hint?.[view] ? [...row.keys, ...next.keys] : row.keys;
      hints.push({ rank: hint[0], label: hint[1], key: hint[2] ?? keys.join('/') });
    });
  }
  return hints.sort((a, b) => a.rank - b.rank).map((h) => [h.key, h.label] as const);
}

/** The views of a help line, as docs/tui.md's table says them. */
function whereText(group: readonly KeyRow[]): string {
  const views = new Set(group.flatMap((r) => r.views));
  return ALL.every((v) => views.has(v)) ? 'all' : VIEW_NAMES.filter((v) => views.has(v)).join(', ');
}

/** The key table of docs/tui.md ("Keys"), Markdown, one line per help line. */
export function keyTableMarkdown(): string {
  const code = (text: string) => text.replace(/\|/g, '\\|');
  const lines = helpGroups().map((g) => `| ${lineKeys(g).map((k) => `\`${k}\``).join(' ')} | ${whereText(g)} | ${code(g[0]?.help ?? '')} |`);
  return ['| key | views | does |', '|---|---|---|', ...lines].join('\n');
}
