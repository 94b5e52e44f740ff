/**
 * What the keys do (issue 27): the keymap's `KeyActions` over the navigation state, the views'
 * data and the list cursors, plus the prompt's editing and its Enter (`submit`). Each key reads
 * the newest state (`nav`), so keys that arrive together act in order.
 */
import type { Key } from 'ink';
import { runCommandLine } from './commands.js';
import type { ListHandle } from './hooks/use-list-cursor.js';
import { type KeyActions, keyToCommand, rowFor } from './keys.js';
import { currentView, type NavAction, type NavState } from './navigation.js';
import { DEFAULT_SORT, type DraftChoice, TAB_VIEWS, tabOf, type ViewData, type ViewName } from './registry.js';
import { ISSUE_SORT_KEYS, SORT_KEYS } from './sort-keys.js';
import type { TuiSource } from './source.js';
import type { ErrorSort, ResolvedWindow, StormView } from './types.js';
import { copyMessage, copyText } from './utils/clipboard.js';
import { writeDraft } from './utils/write-draft.js';

/** Rows e/E scan for the next retryable=false error. */
const TERMINAL_SCAN = 500;

/** The filter that lists one issue's errors: the issue's key plus the filter that listed the issue. */
export function issueQuery(key: string, query: string): string {
  return `issue:${key}${query ? ` ${query}` : ''}`;
}

/** The text minus its last word and the spaces after it (readline's Ctrl+W). */
export function deleteWordBefore(text: string): string {
  return text.replace(/\S*\s*$/, '');
}

/** What the keys act on. */
export interface ActionEnv {
  /** The newest navigation state. */
  readonly nav: NavState;
  readonly dispatch: (action: NavAction) => void;
  readonly data: ViewData;
  readonly lists: Readonly<Record<ViewName, ListHandle>>;
  readonly source: TuiSource;
  readonly resolved: ResolvedWindow;
  /** Reads the store again now (the refresh clock's `now`). */
  readonly refreshNow: () => void;
  readonly exit: () => void;
  /** Where `y`/`Y` copy to: the terminal (OSC 52) and the environment naming a clipboard tool. */
  readonly copyTo: Parameters<typeof copyText>[1];
  /** Folder `w` writes drafts to. */
  readonly draftDir: string;
  /** Epoch milliseconds. */
  readonly clock: () => number;
}

const stormChoice = (st: StormView): DraftChoice =>
  // Storm ids already start with `storm-`: the bare id names the file (`incident-storm-2026…`).
  ({ target: { kind: 'storm', id: st.id }, title: `storm ${st.id}`, stem: st.id });
const markedChoice = (marks: ReadonlySet<string>): DraftChoice => {
  const n = marks.size;
  return { target: { kind: 'errors', ids: [...marks] }, title: `${n} marked error${n === 1 ? '' : 's'}`, stem: `${n}-marked-error${n === 1 ? '' : 's'}` };
};

