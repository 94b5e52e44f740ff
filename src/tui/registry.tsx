/**
 * The view registry (issue 27): each view's name, whether it is a tab, its component and its
 * loader. `ViewName`, the title bar's tabs, Tab's order and the `:` view commands come from here.
 * Adding a view: its component (src/tui/views/), an entry here, its keys in keys.ts, and a
 * `TuiSource` method when it reads something new.
 */
import type { ReactElement } from 'react';
import { useRef } from 'react';
import { useAsync } from './hooks/use-async.js';
import { useDraft } from './hooks/use-draft.js';
import { useHighWater } from './hooks/use-high-water.js';
import type { Refresh } from './hooks/use-refresh.js';
import type { TuiSource } from './source.js';
import type {
  DraftDoc,
  DraftFormat,
  DraftTarget,
  ErrorDetailView,
  ErrorPage,
  ErrorSort,
  HistogramBucket,
  IssuePage,
  IssueSortKey,
  ResolvedWindow,
  StormView,
  WindowSpec,
} from './types.js';
import { DetailView, detailLines } from './views/DetailView.js';
import { DraftView, draftLines } from './views/DraftView.js';
import { clientWidthFor, codeWidthFor, ErrorsView, errorsLayout } from './views/ErrorsView.js';
import { HelpView } from './views/HelpView.js';
import { IssuesView, issuesLayout } from './views/IssuesView.js';
import { StormsView, stormsLayout } from './views/StormsView.js';

/** A list cursor: the highlighted row (or first shown line of scrolled text) and the first shown row. */
export interface ListCursor {
  readonly cursor: number;
  readonly top: number;
}

/** What is being drafted: the target, the Draft view's title and the stem of the file name. */
export interface DraftChoice {
  readonly target: DraftTarget;
  readonly title: string;
  readonly stem: string;
}

/** The navigation state the views and their loaders read (held by navigation.ts's reducer). */
export interface ViewInputs {
  readonly query: string;
  readonly window: WindowSpec;
  /** A drill-down scope shown over the Errors, e.g. `issue <key> <title>`. */
  readonly scope: string | null;
  /** The Errors' order; undefined: newest first. */
  readonly errorSort: ErrorSort | undefined;
  readonly issueSort: IssueSortKey;
  readonly detailId: string | null;
  readonly draft: DraftChoice | null;
  readonly format: DraftFormat;
  /** Path of the last draft written. */
  readonly written: string | null;
  readonly marks: ReadonlySet<string>;
  /** Each view's list cursor or scroll; absent: at the top. */
  readonly cursors: Readonly<Partial<Record<ViewName, ListCursor>>>;
  /** Bumped by `r`: re-reads what is not re-read on every refresh tick (storms, drafts). */
  readonly nonce: number;
}

/** What a loader reads. */
export interface DataContext extends ViewInputs {
  readonly source: TuiSource;
  /** The view showing; the others load nothing. */
  readonly view: ViewName;
  readonly resolved: ResolvedWindow;
  readonly refresh: Pick<Refresh, 'tick' | 'at'>;
  /** Lines of the body (the frame minus title, status and hint lines). */
  readonly height: number;
  readonly width: number;
  /** Epoch milliseconds. */
  readonly clock: () => number;
  /** Milliseconds the last list query took (the live refresh backs off on slow queries). */
  readonly queryCost: { current: number };
  /** The Issues page read before the first frame for the first window (`AppProps.firstIssues`), or null. */
  readonly firstIssues: IssuePage | null;
}

/** What a view's component is given: the loader's context, the prompt and its own cursor. */
export interface RenderContext extends DataContext {
  readonly prompt: { readonly mode: 'normal' | 'filter' | 'command'; readonly input: string; readonly error: string | null };
  /** The cursor as shown (clamped to the list). */
  readonly at: ListCursor;
  /** The `?` screen's key lines (from the keymap). */
  readonly helpLines: readonly (readonly [string, string])[];
}

/** One view. */
export interface ViewDef<T> {
  /** In the title bar's tabs, in Tab's cycle and a `:` command. */
  readonly tab: boolean;
  /** The tab highlighted while it shows, when not its own (Detail under Errors). */
  readonly under?: ViewName;
  /** The loader: called on every render of every view, it reads only while `c.view` is this view. */
  readonly useData: (c: DataContext) => T;
  /**
   * Its list (or scrolled text): the entries, the rows shown at once, and for a list read a page
   * at a time the page. Absent: no cursor.
   */
  readonly list?: (data: T, c: DataContext) => { readonly count: number; readonly rows: number; readonly page?: ErrorPage; readonly forTop?: number };
  readonly Component: (props: { readonly c: RenderContext; readonly data: T }) => ReactElement;
}

