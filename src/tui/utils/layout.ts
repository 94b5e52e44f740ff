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
 * Widths for `specs` inside `total` cells with `gap` cells between columns. When even the
 * minimums do not fit, trailing columns are shrunk (to 0, i.e. hidden) so the row never wraps.
 */
export function allocateWidths(specs: readonly WidthSpec[], total: number, gap = 1): number[] {
  const widths = specs.map((s) => s.min);
  const gaps = Math.max(0, specs.length - 1) * gap;
  let spare = total - gaps - widths.reduce((a, b) => a + b, 0);
  for (let i = 0; i < specs.length && spare > 0; i++) {
    const spec = specs[i];
    if (!spec) continue;
    const extra = Math.min(spare, (spec.max ?? spec.min) - spec.min);
    widths[i] = spec.min + extra;
    spare -= extra;
  }
  for (let i = specs.length - 1; i >= 0 && spare < 0; i--) {
    const cut = Math.min(-spare, widths[i] ?? 0);
    widths[i] = (widths[i] ?? 0) - cut;
    spare += cut;
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
