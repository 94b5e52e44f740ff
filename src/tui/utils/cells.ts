/**
 * Display-cell arithmetic for the terminal UI.
 *
 * A terminal column is a display cell, not a UTF-16 unit: CJK characters and most emoji take two
 * cells, combining marks take none. Every width in the UI is measured with `string-width` so a
 * wide value cannot push a table column out of line.
 */
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// Printable ASCII is one cell per character: most values (codes, ids, times) take this path and
// skip string-width's Unicode tables, which dominate a frame's cost otherwise.
const ASCII = /^[\x20-\x7e]*$/;

/** Width of `text` in terminal cells (ANSI escapes count as zero). */
export function cells(text: string): number {
  return ASCII.test(text) ? text.length : stringWidth(text);
}

/**
 * Cuts `text` to at most `width` cells, ending with `…` when something was cut. Never splits a
 * grapheme; a wide character that does not fit is dropped whole (the gap is padded by `fit`).
 */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  if (width === 1) return '…';
  if (ASCII.test(text)) return text.slice(0, width - 1) + '…';
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return out + '…';
}

/** Like `truncate` but keeps the end of `text` (for ids whose tail is the distinctive part). */
export function truncateStart(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  if (width === 1) return '…';
  if (ASCII.test(text)) return '…' + text.slice(text.length - (width - 1));
  const parts = [...segmenter.segment(text)].map((s) => s.segment);
  let out = '';
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const seg = parts[i] ?? '';
    const w = stringWidth(seg);
    if (used + w > width - 1) break;
    out = seg + out;
    used += w;
  }
  return '…' + out;
}

/** Alignment of a value inside its cell. */
export type Align = 'left' | 'right';

/**
 * Returns `text` cut and padded to exactly `width` cells.
 * @param keep `'end'` keeps the tail when cutting (ids), `'start'` the head (default).
 */
export function fit(text: string, width: number, align: Align = 'left', keep: 'start' | 'end' = 'start'): string {
  if (width <= 0) return '';
  const cut = keep === 'end' ? truncateStart(text, width) : truncate(text, width);
  const pad = ' '.repeat(Math.max(0, width - cells(cut)));
  return align === 'right' ? pad + cut : cut + pad;
}

/**
 * Wraps one line of text into pieces of at most `width` cells, breaking after the last space
 * that fits and hard-breaking words longer than a line (by grapheme, never splitting a wide
 * character). An empty line stays one empty piece, so blank lines keep their place.
 */
export function wrapCells(text: string, width: number): string[] {
  if (width <= 0) return [''];
  if (ASCII.test(text) && text.length <= width) return [text];
  const out: string[] = [];
  let line: string[] = [];
  let used = 0;
  let lastSpace = -1;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width && line.length > 0) {
      if (segment === ' ') {
        out.push(line.join(''));
        line = [];
        used = 0;
        lastSpace = -1;
        continue;
      }
      if (lastSpace > 0) {
        out.push(line.slice(0, lastSpace).join(''));
        line = line.slice(lastSpace + 1);
      } else {
        out.push(line.join(''));
        line = [];
      }
      used = stringWidth(line.join(''));
      lastSpace = line.lastIndexOf(' ');
    }
    if (segment === ' ') lastSpace = line.length;
    line.push(segment);
    used += w;
  }
  out.push(line.join(''));
  return out;
}
