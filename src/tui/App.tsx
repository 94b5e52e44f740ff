import { Box, useApp, useStdout } from 'ink';
import { useMemo, useRef, useState } from 'react';
import { HelpLine } from './components/HelpLine.js';
import { HINTS } from './hints.js';
import { PromptBar } from './components/PromptBar.js';
import { StatusBar } from './components/StatusBar.js';
import { TABS, TitleBar } from './components/TitleBar.js';
import { useAsync } from './hooks/use-async.js';
import { useDraft } from './hooks/use-draft.js';
import { clampedSelection, useClampSelection, useFollowSelection } from './hooks/use-follow-selection.js';
import { useKeys } from './hooks/use-keys.js';
import { useRefresh } from './hooks/use-refresh.js';
import { useSyncState } from './hooks/use-sync-state.js';
import { useTerminalSize } from './hooks/use-terminal-size.js';
import { useHighWater } from './hooks/use-high-water.js';
import { ISSUE_SORT_KEYS, keyToCommand, SORT_KEYS } from './keys.js';
import { runCommandLine } from './commands.js';
import type { TuiSource } from './source.js';
import type { DraftFormat, DraftTarget, ErrorDetailView, ErrorPage, ErrorSort, GapSummary, HistogramBucket, IssuePage, IssueSortKey, StormView, WindowSpec } from './types.js';
import { copyMessage, copyText } from './utils/clipboard.js';
import { writeDraft } from './utils/write-draft.js';
import { visibleSlice } from './utils/layout.js';
import { DetailView, detailLines } from './views/DetailView.js';
import { DraftView, draftLines } from './views/DraftView.js';
import { clientWidthFor, codeWidthFor, ErrorsView, errorsLayout } from './views/ErrorsView.js';
import { HelpView } from './views/HelpView.js';
import { IssuesView, issuesLayout } from './views/IssuesView.js';
import { StormsView, stormsLayout } from './views/StormsView.js';

/** Names of the views. */
export type ViewName = 'issues' | 'errors' | 'detail' | 'storms' | 'draft' | 'help';

/** Props of `App`. */
export interface AppProps {
  readonly source: TuiSource;
  /** Database path as shown in the status line. */
  readonly dbLabel: string;
  /** @default { since: '1h' } */
  readonly window?: WindowSpec;
  /** Initial filter. @default '' */
  readonly query?: string;
  /** View shown first. @default 'issues' */
  readonly view?: 'issues' | 'errors' | 'storms';
  /** Live refresh period in milliseconds; 0 turns it off. @default 2000 */
  readonly refreshMs?: number;
  /** Folder `w` writes drafts to. @default process.cwd() */
  readonly draftDir?: string;
  /** Fixed terminal size (tests, benchmarks); otherwise the real size, following resizes. */
  readonly size?: { readonly columns?: number; readonly rows?: number };
  /** The real terminal stream, when ink renders to a view of it that hides its height (render.tsx). */
  readonly terminal?: NodeJS.WriteStream;
  /** Clock, epoch milliseconds. @default Date.now */
  readonly clock?: () => number;
  /** Environment the copy keys read (`DISPLAY`, `WAYLAND_DISPLAY` for a clipboard tool). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

interface StackEntry {
  readonly view: ViewName;
  /** Filter and window to restore when this entry is left with Esc (storm drill-down). */
  readonly restore?: { readonly query: string; readonly window: WindowSpec; readonly scope: string | null };
}

type Message = { text: string; kind: 'ok' | 'problem' | 'info' } | null;

