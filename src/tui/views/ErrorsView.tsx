import { Box, Text } from 'ink';
import { LOADING_TEXT } from '../utils/format.js';
import { Histogram } from '../components/Histogram.js';
import { PromptBar } from '../components/PromptBar.js';
import { type Column, Table } from '../components/Table.js';
import { retryableColor, retryableLabel, theme } from '../theme.js';
import { SORT_KEYS, sortHint } from '../sort-keys.js';
import { LONGEST_CODE_LENGTH } from '../../triage/codes.js';
import type { ErrorPage, ErrorRowView, ErrorSort, ErrorSortKey, HistogramBucket } from '../types.js';
import { cells, fit } from '../utils/cells.js';
import { formatClock, formatFlags, formatTime } from '../utils/format.js';

/** How the Errors view splits `height` lines: chart rows and table rows. */
export function errorsLayout(height: number): { chart: number; rows: number } {
  // filter bar + table header + footer = 3 fixed lines; the chart gets a legend line on top.
  const chart = height >= 16 ? 4 : height >= 11 ? 2 : 0;
  const chartLines = chart > 0 ? chart + 1 : 0;
  return { chart, rows: Math.max(1, height - 3 - chartLines) };
}

/** One Errors column; `sort` names the key it is sorted by, when it can be. */
export interface ErrorColumn extends Column<ErrorRowView> {
  readonly sort?: ErrorSortKey;
}

/**
 * The columns of the Errors table (issue 6), widths in display cells, in the order they give
 * way on a narrow terminal (the last first: a column is shown whole or not at all). The code
 * column is sized by {@link errorColumns} so a code is never cut.
 */
export const ERROR_COLUMNS: readonly ErrorColumn[] = [
  { title: 'time', min: 14, value: (r) => formatTime(r.occurred_at), sort: 'time' },
  { title: 'code', min: 4, value: (r) => r.code, color: (r) => retryableColor(r.retryable), sort: 'code' },
  { title: 'retry', min: 5, value: (r) => retryableLabel(r.retryable), color: (r) => retryableColor(r.retryable), sort: 'retryable' },
  { title: 'skill', min: 10, max: 22, value: (r) => r.skill ?? '—', sort: 'skill' },
  { title: 'proto', min: 6, value: (r) => r.protocol, sort: 'protocol' },
  { title: 'client', min: 8, value: (r) => r.client_shown, color: () => theme.muted, sort: 'client' },
  { title: 'att', min: 3, align: 'right', value: (r) => String(r.attempt), sort: 'attempt' },
  { title: 'flags', min: 6, max: 10, value: (r) => formatFlags(r.retry_flags), color: () => theme.flag },
  { title: 'error_id', min: 13, max: 36, keep: 'end', value: (r) => r.error_id, color: () => theme.muted },
];

const SHORT_TIME: ErrorColumn = { title: 'time', min: 8, value: (r) => formatClock(r.occurred_at), sort: 'time' };

/**
 * The Errors columns for one screen:
 * - the time with its date only when the window is longer than a day (the status line gives it);
 * - the code column exactly `codeWidth` cells (the widest code shown, at most the longest code
 *   in the code tables), so `CONTACT_CONSENT_REQUIRED` stays whole at 80 columns;
 * - the sorted column's title with `↑` or `↓` (k9s style), its width grown to hold the arrow.
 */
export function errorColumns(showDate: boolean, codeWidth = LONGEST_CODE_LENGTH, sort?: ErrorSort, clientWidth = 8): readonly ErrorColumn[] {
  const base = showDate ? ERROR_COLUMNS : [SHORT_TIME, ...ERROR_COLUMNS.slice(1)];
  const by = sort?.by ?? 'time';
  return base.map((c) => {
    let col: ErrorColumn = c.title === 'code' ? { ...c, min: Math.max(c.min, codeWidth), max: Math.max(c.min, codeWidth) } : c;
    // A labelled client (`Acme Motors (AbCdEfGh)`) may take up to its width when there is room.
    if (c.title === 'client') col = { ...c, max: Math.max(c.min, Math.min(MAX_CLIENT_CELLS, clientWidth)) };
    if (col.sort === by) {
      const title = `${col.title}${(sort?.descending ?? true) ? '↓' : '↑'}`;
      const min = Math.max(col.min, cells(title));
      col = { ...col, title, min, max: Math.max(min, col.max ?? col.min) };
    }
    return col;
  });
}

