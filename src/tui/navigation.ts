/**
 * The navigation state of the terminal UI as a pure reducer (issue 27): which views are stacked,
 * the filter, window and drill-down scope, each view's cursor, the marks, the draft being made,
 * the prompt and the status message. No I/O and no React: `navigate(state, action)` is tested
 * with plain values (test/tui/navigation.test.ts); App holds it with `useSyncReducer`.
 */
import type { DraftChoice, ListCursor, ViewInputs, ViewName } from './registry.js';
import type { DraftFormat, ErrorSort, IssueSortKey, WindowSpec } from './types.js';

/** One entry of the view stack. */
export interface StackEntry {
  readonly view: ViewName;
  /** Filter, window and scope to restore when this entry is left with Esc (a drill-down). */
  readonly restore?: { readonly query: string; readonly window: WindowSpec; readonly scope: string | null };
}

/** The status line's message. */
export type Message = { readonly text: string; readonly kind: 'ok' | 'problem' | 'info' } | null;

/** The filter or command prompt. */
export interface Prompt {
  readonly mode: 'normal' | 'filter' | 'command';
  readonly input: string;
  /** What is wrong with the text submitted, shown on the prompt. */
  readonly error: string | null;
}

/** The whole navigation state. */
export interface NavState extends ViewInputs {
  /** Never empty; the last entry shows. */
  readonly stack: readonly StackEntry[];
  readonly prompt: Prompt;
  readonly message: Message;
}

/** Draft formats in the order `f` cycles through them. */
export const FORMATS: readonly DraftFormat[] = ['text', 'md', 'eml'];

/** What can happen to the navigation state. */
export type NavAction =
  /** Shows a view alone (Tab, `:issues`): the stack and the drill-down scope go. */
  | { readonly type: 'goTo'; readonly view: ViewName }
  | { readonly type: 'push'; readonly view: ViewName }
  /** Esc: leaves the top view (restoring a drill-down's filter), else clears the marks, else the filter. */
  | { readonly type: 'back' }
  /** Any key on the help: back to the view below (issue 28). */
  | { readonly type: 'closeHelp' }
  /** Opens the Errors under another filter (and window), Esc coming back (an issue's or a storm's errors). */
  | { readonly type: 'drill'; readonly query: string; readonly window?: WindowSpec; readonly scope: string }
  | { readonly type: 'filter'; readonly query: string }
  /** A new window; the Errors and Storms go to the top unless `keepCursors` (`:until`). */
  | { readonly type: 'window'; readonly window: WindowSpec; readonly keepCursors?: boolean }
  | { readonly type: 'cursor'; readonly view: ViewName; readonly at: ListCursor }
  | { readonly type: 'mark'; readonly id: string }
  | { readonly type: 'openDetail'; readonly id: string }
  /** Chooses what to draft; `show` also opens the Draft view (pushed) or makes it the only one (goTo). */
  | { readonly type: 'draft'; readonly choice: DraftChoice; readonly show?: 'push' | 'goTo' }
  /** A format, or the next one (`f`, which also scrolls to the top). */
  | { readonly type: 'format'; readonly format?: DraftFormat }
  | { readonly type: 'written'; readonly file: string }
  | { readonly type: 'sortErrors'; readonly sort: ErrorSort | undefined }
  | { readonly type: 'sortIssues'; readonly by: IssueSortKey }
  | { readonly type: 'refresh' }
  | { readonly type: 'say'; readonly message: Message }
  | { readonly type: 'prompt'; readonly prompt: Partial<Prompt> };

/** The state a UI opens with. */
export function initialNav(view: ViewName, query: string, window: WindowSpec): NavState {
  return {
    stack: [{ view }],
    query,
    window,
    scope: null,
    errorSort: undefined,
    issueSort: 'count',
    detailId: null,
    draft: null,
    format: 'text',
    written: null,
    marks: new Set(),
    cursors: {},
    nonce: 0,
    prompt: { mode: 'normal', input: '', error: null },
    message: null,
  };
}

/** The view showing. */
export const currentView = (s: NavState): ViewName => s.stack[s.stack.length - 1]?.view ?? 'errors';

const TOP: ListCursor = { cursor: 0, top: 0 };
const atTop = (s: NavState, ...views: ViewName[]): NavState['cursors'] => ({ ...s.cursors, ...Object.fromEntries(views.map((v) => [v, TOP])) });

/** The next state. Pure. */
export function navigate(s: NavState, a: NavAction): NavState {
  switch (a.type) {
    case 'goTo':
      return { ...s, stack: [{ view: a.view }], scope: null };
    case 'push':
      return { ...s, stack: [...s.stack, { view: a.view }] };
    case 'closeHelp':
      return { ...s, stack: s.stack.length > 1 ? s.stack.slice(0, -1) : [{ view: 'errors' }] };
    case 'back': {
      const top = s.stack[s.stack.length - 1];
      if (s.stack.length > 1) {
        const left = { ...s, stack: s.stack.slice(0, -1) };
        return top?.restore ? { ...left, ...top.restore, cursors: atTop(s, 'errors') } : left;
      }
      const view = currentView(s);
      if (view !== 'errors' && view !== 'issues') return navigate(s, { type: 'goTo', view: 'errors' });
      if (s.marks.size > 0) return { ...s, marks: new Set(), message: { text: 'marks cleared', kind: 'info' } };
      return s.query ? navigate(s, { type: 'filter', query: '' }) : s;
    }
    case 'drill':
      return {
        ...s,
        stack: [...s.stack, { view: 'errors', restore: { query: s.query, window: s.window, scope: s.scope } }],
        query: a.query,
        window: a.window ?? s.window,
        scope: a.scope,
        cursors: atTop(s, 'errors'),
      };
    case 'filter':
      return { ...s, query: a.query, cursors: atTop(s, 'errors') };
    case 'window':
      return { ...s, window: a.window, cursors: a.keepCursors ? s.cursors : atTop(s, 'errors', 'storms') };
    case 'cursor':
      return { ...s, cursors: { ...s.cursors, [a.view]: a.at } };
    case 'mark': {
      const marks = new Set(s.marks);
      if (marks.has(a.id)) marks.delete(a.id);
      else marks.add(a.id);
      return { ...s, marks };
    }
    case 'openDetail':
      return { ...navigate(s, { type: 'push', view: 'detail' }), detailId: a.id, cursors: atTop(s, 'detail') };
    case 'draft': {
      const chosen = { ...s, draft: a.choice, written: null, cursors: atTop(s, 'draft') };
      return a.show ? navigate(chosen, { type: a.show, view: 'draft' }) : chosen;
    }
    case 'format':
      if (a.format) return { ...s, format: a.format };
      return { ...s, format: FORMATS[(FORMATS.indexOf(s.format) + 1) % FORMATS.length] ?? 'text', cursors: atTop(s, 'draft') };
    case 'written':
      return { ...s, written: a.file, message: { text: `wrote ${a.file}`, kind: 'ok' } };
    case 'sortErrors':
      return { ...s, errorSort: a.sort, cursors: atTop(s, 'errors') };
    case 'sortIssues':
      return { ...s, issueSort: a.by, cursors: atTop(s, 'issues') };
    case 'refresh':
      return { ...s, nonce: s.nonce + 1, message: { text: 'refreshed', kind: 'info' } };
    case 'say':
      return s.message === a.message ? s : { ...s, message: a.message };
    case 'prompt':
      return { ...s, prompt: { ...s.prompt, ...a.prompt } };
  }
}