/** The keymap's actions, and `submit` for the prompt's Enter, over `e`. */
export function createActions(e: ActionEnv): KeyActions & { submit(which: 'filter' | 'command', text: string): void } {
  const { nav: s, dispatch, data } = e;
  const view = currentView(s);
  const say = (text: string, kind: 'ok' | 'problem' | 'info' = 'info') => dispatch({ type: 'say', message: { text, kind } });
  const errors = e.lists.errors;
  const selectedRow = data.errors.page.rows[errors.at.cursor - data.errors.page.offset];
  const selectedIssue = data.issues.page.issues[e.lists.issues.at.cursor];
  const selectedStorm = data.storms[e.lists.storms.at.cursor];
  const copy = (label: 'error_id' | 'trace_id', value: string | null | undefined) => {
    if (!value) return say(`no ${label} to copy`, 'problem');
    const m = copyMessage(label, value, copyText(value, e.copyTo));
    say(m.text, m.kind);
  };
  /**
   * Into the Draft view (Tab, `:draft`). With nothing drafted yet it drafts what `d` would from
   * here — the highlighted storm on the Storms view, else the marked errors — so the hint
   * `Tab draft view` works; otherwise the view explains how to choose something.
   */
  const enterDraft = () => {
    const choice = s.draft ? null : view === 'storms' && selectedStorm ? stormChoice(selectedStorm) : s.marks.size > 0 ? markedChoice(s.marks) : null;
    dispatch(choice ? { type: 'draft', choice, show: 'goTo' } : { type: 'goTo', view: 'draft' });
  };
  const show = (next: ViewName) => (next === 'draft' ? enterDraft() : dispatch({ type: 'goTo', view: next }));
  const write = (path?: string) => {
    const doc = data.draft.doc;
    if (!s.draft || !doc) return say('nothing to write: draft something first (d)', 'problem');
    const { format } = s;
    const { stem } = s.draft;
    const text = format === 'text' ? Promise.resolve(doc.text) : format === 'md' ? Promise.resolve(doc.markdown) : e.source.eml(doc, e.clock());
    text
      .then((t) => dispatch({ type: 'written', file: writeDraft(t, format, { dir: e.draftDir, path, stem, now: e.clock() }) }))
      .catch((err: Error) => say(`could not write: ${err.message}`, 'problem'));
  };
  const cursor = errors.at.cursor;
  return {
    quit: e.exit,
    help: () => dispatch({ type: 'push', view: 'help' }),
    prompt(mode) {
      dispatch({ type: 'prompt', prompt: { mode, input: mode === 'filter' ? s.query : '', error: null } });
      if (mode === 'filter' && view !== 'errors' && view !== 'issues') dispatch({ type: 'goTo', view: 'errors' });
    },
    back: () => dispatch({ type: 'back' }),
    move: (how) => e.lists[view].move(how),
    open() {
      if (view === 'errors' && selectedRow) dispatch({ type: 'openDetail', id: selectedRow.error_id });
      // The issue's errors, under the filter that listed it; Esc comes back here.
      if (view === 'issues' && selectedIssue) dispatch({ type: 'drill', query: issueQuery(selectedIssue.key, s.query), scope: `issue ${selectedIssue.key} ${selectedIssue.title}` });
      if (view === 'storms' && selectedStorm) {
        const scope = e.source.stormScope(selectedStorm);
        dispatch({ type: 'drill', query: scope.query, window: scope.window, scope: scope.label });
      }
    },
    nextView: () => show(TAB_VIEWS[(TAB_VIEWS.indexOf(tabOf(view)) + 1) % TAB_VIEWS.length] ?? 'errors'),
    mark() {
      if (!selectedRow) return;
      dispatch({ type: 'mark', id: selectedRow.error_id });
      errors.moveTo(cursor + 1);
    },
    draft() {
      const start = (choice: DraftChoice) => dispatch({ type: 'draft', choice, show: 'push' });
      const { query } = s;
      if (view === 'issues' && selectedIssue) {
        start({ target: { kind: 'query', query: issueQuery(selectedIssue.key, query) }, title: `issue ${selectedIssue.key} ${selectedIssue.title}`, stem: `issue-${selectedIssue.key}` });
      } else if (view === 'storms' && selectedStorm) start(stormChoice(selectedStorm));
      else if (view === 'detail' && s.detailId) start({ target: { kind: 'errors', ids: [s.detailId] }, title: `error ${s.detailId}`, stem: s.detailId });
      else if (s.marks.size > 0) start(markedChoice(s.marks));
      else if (view === 'errors' && data.errors.page.total > 0) {
        start({ target: { kind: 'query', query }, title: query ? `query ${query}` : 'all errors in the window', stem: query ? `query-${query}` : 'all-errors' });
      } else say('nothing to draft: select a storm or mark errors (space)', 'problem');
    },
    write: () => (view === 'draft' ? write() : say('w writes the draft: press d first', 'info')),
    cycleFormat: () => dispatch({ type: 'format' }),
    setIssueState(action) {
      // Issue 29: one key each; the state is written on a connection of its own, then the list re-read.
      if (view !== 'issues' || !selectedIssue) return;
      if (!e.source.setIssueState) return say('this view is read-only', 'problem');
      e.source.setIssueState(selectedIssue.key, action, e.clock()).then(
        (text) => {
          e.refreshNow();
          say(text, 'ok');
        },
        (err: unknown) => say(`cannot ${action} the issue: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`, 'problem'),
      );
    },
    refresh() {
      e.refreshNow();
      dispatch({ type: 'refresh' });
    },
    findTerminal(dir) {
      const from = dir === 1 ? cursor + 1 : Math.max(0, cursor - TERMINAL_SCAN);
      const count = dir === 1 ? TERMINAL_SCAN : cursor - from;
      if (count <= 0) return say('no earlier retryable=false error', 'info');
      e.source.search(s.query, e.resolved, count, from, s.errorSort).then(
        (chunk) => {
          const list = dir === 1 ? chunk.rows : [...chunk.rows].reverse();
          const idx = list.findIndex((r) => r.retryable === false);
          if (idx < 0) return say(`no retryable=false error in the ${dir === 1 ? 'next' : 'previous'} ${count} rows`, 'info');
          errors.moveTo(dir === 1 ? from + idx : cursor - 1 - idx);
        },
        (err: Error) => say(err.message, 'problem'),
      );
    },
    copy: (what) => copy(what, view === 'detail' ? data.detail?.row[what] : selectedRow?.[what]),
    sort(k) {
      if (view === 'issues') {
        const by = ISSUE_SORT_KEYS[k]?.by;
        if (!by) return;
        dispatch({ type: 'sortIssues', by });
        return say(`issues by ${ISSUE_SORT_KEYS[k]?.column ?? by} ↓`);
      }
      const by = SORT_KEYS[k]?.by ?? 'time';
      const current = s.errorSort ?? DEFAULT_SORT;
      // The sorted column again reverses; a new column starts newest (time), largest (attempt), else A first.
      const next: ErrorSort = current.by === by ? { by, descending: !current.descending } : { by, descending: by === 'time' || by === 'attempt' };
      dispatch({ type: 'sortErrors', sort: next.by === DEFAULT_SORT.by && next.descending === DEFAULT_SORT.descending ? undefined : next });
      say(`sorted by ${SORT_KEYS[k]?.column ?? by} ${next.descending ? '↓' : '↑'}`);
    },
    /** Applies the filter or runs the `:` command typed into the prompt. */
    submit(which, text) {
      if (which === 'filter') {
        const problem = e.source.checkQuery(text);
        if (problem) return dispatch({ type: 'prompt', prompt: { input: text, error: problem } });
        dispatch({ type: 'filter', query: text.trim() });
        dispatch({ type: 'prompt', prompt: { mode: 'normal', error: null } });
        dispatch({ type: 'cursor', view: 'issues', at: { cursor: 0, top: 0 } });
        if (view !== 'errors' && view !== 'issues') dispatch({ type: 'goTo', view: 'errors' });
        return;
      }
      const result = runCommandLine(text, e.source);
      if (result.kind === 'error') return dispatch({ type: 'prompt', prompt: { input: text, error: result.message } });
      dispatch({ type: 'prompt', prompt: { mode: 'normal', error: null } });
      switch (result.kind) {
        case 'view':
          if (result.view === 'draft' && !s.draft && !(view === 'storms' && selectedStorm) && s.marks.size === 0) say('nothing drafted yet: d on a storm or on marked errors', 'info');
          return show(result.view);
        case 'window':
          dispatch({ type: 'window', window: result.window });
          return say(`window since ${result.window.since}${result.window.until ? ` until ${result.window.until}` : ''}`);
        case 'until':
          dispatch({ type: 'window', window: result.until ? { since: s.window.since, until: result.until } : { since: s.window.since }, keepCursors: true });
          return say(result.until ? `window until ${result.until}` : 'window until now');
        case 'format':
          return dispatch({ type: 'format', format: result.format });
        case 'write':
          return write(result.path);
        case 'quit':
          return e.exit();
      }
    },
  };
}

