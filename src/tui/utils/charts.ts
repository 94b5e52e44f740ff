/**
 * The maths of the histogram and the sparkline, separate from rendering so it can be tested
 * with plain numbers.
 */
import type { HistogramBucket } from '../types.js';

/** Eighth blocks, lowest first. */
const SPARK = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * Merges consecutive buckets so at most `width` remain (sums, so counts stay honest: a column
 * that covers three minutes shows the errors of those three minutes).
 */
export function mergeBuckets(buckets: readonly HistogramBucket[], width: number): HistogramBucket[] {
  if (width <= 0) return [];
  if (buckets.length <= width) return [...buckets];
  const per = Math.ceil(buckets.length / width);
  const out: HistogramBucket[] = [];
  for (let i = 0; i < buckets.length; i += per) {
    const group = buckets.slice(i, i + per);
    out.push({
      start: group[0]?.start ?? 0,
      retryable: group.reduce((a, b) => a + b.retryable, 0),
      terminal: group.reduce((a, b) => a + b.terminal, 0),
      unknown: group.reduce((a, b) => a + b.unknown, 0),
    });
  }
  return out;
}

/** What one histogram cell shows. */
export type HistCell = 'terminal' | 'retryable' | 'unknown' | 'empty';

/**
 * A stacked bar chart `height` rows tall, top row first: terminal errors at the bottom of each
 * column, then unknown, then retryable, each scaled to the tallest column. A non-zero segment
 * always gets at least one cell, so a single terminal error among hundreds of retryable ones
 * stays visible.
 */
export function histogramGrid(columns: readonly HistogramBucket[], height: number): { grid: HistCell[][]; max: number } {
  const max = Math.max(0, ...columns.map((c) => c.retryable + c.terminal + c.unknown));
  const grid: HistCell[][] = Array.from({ length: height }, () => columns.map((): HistCell => 'empty'));
  if (max === 0 || height <= 0) return { grid, max };
  columns.forEach((c, x) => {
    const total = c.retryable + c.terminal + c.unknown;
    let h = Math.max(total > 0 ? 1 : 0, Math.round((total / max) * height));
    const parts: [HistCell, number][] = [
      ['terminal', c.terminal],
      ['unknown', c.unknown],
      ['retryable', c.retryable],
    ];
    let y = height - 1;
    for (const [kind, n] of parts) {
      if (n <= 0 || h <= 0) continue;
      let cellsFor = Math.max(1, Math.round((n / total) * Math.round((total / max) * height)));
      cellsFor = Math.min(cellsFor, h);
      for (let k = 0; k < cellsFor && y >= 0; k++, y--) {
        const row = grid[y];
        if (row) row[x] = kind;
      }
      h -= cellsFor;
    }
  });
  return { grid, max };
}

/**
 * A one-line sparkline of `values` in at most `width` cells. When there are more values than
 * cells, each cell shows the peak of the values it covers (a storm is about its peaks).
 * Zero is a space, so quiet minutes read as gaps.
 */
export function sparkline(values: readonly number[], width: number): string {
  if (width <= 0 || values.length === 0) return '';
  const per = Math.ceil(values.length / width);
  const cols: number[] = [];
  for (let i = 0; i < values.length; i += per) cols.push(Math.max(...values.slice(i, i + per)));
  const max = Math.max(...cols);
  if (max <= 0) return ' '.repeat(cols.length);
  return cols
    .map((v) => (v <= 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.ceil((v / max) * SPARK.length) - 1)] ?? '▁'))
    .join('');
}