/** Each view's data. */
export interface ViewData {
  readonly issues: { readonly page: IssuePage; readonly error: string | null };
  readonly errors: {
    readonly page: ErrorPage;
    readonly histogram: readonly HistogramBucket[];
    readonly queryError: string | null;
    /** The `top` the page was read for (a page still loading for an earlier top is not clamped to). */
    readonly forTop: number;
    readonly codeWidth: number;
    readonly clientWidth: number;
  };
  readonly detail: ErrorDetailView | null;
  readonly storms: readonly StormView[];
  readonly draft: { readonly doc: DraftDoc | null; readonly text: string };
  readonly help: null;
}

/** Names of the views. */
export type ViewName = keyof ViewData;

/** The views the terminal UI may start in (`aap-triage tui`, `search --tui`, `storms --tui`). */
export type StartView = Extract<ViewName, 'issues' | 'errors' | 'storms'>;

/** The Errors view's order before any sort key: newest first. */
export const DEFAULT_SORT: ErrorSort = { by: 'time', descending: true };
const EMPTY_PAGE: ErrorPage = { rows: [], total: 0, offset: 0 };
const EMPTY_ISSUES: IssuePage = { issues: [], total: 0, bucketMs: 60_000, quietMs: 0 };
/** The storms before the store answered (by identity: the view says "loading", not "no storms"). */
const NO_STORMS_YET: StormView[] = [];
/** A window longer than this (one day, ms) shows the date in the time column. */
const SHOW_DATE_AFTER_MS = 86_400_000;

const showDate = (c: DataContext) => c.resolved.until - c.resolved.since > SHOW_DATE_AFTER_MS;
const topOf = (c: DataContext, view: ViewName) => c.cursors[view]?.top ?? 0;
const filterInput = (c: RenderContext) => (c.prompt.mode === 'filter' ? c.prompt.input : null);
/** Loads and clocks a list query (the refresh backs off when these are slow). */
async function timed<T>(c: DataContext, load: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const value = await load();
  c.queryCost.current = performance.now() - started;
  return value;
}

