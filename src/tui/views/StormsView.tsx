import { Box, Text } from 'ink';
import { type Column, Table } from '../components/Table.js';
import { theme } from '../theme.js';
import type { StormView } from '../types.js';
import { fit } from '../utils/cells.js';
import { sparkline } from '../utils/charts.js';
import { formatDuration } from '../../triage/time.js';
import { formatFlagCounts, formatRatio, formatTime, shortPseudonym } from '../utils/format.js';

/** Table rows the Storms view shows in `height` lines (header and footer take two). */
export function stormsLayout(height: number): { rows: number } {
  return { rows: Math.max(1, height - 2) };
}

/**
 * The columns of the Storms table, most telling first (what is cut on a narrow terminal comes
 * last): when, who, the shape of the storm, how bad, which codes and flags, then skills.
 */
export const STORM_COLUMNS: readonly Column<StormView>[] = [
  { title: 'start', min: 11, value: (s) => formatTime(s.start).slice(0, 11) },
  { title: 'for', min: 5, align: 'right', value: (s) => formatDuration(s.end - s.start) },
  { title: 'client', min: 8, value: (s) => shortPseudonym(s.client), color: () => theme.muted },
  // The sparkline is drawn to the column's width, so squeezing keeps every minute (as peaks).
  { title: 'retries/min', min: 11, max: 20, value: (s, w) => sparkline(s.series, w), color: () => theme.flag },
  { title: 'ratio', min: 6, align: 'right', value: (s) => formatRatio(s.ratio) },
  { title: 'retries', min: 7, align: 'right', value: (s) => String(s.retries) },
  { title: 'codes', min: 12, max: 30, value: (s) => s.codes.join(','), color: () => theme.terminal },
  { title: 'flags', min: 8, max: 30, value: (s) => formatFlagCounts(s.flags), color: () => theme.flag },
  { title: 'skills', min: 10, max: 24, value: (s) => s.skills.join(',') },
];

/** Props of `StormsView`. */
export interface StormsViewProps {
  readonly storms: readonly StormView[];
  readonly cursor: number;
  /** First visible storm. */
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** Retry-storm episodes, newest first, each with a sparkline; Enter opens its errors. */
export function StormsView({ storms, cursor, top, width, height }: StormsViewProps) {
  const { rows } = stormsLayout(height);
  const shown = storms.slice(top, top + rows);
  const footer =
    storms.length === 0
      ? 'no retry storms in the window'
      : `storms ${top + 1}–${top + shown.length} of ${storms.length} · Enter: its errors · d: draft`;
  return (
    <Box flexDirection="column">
      <Table columns={STORM_COLUMNS} rows={shown} cursor={cursor - top} width={width} rowKey={(s) => s.id} height={rows} />
      <Text color={theme.muted} wrap="truncate">
        {fit(footer, width)}
      </Text>
    </Box>
  );
}
