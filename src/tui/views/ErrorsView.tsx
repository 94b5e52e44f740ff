import { Box, Text } from 'ink';
import { Histogram } from '../components/Histogram.js';
import { PromptBar } from '../components/PromptBar.js';
import { type Column, Table } from '../components/Table.js';
import { retryableColor, retryableLabel, theme } from '../theme.js';
import type { ErrorPage, ErrorRowView, HistogramBucket } from '../types.js';
import { fit } from '../utils/cells.js';
import { formatClock, formatFlags, formatTime, shortPseudonym } from '../utils/format.js';

/** How the Errors view splits `height` lines: chart rows and table rows. */
export function errorsLayout(height: number): { chart: number; rows: number } {
  // filter bar + table header + footer = 3 fixed lines; the chart gets a legend line on top.
  const chart = height >= 16 ? 4 : height >= 11 ? 2 : 0;
  const chartLines = chart > 0 ? chart + 1 : 0;
  return { chart, rows: Math.max(1, height - 3 - chartLines) };
}

/**
 * The columns of the Errors table (issue 6), widths in display cells. The date is left out of
 * the time when the window is at most a day (the status line gives it), so a narrow terminal
 * keeps six more cells for the code.
 */
export function errorColumns(showDate: boolean): readonly Column<ErrorRowView>[] {
  return showDate ? ERROR_COLUMNS : SHORT_TIME_COLUMNS;
}

/** The Errors columns with `MM-DD HH:MM:SS` times. */
export const ERROR_COLUMNS: readonly Column<ErrorRowView>[] = [
  { title: 'time', min: 14, value: (r) => formatTime(r.occurred_at) },
  { title: 'code', min: 12, max: 26, value: (r) => r.code, color: (r) => retryableColor(r.retryable) },
  { title: 'retry', min: 5, value: (r) => retryableLabel(r.retryable), color: (r) => retryableColor(r.retryable) },
  { title: 'skill', min: 10, max: 22, value: (r) => r.skill ?? '—' },
  { title: 'proto', min: 6, value: (r) => r.protocol },
  { title: 'client', min: 8, value: (r) => shortPseudonym(r.client), color: () => theme.muted },
  { title: 'att', min: 3, align: 'right', value: (r) => String(r.attempt) },
  { title: 'flags', min: 6, max: 10, value: (r) => formatFlags(r.retry_flags), color: () => theme.flag },
  { title: 'error_id', min: 13, max: 36, keep: 'end', value: (r) => r.error_id, color: () => theme.muted },
];

const SHORT_TIME_COLUMNS: readonly Column<ErrorRowView>[] = [
  { title: 'time', min: 8, value: (r) => formatClock(r.occurred_at) },
  ...ERROR_COLUMNS.slice(1),
];

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
  readonly width: number;
  /** Lines this view may use. */
  readonly height: number;
}

/** The newest errors: filter bar, histogram per minute, the visible rows, and the row count. */
export function ErrorsView(props: ErrorsViewProps) {
  const { page, cursor, marks, histogram, query, filterInput, queryError, scope, width, height, showDate = true } = props;
  const { chart, rows } = errorsLayout(height);
  const shown = page.rows.slice(0, rows);
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + shown.length;
  const footer =
    `rows ${first}–${last} of ${page.total}` + (marks.size > 0 ? ` · ${marks.size} marked` : '') + (scope ? ` · ${scope}` : '');
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
        columns={errorColumns(showDate)}
        rows={shown}
        cursor={cursor - page.offset}
        width={width}
        rowKey={(r) => r.error_id}
        isMarked={(r) => marks.has(r.error_id)}
        height={rows}
      />
      <Text color={theme.muted} wrap="truncate">
        {fit(page.total === 0 ? `${footer} · no errors match in the window` : footer, width)}
      </Text>
    </Box>
  );
}
