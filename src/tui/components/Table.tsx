import { Box, Text } from 'ink';
import { glyphs, theme } from '../theme.js';
import { type Align, fit } from '../utils/cells.js';
import { allocateWidths, type WidthSpec } from '../utils/layout.js';

/** One column of a `Table`. */
export interface Column<T> extends WidthSpec {
  readonly title: string;
  /** The cell text (cut and padded to the column width in display cells); `width` is that width. */
  readonly value: (row: T, width: number) => string;
  /** @default 'left' */
  readonly align?: Align;
  /** Keep the end of long values (ids) instead of the start. @default 'start' */
  readonly keep?: 'start' | 'end';
  /** Colour name (from `theme`) for this cell, by meaning. */
  readonly color?: (row: T) => string | undefined;
}

/** Props of `Table`. Only `rows` are rendered: pass the visible slice, never the whole result. */
export interface TableProps<T> {
  readonly columns: readonly Column<T>[];
  readonly rows: readonly T[];
  /** Index into `rows` of the highlighted row, or -1. */
  readonly cursor: number;
  /** Total width in display cells (the row never wraps). */
  readonly width: number;
  readonly rowKey: (row: T) => string;
  readonly isMarked?: (row: T) => boolean;
  /** Lines the table body should occupy; short pages are padded so the frame does not jump. */
  readonly height?: number;
}

/**
 * A fixed-layout table: a header line and one line per row, every cell exactly its column's
 * width in display cells. Each line starts with two cells: `›` on the cursor row, `*` on marked
 * rows, so selection is visible without colour too.
 */
export function Table<T>(props: TableProps<T>) {
  const { columns, rows, cursor, width, rowKey, isMarked, height } = props;
  const widths = allocateWidths(columns, Math.max(0, width - 2));
  const header = columns
    .filter((_, i) => (widths[i] ?? 0) > 0)
    .map((c) => fit(c.title, widths[columns.indexOf(c)] ?? 0, c.align))
    .join(' ');
  const pad = height !== undefined ? Math.max(0, height - rows.length) : 0;
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} bold wrap="truncate">
        {'  ' + header}
      </Text>
      {rows.map((row, r) => {
        const selected = r === cursor;
        const marked = isMarked?.(row) ?? false;
        return (
          <Text key={rowKey(row)} inverse={selected} wrap="truncate">
            <Text color={marked ? theme.marked : undefined}>
              {(selected ? glyphs.cursor : ' ') + (marked ? glyphs.mark : ' ')}
            </Text>
            {columns.map((c, i) => {
              const w = widths[i] ?? 0;
              if (w === 0) return null;
              const text = fit(c.value(row, w), w, c.align, c.keep);
              return (
                <Text key={c.title} color={c.color?.(row)}>
                  {(i > 0 ? ' ' : '') + text}
                </Text>
              );
            })}
          </Text>
        );
      })}
      {Array.from({ length: pad }, (_, i) => (
        <Text key={`pad-${i}`}> </Text>
      ))}
    </Box>
  );
}
