import { Box, useApp, useStdout } from 'ink';
import { type ReactElement, useMemo, useRef } from 'react';
import { handleKey } from './actions.js';
import { HelpLine } from './components/HelpLine.js';
import { PromptBar } from './components/PromptBar.js';
import { StatusBar } from './components/StatusBar.js';
import { TitleBar } from './components/TitleBar.js';
import { useAsync } from './hooks/use-async.js';
import { useKeys } from './hooks/use-keys.js';
import { useListCursors } from './hooks/use-list-cursor.js';
import { useRefresh } from './hooks/use-refresh.js';
import { useSyncReducer } from './hooks/use-sync-state.js';
import { useTerminalSize } from './hooks/use-terminal-size.js';
import { helpLines, hintsFor } from './keys.js';
import { currentView, initialNav, navigate } from './navigation.js';
import { type DataContext, type RenderContext, type StartView, useViewData, VIEWS } from './registry.js';
import { filterWindow, type TuiSource } from './source.js';
import type { GapSummary, IssuePage, WindowSpec } from './types.js';

export { deleteWordBefore, issueQuery } from './actions.js';
export type { ViewName } from './registry.js';

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
  readonly view?: StartView;
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
  /**
   * The Issues view's first page, read before the UI mounted (`runTui` reads it while the
   * renderer loads) for `window` and `query` resolved at `at` (epoch ms) in the default order:
   * the first frame shows it rather than the loading line, and it is not read again.
   */
  readonly firstIssues?: { readonly at: number; readonly page: IssuePage };
}

const NO_GAPS: GapSummary = { records: 0, dropped: 0, inWindow: 0, newest: null };
/** The `?` screen's key lines: the keymap's, fixed for the life of the process. */
const HELP_LINES = helpLines();

/**
 * The terminal UI (issue 6): a title bar with the registry's tabs, the current view, a status
 * line and the key hints. It composes the parts of issue 27 — navigation state (navigation.ts,
 * a pure reducer), the views and their loaders (registry.tsx), one list cursor per view
 * (use-list-cursor.ts), the keymap (keys.ts) and what its keys do (actions.ts) — and reads data
 * through `source` only. The frame is at most `rows - 1` lines so ink never switches to its
 * clear-the-screen path and the scrollback survives.
 */
export function App(props: AppProps) {
  const { source, dbLabel, refreshMs = 2000, draftDir = process.cwd(), clock = Date.now } = props;
  const app = useApp();
  const { stdout } = useStdout();
  const { columns, rows } = useTerminalSize(props.size, props.terminal);
  // Live refresh backs off on a big window: never spend more than a tenth of the time querying
  // (a 7-day count and histogram on a 10-million-row store takes seconds; the keys must stay live).
  const queryCost = useRef(0);
  const refresh = useRefresh(refreshMs > 0 ? Math.max(refreshMs, Math.ceil(queryCost.current * 10)) : 0, clock, props.firstIssues?.at);
  const [nav, dispatch, navRef] = useSyncReducer(navigate, () => initialNav(props.view ?? 'issues', props.query ?? '', props.window ?? { since: '1h' }));
  const view = currentView(nav);
  // Never as tall as the terminal: ink clears the whole screen (scrollback too) when it is.
  const frameHeight = Math.max(6, rows - 1);
  const height = frameHeight - 3;
  const width = Math.max(20, columns);

  // Recomputed on refresh ticks; identical output means ink writes nothing.
  const resolved = useMemo(() => filterWindow(source, nav.window, nav.query, refresh.at), [source, nav.window, nav.query, refresh.at]);
  const c: DataContext = { ...nav, source, view, resolved, refresh, height, width, clock, queryCost, firstIssues: props.firstIssues?.page ?? null };
  const data = useViewData(c);
  const lists = useListCursors(c, data, dispatch);
  const gaps = useAsync<GapSummary>(() => source.gaps(resolved), [source, resolved], NO_GAPS);

  useKeys(
    (input, key) =>
      handleKey(input, key, {
        nav: navRef.current,
        dispatch,
        data,
        lists,
        source,
        resolved,
        refreshNow: refresh.now,
        exit: app.exit,
        copyTo: { stdout: props.terminal ?? stdout, env: props.env ?? process.env },
        draftDir,
        clock,
      }),
    () => navRef.current.prompt.mode !== 'normal',
  );

  const Body = VIEWS[view].Component as (p: { readonly c: RenderContext; readonly data: unknown }) => ReactElement;
  const windowLabel = `since ${nav.window.since}${nav.window.until ? ` until ${nav.window.until}` : ''}`;
  return (
    <Box flexDirection="column" width={width} height={frameHeight} overflow="hidden">
      <TitleBar view={view} width={width} />
      <Box flexDirection="column" height={height} overflow="hidden">
        <Body c={{ ...c, prompt: nav.prompt, at: lists[view].at, helpLines: HELP_LINES }} data={data[view]} />
      </Box>
      <StatusBar db={dbLabel} window={windowLabel} lastRefresh={refresh.at} gaps={gaps} message={nav.message} width={width} />
      {nav.prompt.mode === 'command' ? (
        <PromptBar prefix=":" value={nav.prompt.input} editing width={width} error={nav.prompt.error} />
      ) : (
        <HelpLine hints={hintsFor(view)} width={width} />
      )}
    </Box>
  );
}