/** Most cells the client column grows to for a labelled client. */
const MAX_CLIENT_CELLS = 28;

/** The widest client as shown among `rows`, in cells. */
export function clientWidthFor(rows: readonly ErrorRowView[]): number {
  return Math.max(0, ...rows.map((r) => cells(r.client_shown)));
}

/** The code column width for `rows`: the widest code, at least the title, at most {@link LONGEST_CODE_LENGTH}. */
export function codeWidthFor(rows: readonly ErrorRowView[]): number {
  return Math.min(LONGEST_CODE_LENGTH, Math.max(cells('code'), ...rows.map((r) => cells(r.code))));
}

/** Props of `ErrorsView`. */
export interface ErrorsViewProps {
  /** The visible page only (offset = first visible row). */
  readonly page: ErrorPage;
  /** Absolute index of the cursor in the full result. */
  readonly cursor: number;
  readonly marks: ReadonlySet<string>;
  readonly histogram: readonly HistogramBucket[];
  /** The applied filter (query language of `aap-triage search`). */
  readonly query: string;
  /** Non-null while the operator edits the filter. */
  readonly filterInput: string | null;
  readonly queryError: string | null;
  /** A drill-down scope, e.g. `storm st_… 10:02–10:14`. */
  readonly scope: string | null;
  /** Show the date in the time column (windows longer than a day). @default true */
  readonly showDate?: boolean;
  /** Cells of the code column (see `errorColumns`). @default LONGEST_CODE_LENGTH */
  readonly codeWidth?: number;
  /** The order of the rows, shown as an arrow on the sorted column. @default newest first */
  readonly sort?: ErrorSort;
  /** Cells the client column may grow to (the widest labelled client seen). @default 8 */
  readonly clientWidth?: number;
  readonly width: number;
  /** Lines this view may use. */
  readonly height: number;
  /** True until the first answer of the store arrives: the footer says so rather than "no errors". @default false */
  readonly loading?: boolean;
}

/** The newest errors: filter bar, histogram per minute, the visible rows, and the row count. */
export function ErrorsView(props: ErrorsViewProps) {
  const { page, cursor, marks, histogram, query, filterInput, queryError, scope, width, height, showDate = true, codeWidth, sort, clientWidth, loading = false } = props;
  const { chart, rows } = errorsLayout(height);
  const shown = page.rows.slice(0, rows);
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + shown.length;
  const footer =
    `rows ${first}–${last} of ${page.total}` +
    (marks.size > 0 ? ` · ${marks.size} marked` : '') +
    (scope ? ` · ${scope}` : '') +
    ` · sort: ${sortHint(SORT_KEYS)}`;
  return (
    <Box flexDirection="column">
      <PromptBar
        prefix="/"
        value={filterInput ?? query}
        editing={filterInput !== null}
        placeholder="filter: code:RATE_LIMITED skill:lead.submit retryable:false …"
        error={queryError}
        width={width}
      />
      {chart > 0 ? <Histogram buckets={histogram} width={width} height={chart} /> : null}
      <Table
        columns={errorColumns(showDate, codeWidth, sort, clientWidth)}
        rows={shown}
        cursor={cursor - page.offset}
        width={width}
        rowKey={(r) => r.error_id}
        isMarked={(r) => marks.has(r.error_id)}
        height={rows}
      />
      <Text color={theme.muted} wrap="truncate">
        {fit(loading ? LOADING_TEXT : page.total === 0 ? `${footer} · no errors match in the window` : footer, width)}
      </Text>
    </Box>
  );
}