const FORMATS: readonly DraftFormat[] = ['text', 'md', 'eml'];
/** The Errors view's order before any sort key: newest first. */
const DEFAULT_SORT: ErrorSort = { by: 'time', descending: true };
const EMPTY_PAGE: ErrorPage = { rows: [], total: 0, offset: 0 };
const NO_GAPS: GapSummary = { records: 0, dropped: 0, inWindow: 0, newest: null };
const EMPTY_ISSUES: IssuePage = { issues: [], total: 0, bucketMs: 60_000, quietMs: 0 };
/** The storms before the store answered (by identity: the views say "loading", not "no storms"). */
const NO_STORMS_YET: StormView[] = [];
/** Rows e/E scan for the next retryable=false error. */
const TERMINAL_SCAN = 500;
/** A window longer than this (one day, ms) shows the date in the time column. */
const SHOW_DATE_AFTER_MS = 86_400_000;

/** The filter that lists one issue's errors: the issue's key plus the filter that listed the issue. */
export function issueQuery(key: string, query: string): string {
  return `issue:${key}${query ? ` ${query}` : ''}`;
}

/** The text minus its last word and the spaces after it (readline's Ctrl+W). */
export function deleteWordBefore(text: string): string {
  return text.replace(/\S*\s*$/, '');
}

/**
 * The terminal UI: one screen with the Errors, Detail, Storms, Draft and Help views, a status
 * line and a key-hint line (issue 6). Owns navigation state; reads data through `source` only.
 * The frame is at most `rows - 1` lines so ink never switches to its clear-the-screen path and the
 * scrollback survives.
 */
