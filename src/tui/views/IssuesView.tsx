import { Box, Text } from 'ink';
import { PromptBar } from '../components/PromptBar.js';
import { type Column, Table } from '../components/Table.js';
import { ISSUE_SORT_KEYS, sortHint } from '../sort-keys.js';
import { retryableColor, retryableLabel, theme } from '../theme.js';
import { LONGEST_CODE_LENGTH } from '../../triage/codes.js';
import { formatDuration } from '../../triage/time.js';
import type { IssuePage, IssueRowView, IssueSortKey } from '../types.js';
import { cells, fit } from '../utils/cells.js';
import { sparkline } from '../utils/charts.js';
import { formatClock, formatTime, LOADING_TEXT } from '../utils/format.js';

/** Table rows the Issues view shows in `height` lines (filter bar, header and footer take three). */
export function issuesLayout(height: number): { rows: number } {
  return { rows: Math.max(1, height - 3) };
}

/** The colour of an issue state, by meaning: new is news, regressed a warning, ongoing known. */
function stateColor(state: IssueRowView['state']): string {
  return state === 'new' ? theme.problem : state === 'regressed' ? theme.warning : theme.muted;
}

/** The state cell: the operator's `resolved` / `muted` when set, else new / regressed / ongoing (issue 29). */
function shownState(i: IssueRowView): string {
  return i.status === 'resolved' || i.status === 'muted' ? i.status : i.state;
}

/** One Issues column; `sort` names the order it is sorted by, when it can be. */
interface IssueColumn extends Column<IssueRowView> {
  readonly sort?: IssueSortKey;
}

/** Most cells the `where` column asks for even when a value is longer (then it is cut with …). */
const WHERE_MAX = 64;

/**
 * The columns of the Issues table, in the order they give way on a narrow terminal (the last
 * first; a column is shown whole or not at all): state, count, clients, code, retryable, where
 * (skill or method · service), last and first seen, the trend, then the key — so at 80 columns
 * every row keeps what tells it apart (code and skill or method; issue 28). Widths come from what
 * the listed rows need: `codeWidth` is the widest code, `where` is at least the widest skill or
 * method and grows to its widest value; the trend no wider than its buckets; spare cells go in
 * column order, so at 160 columns `where` gets its room before the trend. The sorted column's
 * title carries `↓`.
 */
export function issueColumns(showDate: boolean, codeWidth: number, sort: IssueSortKey, issues: readonly IssueRowView[] = []): readonly IssueColumn[] {
  const time = (ms: number) => (showDate ? formatTime(ms) : formatClock(ms));
  const tw = showDate ? 14 : 8;
  const whereText = (i: IssueRowView) => `${i.where} · ${i.service} (${i.protocol})`;
  const whereMin = Math.min(WHERE_MAX, Math.max(cells('where'), ...issues.map((i) => cells(i.where))));
  const whereMax = Math.min(WHERE_MAX, Math.max(whereMin, ...issues.map((i) => cells(whereText(i)))));
  const trendMax = Math.max(5, Math.min(24, ...issues.map((i) => i.trend.length)));
  const cols: IssueColumn[] = [
    { title: 'state', min: Math.max(cells('state'), ...issues.map((i) => cells(shownState(i)))), value: shownState, color: (i) => stateColor(i.state) },
    { title: 'count', min: 5, align: 'right', value: (i) => String(i.count), sort: 'count' },
    { title: 'clients', min: 7, align: 'right', value: (i) => String(i.clients) },
    { title: 'code', min: codeWidth, value: (i) => i.code, color: (i) => retryableColor(i.retryable) },
    { title: 'retry', min: 5, value: (i) => retryableLabel(i.retryable), color: (i) => retryableColor(i.retryable) },
    { title: 'where', min: whereMin, max: whereMax, value: whereText },
    { title: 'last', min: tw, value: (i) => time(i.last_seen), sort: 'last_seen' },
    { title: 'first', min: tw, value: (i) => time(i.first_seen), sort: 'first_seen' },
    { title: 'trend', min: 5, max: trendMax, value: (i, w) => sparkline(i.trend, w), color: () => theme.flag },
    { title: 'issue', min: 16, value: (i) => i.key, color: () => theme.muted },
  ];
  return cols.map((col) => {
    // A muted issue is still listed and counted, dimmed (issue 29).
    const c: IssueColumn = { ...col, color: (i) => (i.status === 'muted' ? theme.muted : col.color?.(i)) };
    if (c.sort !== sort) return c;
    const title = `${c.title}↓`;
    const min = Math.max(c.min, cells(title));
    return { ...c, title, min, max: Math.max(min, c.max ?? c.min) };
  });
}

/** The code column width for `issues`: the widest code, at least the title, at most the longest in the tables. */
export function issueCodeWidth(issues: readonly IssueRowView[]): number {
  return Math.min(LONGEST_CODE_LENGTH, Math.max(cells('code'), ...issues.map((i) => cells(i.code))));
}

/** Props of `IssuesView`. */
export interface IssuesViewProps {
  readonly page: IssuePage;
  /** Index of the highlighted issue in `page.issues`. */
  readonly cursor: number;
  /** First visible issue. */
  readonly top: number;
  readonly sort: IssueSortKey;
  /** The applied filter. */
  readonly query: string;
  /** Non-null while the operator edits the filter. */
  readonly filterInput: string | null;
  readonly queryError: string | null;
  /** Show dates in the time columns (windows longer than a day). */
  readonly showDate: boolean;
  readonly width: number;
  readonly height: number;
  /** True until the first answer of the store arrives: the footer says so, never a false "no issues". @default false */
  readonly loading?: boolean;
}

/**
 * Errors grouped into issues (Sentry style), busiest first by default: state, count, clients,
 * code, retryable, last and first seen, trend over the window; Enter lists an issue's errors.
 */
export function IssuesView(props: IssuesViewProps) {
  const { page, cursor, top, sort, query, filterInput, queryError, showDate, width, height, loading = false } = props;
  const { rows } = issuesLayout(height);
  const shown = page.issues.slice(top, top + rows);
  const listed = page.issues.length;
  const footer = loading
    ? LOADING_TEXT
    : (listed === 0
      ? 'no issues in the window'
      : `issues ${top + 1}–${top + shown.length} of ${page.total}${listed < page.total ? ` (the first ${listed} listed)` : ''}`) +
      ` · sort: ${sortHint(ISSUE_SORT_KEYS)} · trend ${formatDuration(page.bucketMs)}/cell · regressed: back after ${formatDuration(page.quietMs)} quiet`;
  return (
    <Box flexDirection="column">
      <PromptBar
        prefix="/"
        value={filterInput ?? query}
        editing={filterInput !== null}
        placeholder="filter the errors grouped: protocol:dmc12 code:RATE_LIMITED …"
        error={queryError}
        width={width}
      />
      <Table
        columns={issueColumns(showDate, issueCodeWidth(page.issues), sort, page.issues)}
        rows={shown}
        cursor={cursor - top}
        width={width}
        rowKey={(i) => i.key}
        height={rows}
      />
      <Text color={theme.muted} wrap="truncate">
        {fit(footer, width)}
      </Text>
    </Box>
  );
}
