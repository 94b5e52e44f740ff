/**
 * Column width allocation for tables: every column gets its minimum, then the remaining cells
 * are handed out in column order up to each column's maximum. Pure; tested without rendering.
 */

/** Width wish of one column, in display cells. */
export interface WidthSpec {
  readonly min: number;
  /** Defaults to `min` (a fixed-width column). */
  readonly max?: number;
}

/**
 * Widths for `specs` inside `total` cells with `gap` cells between columns. A column is shown
 * whole (at least its minimum) or not at all: columns are taken in order while their minimums
 * fit, the rest get 0 (hidden) — a column cut below its minimum would show a code or an id
 * half, which reads as a different value. The spare cells then go in column order up to each
 * column's maximum.
 */
export function allocateWidths(specs: readonly WidthSpec[], total: number, gap = 1): number[] {
  const widths = specs.map(() => 0);
  let used = 0;
  let shown = 0;
  for (const spec of specs) {
    const need = spec.min + (shown > 0 ? gap : 0);
    if (used + need > total) break;
    widths[shown] = spec.min;
    used += need;
    shown++;
  }
  let spare = total - used;
  for (let i = 0; i < shown && spare > 0; i++) {
    const spec = specs[i];
    if (!spec) continue;
    const extra = Math.min(spare, (spec.max ?? spec.min) - spec.min);
    widths[i] = spec.min + extra;
    spare -= extra;
  }
  return widths;
}

/** How many rows of a list fit, and which slice is visible so that `cursor` is on screen. */
export function visibleSlice(count: number, cursor: number, height: number, top: number): { top: number; end: number } {
  const h = Math.max(1, height);
  let t = Math.min(Math.max(0, top), Math.max(0, count - h));
  if (cursor < t) t = cursor;
  if (cursor >= t + h) t = cursor - h + 1;
  t = Math.max(0, t);
  return { top: t, end: Math.min(count, t + h) };
}