export function App(props: AppProps) {
  const { source, dbLabel, refreshMs = 2000, draftDir = process.cwd(), clock = Date.now } = props;
  const app = useApp();
  const { stdout } = useStdout();
  const { columns, rows } = useTerminalSize(props.size, props.terminal);
  // Live refresh backs off on a big window: never spend more than a tenth of the time querying
  // (a 7-day count and histogram on a 10-million-row store takes seconds; the keys must stay live).
  const queryCost = useRef(0);
  const refresh = useRefresh(refreshMs > 0 ? Math.max(refreshMs, Math.ceil(queryCost.current * 10)) : 0, clock);

  const [stack, setStack] = useState<StackEntry[]>([{ view: props.view ?? 'issues' }]);
  const [mode, setMode, modeRef] = useSyncState<'normal' | 'filter' | 'command'>('normal');
  const [input, setInput, inputRef] = useSyncState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const [query, setQuery] = useState(props.query ?? '');
  const [windowSpec, setWindowSpec] = useState<WindowSpec>(props.window ?? { since: '1h' });
  const [scope, setScope] = useState<string | null>(null);
  const [errCursorState, setErrCursor] = useState(0);
  const [errTop, setErrTop] = useState(0);
  const [stormCursor, setStormCursor] = useState(0);
  const [issueCursor, setIssueCursor] = useState(0);
  const [issueSort, setIssueSort] = useState<IssueSortKey>('count');
  const [detailId, setDetailId] = useState<string | null>(null);
  const [detailScroll, setDetailScroll] = useState(0);
  const [draftTarget, setDraftTarget] = useState<{ target: DraftTarget; title: string; stem: string } | null>(null);
  const [draftFormat, setDraftFormat] = useState<DraftFormat>('text');
  const [draftScroll, setDraftScroll] = useState(0);
  const [draftNonce, setDraftNonce] = useState(0);
  const [stormNonce, setStormNonce] = useState(0);
  const [written, setWritten] = useState<string | null>(null);
  const [marks, setMarks] = useState<ReadonlySet<string>>(new Set());
  const [sort, setSort] = useState<ErrorSort | undefined>(undefined);
  const [message, setMessage] = useState<Message>(null);

  const view = stack[stack.length - 1]?.view ?? 'errors';
  // Never as tall as the terminal: ink clears the whole screen (scrollback too) when it is.
  const frameHeight = Math.max(6, rows - 1);
  const bodyHeight = frameHeight - 3;
  const width = Math.max(20, columns);

  // ---- data (recomputed on refresh ticks; identical output means ink writes nothing) ----
  const resolved = useMemo(() => {
    try {
      return source.resolveWindow(windowSpec, query, refresh.at);
    } catch {
      return source.resolveWindow(windowSpec, '', refresh.at);
    }
  }, [source, windowSpec, query, refresh.at]);

  const lastPage = useRef<ErrorPage>(EMPTY_PAGE);
  const errLayout = errorsLayout(bodyHeight);
  const { page, histogram, queryError, forTop } = useAsync<{ page: ErrorPage; histogram: readonly HistogramBucket[]; queryError: string | null; forTop: number }>(
    async () => {
      if (view !== 'errors') return { page: lastPage.current, histogram: [], queryError: null, forTop: errTop };
      try {
        const started = performance.now();
        let p = await source.search(query, resolved, errLayout.rows, errTop, sort);
        // The row set shrank under the shown slice (a narrower window, a refresh after a prune):
        // show its last page rather than an empty list; the effect below moves top and cursor there.
        if (p.rows.length === 0 && p.total > 0 && errTop > 0) p = await source.search(query, resolved, errLayout.rows, Math.max(0, p.total - errLayout.rows), sort);
        const h = errLayout.chart > 0 ? await source.histogram(query, resolved) : [];
        queryCost.current = performance.now() - started;
        lastPage.current = p;
        return { page: p, histogram: h, queryError: null, forTop: errTop };
      } catch (err) {
        return { page: lastPage.current, histogram: [], queryError: (err as Error).message, forTop: errTop };
      }
    },
    // refresh.tick re-reads the store.
    [source, view, query, resolved, errLayout.rows, errLayout.chart, errTop, sort, refresh.tick],
    { page: EMPTY_PAGE, histogram: [], queryError: null, forTop: 0 },
  );
  // The code column only grows while the filter, window and order stay: it does not jump as the operator scrolls.
  const listKey = `${query}|${windowSpec.since}|${windowSpec.until ?? ''}|${sort?.by ?? ''}`;
  const codeWidth = useHighWater(codeWidthFor(page.rows), listKey);
  const clientWidth = useHighWater(clientWidthFor(page.rows), listKey);

  const lastIssues = useRef<IssuePage>(EMPTY_ISSUES);
  // Bumped after the operator resolves, mutes or reopens an issue, so the list shows it at once.
  const [issueStateTick, setIssueStateTick] = useState(0);
  const { issuePage, issueError } = useAsync<{ issuePage: IssuePage; issueError: string | null }>(
    async () => {
      if (view !== 'issues') return { issuePage: lastIssues.current, issueError: null };
      try {
        const started = performance.now();
        const p = await source.issues(query, resolved, issueSort);
        queryCost.current = performance.now() - started;
        lastIssues.current = p;
        return { issuePage: p, issueError: null };
      } catch (err) {
        return { issuePage: lastIssues.current, issueError: (err as Error).message };
      }
    },
    // refresh.tick re-reads the store.
    [source, view, query, resolved, issueSort, refresh.tick, issueStateTick],
    { issuePage: EMPTY_ISSUES, issueError: null },
  );

  const storms = useAsync<StormView[]>(
    async () => (view !== 'storms' ? NO_STORMS_YET : source.storms(resolved).catch(() => [])),
    // Storm detection over a long window is the slowest query there is (seconds for 24 h on a
    // 10-million-row store): re-run every 15th refresh (30 s), on `r`, or when the window moves.
    [source, view, windowSpec, stormNonce, Math.floor(refresh.tick / 15)],
    NO_STORMS_YET,
  );

  const detail = useAsync<ErrorDetailView | null>(
    async () => (view === 'detail' && detailId ? source.detail(detailId).catch(() => null) : null),
    [source, view, detailId],
    null,
  );

  // Drafts are re-read on `r` (draftNonce), not on every refresh tick: the text would jump.
  const { doc: draftDocument, text: draftText } = useDraft({
    source,
    active: view === 'draft',
    target: draftTarget,
    window: resolved,
    now: refresh.at,
    nonce: draftNonce,
    format: draftFormat,
    clock,
  });

  const gaps = useAsync<GapSummary>(() => source.gaps(resolved), [source, resolved], NO_GAPS);

  useFollowSelection(page, errCursorState, view === 'errors', setErrCursor, setErrTop);
  // Only a page read for the rows now asked for: one still loading for an earlier `top` would pull the operator back.
  useClampSelection(page, errCursorState, errTop, view === 'errors' && forTop === errTop, setErrCursor, setErrTop);
  // The frame already shows the clamped cursor; the effect above makes it the state.
  const errCursor = view === 'errors' ? clampedSelection(page, errCursorState).cursor : errCursorState;

  // ---- helpers ----
  const total = page.total;
  const clampErr = (c: number) => Math.max(0, Math.min(c, Math.max(0, total - 1)));
  const moveErr = (c: number) => {
    const next = clampErr(c);
    const slice = visibleSlice(total, next, errLayout.rows, errTop);
    setErrCursor(next);
    setErrTop(slice.top);
  };
  const stormsRows = stormsLayout(bodyHeight).rows;
  const stormSlice = visibleSlice(storms.length, Math.min(stormCursor, Math.max(0, storms.length - 1)), stormsRows, 0);
  const selectedRow = page.rows[errCursor - page.offset];
  const selectedStorm = storms[stormCursor];
  const issuesRows = issuesLayout(bodyHeight).rows;
  // Clamped in the frame, so a shorter list after a refresh or a new filter is never blank.
  const issueShown = Math.min(issueCursor, Math.max(0, issuePage.issues.length - 1));
  const issueSlice = visibleSlice(issuePage.issues.length, issueShown, issuesRows, Math.max(0, issueShown - issuesRows + 1));
  const selectedIssue = issuePage.issues[issueShown];
  const push = (entry: StackEntry) => setStack((s) => [...s, entry]);
  const goTo = (v: ViewName) => {
    setStack([{ view: v }]);
    setScope(null);
  };
  const say = (text: string, kind: 'ok' | 'problem' | 'info' = 'info') => setMessage({ text, kind });
  const copy = (label: string, value: string | null | undefined) => {
    if (!value) return say(`no ${label} to copy`, 'problem');
    const m = copyMessage(label, value, copyText(value, { stdout: props.terminal ?? stdout, env: props.env ?? process.env }));
    say(m.text, m.kind);
  };
  const applyFilter = (q: string) => {
    setQuery(q);
    setErrCursor(0);
    setErrTop(0);
  };
  const chooseDraft = (target: DraftTarget, title: string, stem: string) => {
    setDraftTarget({ target, title, stem });
    setDraftScroll(0);
    setWritten(null);
  };
  const startDraft = (target: DraftTarget, title: string, stem: string) => {
    chooseDraft(target, title, stem);
    push({ view: 'draft' });
  };
  // Storm ids already start with `storm-`: the bare id names the file (`incident-storm-2026…`).
  const draftStorm = (st: StormView, open: typeof startDraft) => open({ kind: 'storm', id: st.id }, `storm ${st.id}`, st.id);
  const draftMarked = (open: typeof startDraft) => {
    const n = marks.size;
    open({ kind: 'errors', ids: [...marks] }, `${n} marked error${n === 1 ? '' : 's'}`, `${n}-marked-error${n === 1 ? '' : 's'}`);
  };
  /**
   * Tab or `:draft` into the Draft view. With nothing drafted yet it drafts what `d` would from
   * here — the highlighted storm on the Storms view, else the marked errors — so the hint
   * `Tab draft view` works; otherwise the view explains how to choose something.
   */
  const enterDraft = () => {
    if (!draftTarget) {
      if (view === 'storms' && selectedStorm) draftStorm(selectedStorm, chooseDraft);
      else if (marks.size > 0) draftMarked(chooseDraft);
    }
    goTo('draft');
  };
  const write = (path?: string) => {
    const doc = draftDocument;
    if (!draftTarget || !doc) return say('nothing to write: draft something first (d)', 'problem');
    const format = draftFormat;
    const stem = draftTarget.stem;
    const text = format === 'text' ? Promise.resolve(doc.text) : format === 'md' ? Promise.resolve(doc.markdown) : source.eml(doc, clock());
    text
      .then((t) => {
        const file = writeDraft(t, format, { dir: draftDir, path, stem, now: clock() });
        setWritten(file);
        say(`wrote ${file}`, 'ok');
      })
      .catch((err: Error) => say(`could not write: ${err.message}`, 'problem'));
  };
  const findTerminal = (dir: 1 | -1) => {
    const from = dir === 1 ? errCursor + 1 : Math.max(0, errCursor - TERMINAL_SCAN);
    const count = dir === 1 ? TERMINAL_SCAN : errCursor - from;
    if (count <= 0) return say('no earlier retryable=false error', 'info');
    source.search(query, resolved, count, from, sort).then(
      (chunk) => {
        const list = dir === 1 ? chunk.rows : [...chunk.rows].reverse();
        const idx = list.findIndex((r) => r.retryable === false);
        if (idx < 0) return say(`no retryable=false error in the ${dir === 1 ? 'next' : 'previous'} ${count} rows`, 'info');
        moveErr(dir === 1 ? from + idx : errCursor - 1 - idx);
      },
      (err: Error) => say(err.message, 'problem'),
    );
  };

  /** Applies the filter or runs the `:` command typed into the prompt. */
  const submit = (which: 'filter' | 'command', text: string) => {
    if (which === 'filter') {
      const problem = source.checkQuery(text);
      if (problem) {
        setInput(text);
        return setInputError(problem);
      }
      applyFilter(text.trim());
      setMode('normal');
      setInputError(null);
      setIssueCursor(0);
      if (view !== 'errors' && view !== 'issues') goTo('errors');
      return;
    }
    const result = runCommandLine(text, source);
    if (result.kind === 'error') {
      setInput(text);
      return setInputError(result.message);
    }
    setMode('normal');
    setInputError(null);
    switch (result.kind) {
      case 'view':
        if (result.view !== 'draft') goTo(result.view);
        else {
          if (!draftTarget && !(view === 'storms' && selectedStorm) && marks.size === 0) say('nothing drafted yet: d on a storm or on marked errors', 'info');
          enterDraft();
        }
        break;
      case 'window':
        setWindowSpec(result.window);
        setErrCursor(0);
        setErrTop(0);
        setStormCursor(0);
        say(`window since ${result.window.since}${result.window.until ? ` until ${result.window.until}` : ''}`);
        break;
      case 'until':
        setWindowSpec((w) => (result.until ? { since: w.since, until: result.until } : { since: w.since }));
        say(result.until ? `window until ${result.until}` : 'window until now');
        break;
      case 'format':
        setDraftFormat(result.format);
        break;
      case 'write':
        write(result.path);
        break;
      case 'quit':
        app.exit();
        break;
    }
  };

  // ---- keys ----
  useKeys((ch, key) => {
    // ink exits on a Ctrl+C that arrives alone; one inside a chunk of keys reaches us.
    if (key.ctrl && ch === 'c') return app.exit();
    const mode = modeRef.current;
    if (mode !== 'normal') {
      if (key.escape) {
        setMode('normal');
        setInputError(null);
        return;
      }
      if (key.return) return submit(mode, inputRef.current);
      if (key.backspace || key.delete) return setInput((s) => [...s].slice(0, -1).join(''));
      if (key.ctrl && ch === 'u') return setInput('');
      if (key.ctrl && ch === 'w') return setInput((s) => deleteWordBefore(s));
      if (ch && !key.ctrl && !key.meta && !key.tab && !key.upArrow && !key.downArrow) setInput((s) => s + ch);
      return;
    }

    if (view === 'help') {
      // Any key closes help, mapped or not (x, a, 1, Left, q…), and does nothing else: a key
      // pressed to leave the help must not also move, mark or quit (issue 28).
      setStack((s) => (s.length > 1 ? s.slice(0, -1) : [{ view: 'errors' }]));
      return;
    }
    const cmd = keyToCommand(ch, key);
    if (cmd === null) return;
    setMessage(null);
    const page1 = Math.max(1, errLayout.rows - 1);
    switch (cmd) {
      case 'quit':
        app.exit();
        return;
      case 'help':
        push({ view: 'help' });
        return;
      case 'filter':
        setMode('filter');
        setInput(query);
        setInputError(null);
        if (view !== 'errors' && view !== 'issues') goTo('errors');
        return;
      case 'command':
        setMode('command');
        setInput('');
        setInputError(null);
        return;
      case 'nextView': {
        const base = view === 'detail' ? 'errors' : view;
        const i = TABS.indexOf(base as (typeof TABS)[number]);
        const next = TABS[(i + 1) % TABS.length] ?? 'errors';
        if (next === 'draft') enterDraft();
        else goTo(next);
        return;
      }
      case 'refresh':
        refresh.now();
        setDraftNonce((n) => n + 1);
        setStormNonce((n) => n + 1);
        say('refreshed');
        return;
      case 'back': {
        const top = stack[stack.length - 1];
        if (stack.length > 1) {
          if (top?.restore) {
            setQuery(top.restore.query);
            setWindowSpec(top.restore.window);
            setScope(top.restore.scope);
            setErrCursor(0);
            setErrTop(0);
          }
          setStack((s) => s.slice(0, -1));
        } else if (view !== 'errors' && view !== 'issues') goTo('errors');
        else if (marks.size > 0) {
          setMarks(new Set());
          say('marks cleared');
        } else if (query) applyFilter('');
        return;
      }
      case 'draft':
        if (view === 'issues' && selectedIssue) {
          const q = issueQuery(selectedIssue.key, query);
          startDraft({ kind: 'query', query: q }, `issue ${selectedIssue.key} ${selectedIssue.title}`, `issue-${selectedIssue.key}`);
        } else if (view === 'storms' && selectedStorm) {
          draftStorm(selectedStorm, startDraft);
        } else if (view === 'detail' && detailId) {
          startDraft({ kind: 'errors', ids: [detailId] }, `error ${detailId}`, detailId);
        } else if (marks.size > 0) {
          draftMarked(startDraft);
        } else if (view === 'errors' && total > 0) {
          startDraft({ kind: 'query', query }, query ? `query ${query}` : 'all errors in the window', query ? `query-${query}` : 'all-errors');
        } else say('nothing to draft: select a storm or mark errors (space)', 'problem');
        return;
      case 'write':
        if (view === 'draft') write();
        else say('w writes the draft: press d first', 'info');
        return;
      case 'format':
        if (view === 'draft') {
          setDraftFormat((f) => FORMATS[(FORMATS.indexOf(f) + 1) % FORMATS.length] ?? 'text');
          setDraftScroll(0);
        }
        return;
      default:
        break;
    }

    if (view === 'errors') {
      switch (cmd) {
        case 'down':
          return moveErr(errCursor + 1);
        case 'up':
          return moveErr(errCursor - 1);
        case 'first':
          return moveErr(0);
        case 'last':
          return moveErr(total - 1);
        case 'pageDown':
          return moveErr(errCursor + page1);
        case 'pageUp':
          return moveErr(errCursor - page1);
        case 'mark':
          if (!selectedRow) return;
          setMarks((m) => {
            const next = new Set(m);
            if (next.has(selectedRow.error_id)) next.delete(selectedRow.error_id);
            else next.add(selectedRow.error_id);
            return next;
          });
          return moveErr(errCursor + 1);
        case 'open':
          if (!selectedRow) return;
          setDetailId(selectedRow.error_id);
          setDetailScroll(0);
          push({ view: 'detail' });
          return;
        case 'nextTerminal':
          return findTerminal(1);
        case 'prevTerminal':
          return findTerminal(-1);
        case 'copyErrorId':
          return copy('error_id', selectedRow?.error_id);
        case 'copyTraceId':
          return copy('trace_id', selectedRow?.trace_id);
        case 'sort': {
          const by = SORT_KEYS[ch]?.by ?? 'time';
          const current = sort ?? DEFAULT_SORT;
          // The sorted column again reverses; a new column starts newest (time), largest (attempt), else A first.
          const next: ErrorSort = current.by === by ? { by, descending: !current.descending } : { by, descending: by === 'time' || by === 'attempt' };
          setSort(next.by === DEFAULT_SORT.by && next.descending === DEFAULT_SORT.descending ? undefined : next);
          say(`sorted by ${SORT_KEYS[ch]?.column ?? by} ${next.descending ? '↓' : '↑'}`);
          setErrCursor(0);
          setErrTop(0);
          return;
        }
        default:
          return;
      }
    }
    if (view === 'issues') {
      const last = Math.max(0, issuePage.issues.length - 1);
      const move = (c: number) => setIssueCursor(Math.max(0, Math.min(last, c)));
      switch (cmd) {
        case 'down':
          return move(issueShown + 1);
        case 'up':
          return move(issueShown - 1);
        case 'first':
          return move(0);
        case 'last':
          return move(last);
        case 'pageDown':
          return move(issueShown + issuesRows - 1);
        case 'pageUp':
          return move(issueShown - issuesRows + 1);
        case 'sort': {
          const by = ISSUE_SORT_KEYS[ch]?.by;
          if (!by) return;
          setIssueSort(by);
          setIssueCursor(0);
          say(`issues by ${ISSUE_SORT_KEYS[ch]?.column ?? by} ↓`);
          return;
        }
        case 'resolveIssue':
        case 'muteIssue':
        case 'reopenIssue': {
          // Issue 29: one key each; the state is written on a connection of its own, the list refreshed.
          if (!selectedIssue) return;
          const action = cmd === 'resolveIssue' ? 'resolve' : cmd === 'muteIssue' ? 'mute' : 'reopen';
          if (!source.setIssueState) return say('this view is read-only', 'problem');
          source.setIssueState(selectedIssue.key, action, clock()).then(
            (text) => {
              say(text, 'ok');
              setIssueStateTick((n) => n + 1);
            },
            (err: unknown) => say(`cannot ${action} the issue: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, 'problem'),
          );
          return;
        }
        case 'open': {
          if (!selectedIssue) return;
          // The issue's errors, under the filter that listed it; Esc comes back here.
          setStack((st) => [...st, { view: 'errors', restore: { query, window: windowSpec, scope } }]);
          setQuery(issueQuery(selectedIssue.key, query));
          setScope(`issue ${selectedIssue.key} ${selectedIssue.title}`);
          setErrCursor(0);
          setErrTop(0);
          return;
        }
        default:
          return;
      }
    }
    if (view === 'storms') {
      const last = Math.max(0, storms.length - 1);
      const move = (c: number) => setStormCursor(Math.max(0, Math.min(last, c)));
      switch (cmd) {
        case 'down':
          return move(stormCursor + 1);
        case 'up':
          return move(stormCursor - 1);
        case 'first':
          return move(0);
        case 'last':
          return move(last);
        case 'pageDown':
          return move(stormCursor + stormsRows - 1);
        case 'pageUp':
          return move(stormCursor - stormsRows + 1);
        case 'open': {
          if (!selectedStorm) return;
          const s = source.stormScope(selectedStorm);
          setStack((st) => [...st, { view: 'errors', restore: { query, window: windowSpec, scope } }]);
          setQuery(s.query);
          setWindowSpec(s.window);
          setScope(s.label);
          setErrCursor(0);
          setErrTop(0);
          return;
        }
        default:
          return;
      }
    }
    if (view === 'detail' || view === 'draft') {
      const lines = view === 'detail' ? (detail ? detailLines(detail, width).length : 0) : draftLines(draftText, width).length + (written ? 2 : 1);
      const maxScroll = Math.max(0, lines - bodyHeight);
      const scroll = view === 'detail' ? detailScroll : draftScroll;
      const set = (n: number) => (view === 'detail' ? setDetailScroll : setDraftScroll)(Math.max(0, Math.min(maxScroll, n)));
      switch (cmd) {
        case 'down':
          return set(scroll + 1);
        case 'up':
          return set(scroll - 1);
        case 'first':
          return set(0);
        case 'last':
          return set(maxScroll);
        case 'pageDown':
          return set(scroll + bodyHeight - 1);
        case 'pageUp':
          return set(scroll - bodyHeight + 1);
        case 'copyErrorId':
          return view === 'detail' ? copy('error_id', detail?.row.error_id) : undefined;
        case 'copyTraceId':
          return view === 'detail' ? copy('trace_id', detail?.row.trace_id) : undefined;
        default:
          return;
      }
    }
  }, () => modeRef.current !== 'normal');

  // ---- frame ----
  const windowLabel = `since ${windowSpec.since}${windowSpec.until ? ` until ${windowSpec.until}` : ''}`;
  let body;
  switch (view) {
    case 'issues':
      body = (
        <IssuesView
          page={issuePage}
          cursor={issueShown}
          top={issueSlice.top}
          sort={issueSort}
          query={query}
          filterInput={mode === 'filter' ? input : null}
          queryError={mode === 'filter' ? inputError : issueError}
          showDate={resolved.until - resolved.since > SHOW_DATE_AFTER_MS}
          width={width}
          height={bodyHeight}
          loading={issuePage === EMPTY_ISSUES && issueError === null}
        />
      );
      break;
    case 'errors':
      body = (
        <ErrorsView
          page={page}
          cursor={errCursor}
          marks={marks}
          histogram={histogram}
          query={query}
          filterInput={mode === 'filter' ? input : null}
          queryError={mode === 'filter' ? inputError : queryError}
          scope={scope}
          showDate={resolved.until - resolved.since > SHOW_DATE_AFTER_MS}
          codeWidth={codeWidth}
          clientWidth={clientWidth}
          sort={sort}
          width={width}
          height={bodyHeight}
          loading={page === EMPTY_PAGE && queryError === null}
        />
      );
      break;
    case 'detail':
      body = <DetailView detail={detail} scroll={detailScroll} width={width} height={bodyHeight} />;
      break;
    case 'storms':
      body = <StormsView storms={storms} cursor={stormCursor} top={stormSlice.top} width={width} height={bodyHeight} loading={storms === NO_STORMS_YET} />;
      break;
    case 'draft':
      body = (
        <DraftView
          title={draftTarget?.title ?? null}
          text={draftText}
          format={draftFormat}
          scroll={draftScroll}
          written={written}
          width={width}
          height={bodyHeight}
        />
      );
      break;
    default:
      body = <HelpView width={width} height={bodyHeight} />;
  }
  return (
    <Box flexDirection="column" width={width} height={frameHeight} overflow="hidden">
      <TitleBar view={view} width={width} />
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        {body}
      </Box>
      <StatusBar db={dbLabel} window={windowLabel} lastRefresh={refresh.at} gaps={gaps} message={message} width={width} />
      {mode === 'command' ? (
        <PromptBar prefix=":" value={input} editing width={width} error={inputError} />
      ) : (
        <HelpLine hints={HINTS[view]} width={width} />
      )}
    </Box>
  );
}