/**
 * One key: Ctrl+C quits; while a prompt is open the key edits it (Enter submits, Esc cancels,
 * Ctrl+U clears, Ctrl+W deletes a word); on the help any key only closes it (issue 28);
 * otherwise the keymap's row for the key's command on this view runs.
 */
export function handleKey(input: string, key: Key, e: ActionEnv): void {
  // ink exits on a Ctrl+C that arrives alone; one inside a chunk of keys reaches us.
  if (key.ctrl && input === 'c') return e.exit();
  const { prompt } = e.nav;
  const edit = (next: string) => e.dispatch({ type: 'prompt', prompt: { input: next } });
  if (prompt.mode !== 'normal') {
    if (key.escape) return e.dispatch({ type: 'prompt', prompt: { mode: 'normal', error: null } });
    if (key.return) return createActions(e).submit(prompt.mode, prompt.input);
    if (key.backspace || key.delete) return edit([...prompt.input].slice(0, -1).join(''));
    if (key.ctrl && input === 'u') return edit('');
    if (key.ctrl && input === 'w') return edit(deleteWordBefore(prompt.input));
    if (input && !key.ctrl && !key.meta && !key.tab && !key.upArrow && !key.downArrow) edit(prompt.input + input);
    return;
  }
  const view = currentView(e.nav);
  // Any key closes help, mapped or not (x, a, 1, Left, q…), and does nothing else: a key
  // pressed to leave the help must not also move, mark or quit (issue 28).
  if (view === 'help') return e.dispatch({ type: 'closeHelp' });
  const command = keyToCommand(input, key);
  if (command === null) return;
  e.dispatch({ type: 'say', message: null });
  rowFor(command, view)?.run(createActions(e), input);
}
