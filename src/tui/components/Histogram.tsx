import { Box, Text } from 'ink';
import { glyphs, theme } from '../theme.js';
import type { HistogramBucket } from '../types.js';
import { fit } from '../utils/cells.js';
import { type HistCell, histogramGrid, mergeBuckets } from '../utils/charts.js';

/** Props of `Histogram`. */
export interface HistogramProps {
  /** Per-minute buckets over the window, oldest first. */
  readonly buckets: readonly HistogramBucket[];
  /** Display cells. */
  readonly width: number;
  /** Chart rows (the legend line comes on top of these). */
  readonly height: number;
}

const GLYPH: Record<HistCell, string> = {
  terminal: glyphs.terminalBar,
  retryable: glyphs.retryableBar,
  unknown: glyphs.unknownBar,
  empty: ' ',
};
const COLOR: Record<HistCell, string | undefined> = {
  terminal: theme.terminal,
  retryable: theme.retryable,
  unknown: theme.unknown,
  empty: undefined,
};

/** Runs of equal cells in one chart row, so a row is a handful of `Text`s, not one per cell. */
function runs(row: readonly HistCell[]): { kind: HistCell; n: number }[] {
  const out: { kind: HistCell; n: number }[] = [];
  for (const c of row) {
    const last = out[out.length - 1];
    if (last && last.kind === c) last.n++;
    else out.push({ kind: c, n: 1 });
  }
  return out;
}

/**
 * Errors per minute over the window as a stacked bar chart: terminal (`█`, red) at the bottom,
 * unknown (`▒`), retryable (`░`, yellow) on top. A legend line states the totals and the scale;
 * when the window has more minutes than cells, columns cover several minutes (stated).
 */
export function Histogram({ buckets, width, height }: HistogramProps) {
  const axis = 6;
  const chartWidth = Math.max(1, width - axis);
  const columns = mergeBuckets(buckets, chartWidth);
  const { grid, max } = histogramGrid(columns, height);
  // A short window (a storm's few minutes) gets wider bars rather than a sliver at the left.
  const widen = Math.max(1, Math.min(4, Math.floor(chartWidth / Math.max(1, columns.length))));
  const sum = (k: 'retryable' | 'terminal' | 'unknown') => buckets.reduce((a, b) => a + b[k], 0);
  const perCol = buckets.length > chartWidth ? Math.ceil(buckets.length / chartWidth) : 1;
  const legend =
    `errors/${perCol === 1 ? 'min' : `${perCol} min`}${widen > 1 ? ` (${widen} cells each)` : ''}  ` +
    `${glyphs.terminalBar} terminal ${sum('terminal')}  ${glyphs.retryableBar} retryable ${sum('retryable')}` +
    (sum('unknown') > 0 ? `  ${glyphs.unknownBar} unknown ${sum('unknown')}` : '') +
    `  peak ${max}`;
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate">
        {fit(legend, width)}
      </Text>
      {grid.map((row, y) => (
        <Text key={y} wrap="truncate">
          <Text color={theme.muted}>{fit(y === 0 ? String(max) : y === height - 1 ? '0' : '', axis - 1, 'right') + '┤'}</Text>
          {runs(row).map((r, i) => (
            <Text key={i} color={COLOR[r.kind]}>
              {GLYPH[r.kind].repeat(r.n * widen)}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}
