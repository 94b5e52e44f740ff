import { Box, Text } from 'ink';
import { type Column, Table } from '../components/Table.js';
import { theme } from '../theme.js';
import type { StormView } from '../types.js';
import { cells, fit } from '../utils/cells.js';
import { sparkline } from '../utils/charts.js';
import { formatDuration } from '../../triage/time.js';
import { formatFlagCounts, formatRatio, formatTime, LOADING_TEXT } from '../utils/format.js';

/** Table rows the Storms view shows in `height` lines (header and footer take two). */
export function stormsLayout(height: number): { rows: number } {
  return { rows: Math.max(1, height - 2) };
}

/** Most cells the sparkline column takes (one per minute up to this, then peaks of several). */
const SPARK_MAX = 20;

/** A Storms column; `widest` is the cells a row's value wants (default: its text's width). */
export interface StormColumn extends Column<StormView> {
  readonly widest?: (s: StormView) => number;
}

/**
 * The columns of the Storms table, most telling first (what is cut on a narrow terminal comes
 * last): when, who, the shape of the storm, how bad, which codes and flags, then skills. The
 * widths here are the widest wanted; {@link stormColumns} caps them at the rows' content.
 */
export const STORM_COLUMNS: readonly StormColumn[] = [
  { title: 'start', min: 11, value: (s) => formatTime(s.start).slice(0, 11) },
  // Who the episode blames: a client storm, or a dealer-side episode (retries the policy allows).
  { title: 'cause', min: 6, value: (s) => s.cause, color: (s) => (s.cause === 'dealer' ? theme.muted : theme.flag) },
  // Named like the CLI's `storms` column.
  { title: 'length', min: 6, align: 'right', value: (s) => formatDuration(s.end - s.start) },
  { title: 'client', min: 8, max: 28, value: (s) => s.client_shown, color: () => theme.muted },
  // Retries per minute, drawn to the column's width: squeezing keeps every minute (as peaks).
  {
    title: 'shape',
    min: 5,
    max: SPARK_MAX,
    value: (s, w) => sparkline(s.series, w),
    widest: (s) => s.series.length,
    color: () => theme.flag,
  },
  { title: 'ratio', min: 6, align: 'right', value: (s) => formatRatio(s.ratio) },
  { title: 'retries', min: 7, align: 'right', value: (s) => String(s.retries) },
  // As wide as the episode's codes need (stormColumns caps it at the widest): a cut code reads as another.
  { title: 'codes', min: 12, max: 96, value: (s) => s.codes.join(','), color: () => theme.terminal },
  { title: 'flags', min: 8, max: 30, value: (s) => formatFlagCounts(s.flags), color: () => theme.flag },
  // 16 cells hold a whole dotted skill name (`search_inventory`, `lead.submit`) on a 120-column terminal.
  { title: 'skills', min: 16, max: 40, value: (s) => s.skills.join(',') },
];

/**
 * {@link STORM_COLUMNS} for these rows: each column that can grow grows no wider than its widest
 * value (the sparkline no wider than the longest series: one cell per minute), so the spare
 * cells reach the columns after it — skills last — instead of padding a short sparkline.
 * Never below a column's minimum (its title).
 */
export function stormColumns(storms: readonly StormView[]): Column<StormView>[] {
  return STORM_COLUMNS.map((c) => {
    const max = c.max ?? c.min;
    if (max === c.min) return c;
    const widest = Math.max(0, ...storms.map((s) => (c.widest ? c.widest(s) : cells(c.value(s, max)))));
    return { ...c, max: Math.max(c.min, Math.min(max, widest)) };
  });
}

/** Props of `StormsView`. */
export interface StormsViewProps {
  readonly storms: readonly StormView[];
  readonly cursor: number;
  /** First visible storm. */
  readonly top: number;
  readonly width: number;
  readonly height: number;
  /** True until the first answer of the store arrives (the footer says so). @default false */
  readonly loading?: boolean;
}

/** Retry-storm episodes, newest first, each with a sparkline; Enter opens its errors. */
export function StormsView({ storms, cursor, top, width, height, loading = false }: StormsViewProps) {
  const { rows } = stormsLayout(height);
  // Widths from every storm of the window, not just the visible ones: columns stay put when scrolling.
  const shown = storms.slice(top, top + rows);
  const footer = loading
    ? LOADING_TEXT
    : storms.length === 0
      ? 'no retry storms in the window'
      : `storms ${top + 1}–${top + shown.length} of ${storms.length} · Enter: its errors · d: draft`;
  return (
    <Box flexDirection="column">
      <Table columns={stormColumns(storms)} rows={shown} cursor={cursor - top} width={width} rowKey={(s) => s.id} height={rows} />
      <Text color={theme.muted} wrap="truncate">
        {fit(footer, width)}
      </Text>
    </Box>
  );
}