/** The views, in the title bar's and Tab's order for those that are tabs. */
export const VIEWS: { readonly [N in ViewName]: ViewDef<ViewData[N]> } = {
  issues: {
    tab: true,
    useData(c) {
      const last = useRef<IssuePage>(c.firstIssues ?? EMPTY_ISSUES);
      return useAsync(
        async () => {
          if (c.view !== 'issues') return { page: last.current, error: null };
          try {
            last.current = await timed(c, () => c.source.issues(c.query, c.resolved, c.issueSort));
            return { page: last.current, error: null };
          } catch (err) {
            return { page: last.current, error: (err as Error).message };
          }
        },
        // refresh.tick re-reads the store.
        [c.source, c.view, c.query, c.resolved, c.issueSort, c.refresh.tick],
        { page: last.current, error: null },
        c.firstIssues !== null,
      );
    },
    list: (d, c) => ({ count: d.page.issues.length, rows: issuesLayout(c.height).rows }),
    Component: ({ c, data }) => (
      <IssuesView
        page={data.page}
        cursor={c.at.cursor}
        top={c.at.top}
        sort={c.issueSort}
        query={c.query}
        filterInput={filterInput(c)}
        queryError={c.prompt.mode === 'filter' ? c.prompt.error : data.error}
        showDate={showDate(c)}
        width={c.width}
        height={c.height}
        loading={data.page === EMPTY_ISSUES && data.error === null}
      />
    ),
  },
  errors: {
    tab: true,
    useData(c) {
      const last = useRef<ErrorPage>(EMPTY_PAGE);
      const layout = errorsLayout(c.height);
      const top = topOf(c, 'errors');
      const data = useAsync(
        async () => {
          if (c.view !== 'errors') return { page: last.current, histogram: [], queryError: null, forTop: top };
          try {
            const { page, histogram } = await timed(c, async () => {
              let p = await c.source.search(c.query, c.resolved, layout.rows, top, c.errorSort);
              // The row set shrank under the shown slice (a narrower window, a refresh after a prune):
              // show its last page rather than an empty list; the list cursor moves top and cursor there.
              if (p.rows.length === 0 && p.total > 0 && top > 0) p = await c.source.search(c.query, c.resolved, layout.rows, Math.max(0, p.total - layout.rows), c.errorSort);
              return { page: p, histogram: layout.chart > 0 ? await c.source.histogram(c.query, c.resolved) : [] };
            });
            last.current = page;
            return { page, histogram, queryError: null, forTop: top };
          } catch (err) {
            return { page: last.current, histogram: [], queryError: (err as Error).message, forTop: top };
          }
        },
        // refresh.tick re-reads the store.
        [c.source, c.view, c.query, c.resolved, layout.rows, layout.chart, top, c.errorSort, c.refresh.tick],
        { page: EMPTY_PAGE, histogram: [], queryError: null, forTop: 0 },
      );
      // The code column only grows while the filter, window and order stay: it does not jump as the operator scrolls.
      const listKey = `${c.query}|${c.window.since}|${c.window.until ?? ''}|${c.errorSort?.by ?? ''}`;
      const codeWidth = useHighWater(codeWidthFor(data.page.rows), listKey);
      const clientWidth = useHighWater(clientWidthFor(data.page.rows), listKey);
      return { ...data, codeWidth, clientWidth };
    },
    list: (d, c) => ({ count: d.page.total, rows: errorsLayout(c.height).rows, page: d.page, forTop: d.forTop }),
    Component: ({ c, data }) => (
      <ErrorsView
        page={data.page}
        cursor={c.at.cursor}
        marks={c.marks}
        histogram={data.histogram}
        query={c.query}
        filterInput={filterInput(c)}
        queryError={c.prompt.mode === 'filter' ? c.prompt.error : data.queryError}
        scope={c.scope}
        showDate={showDate(c)}
        codeWidth={data.codeWidth}
        clientWidth={data.clientWidth}
        sort={c.errorSort}
        width={c.width}
        height={c.height}
        loading={data.page === EMPTY_PAGE && data.queryError === null}
      />
    ),
  },
  detail: {
    tab: false,
    under: 'errors',
    useData: (c) =>
      useAsync<ErrorDetailView | null>(
        async () => (c.view === 'detail' && c.detailId ? c.source.detail(c.detailId).catch(() => null) : null),
        [c.source, c.view, c.detailId],
        null,
      ),
    list: (d, c) => ({ count: Math.max(1, (d ? detailLines(d, c.width).length : 0) - c.height + 1), rows: c.height }),
    Component: ({ c, data }) => <DetailView detail={data} scroll={c.at.cursor} width={c.width} height={c.height} />,
  },
  storms: {
    tab: true,
    useData(c) {
      // The last list stays while another view is shown, so Esc back from a storm's errors finds
      // the same rows and selection at once (`d` drafts it) while the list is re-read.
      const last = useRef<readonly StormView[]>(NO_STORMS_YET);
      return useAsync<readonly StormView[]>(
        async () => {
          if (c.view !== 'storms') return last.current;
          last.current = await c.source.storms(c.resolved).catch(() => []);
          return last.current;
        },
        // Storm detection over a long window is the slowest query there is (seconds for 24 h on a
        // 10-million-row store): re-run every 15th refresh (30 s), on `r`, or when the window moves.
        [c.source, c.view, c.window, c.nonce, Math.floor(c.refresh.tick / 15)],
        last.current,
      );
    },
    list: (d, c) => ({ count: d.length, rows: stormsLayout(c.height).rows }),
    Component: ({ c, data }) => <StormsView storms={data} cursor={c.at.cursor} top={c.at.top} width={c.width} height={c.height} loading={data === NO_STORMS_YET} />,
  },
  draft: {
    tab: true,
    // Drafts are re-read on `r` (nonce), not on every refresh tick: the text would jump.
    useData: (c) =>
      useDraft({ source: c.source, active: c.view === 'draft', target: c.draft, window: c.resolved, now: c.refresh.at, nonce: c.nonce, format: c.format, clock: c.clock }),
    list: (d, c) => ({ count: Math.max(1, draftLines(d.text, c.width).length + (c.written ? 2 : 1) - c.height + 1), rows: c.height }),
    Component: ({ c, data }) => (
      <DraftView title={c.draft?.title ?? null} text={data.text} format={c.format} scroll={c.at.cursor} written={c.written} width={c.width} height={c.height} />
    ),
  },
  help: {
    tab: false,
    useData: () => null,
    Component: ({ c }) => <HelpView lines={c.helpLines} width={c.width} height={c.height} />,
  },
};

/** Every view name, in the registry's order. */
export const VIEW_NAMES = Object.keys(VIEWS) as ViewName[];

/** The views reachable with Tab (and shown as tabs, and `:` commands), in Tab order. */
export const TAB_VIEWS: readonly ViewName[] = VIEW_NAMES.filter((v) => VIEWS[v].tab);

/** The tab that shows as current while `view` shows. */
export const tabOf = (view: ViewName): ViewName => VIEWS[view].under ?? view;

/**
 * Every view's data, loaded by the registry's loaders (each reads only while its view shows).
 * The registry is a constant, so the hooks run in the same order on every render.
 */
export function useViewData(c: DataContext): ViewData {
  const data: Partial<Record<ViewName, unknown>> = {};
  for (const name of VIEW_NAMES) data[name] = (VIEWS[name] as ViewDef<unknown>).useData(c);
  return data as unknown as ViewData;
}
