import { Box, Text } from 'ink';
import { theme } from '../theme.js';
import type { DraftFormat } from '../types.js';
import { fit, wrapCells } from '../utils/cells.js';

/** The draft text as display lines wrapped to `width`. */
export function draftLines(text: string, width: number): string[] {
  return text.replace(/\r\n/g, '\n').split('\n').flatMap((l) => wrapCells(l, width));
}

/** Props of `DraftView`. */
export interface DraftViewProps {
  /** What the draft is about, e.g. `storm storm-…` or `3 marked errors`; null when nothing chosen. */
  readonly title: string | null;
  readonly text: string;
  readonly format: DraftFormat;
  readonly scroll: number;
  /** Path of the last written file. */
  readonly written: string | null;
  readonly width: number;
  readonly height: number;
}

/** The incident email, scrollable; a header line names the source, the format and the keys. */
export function DraftView({ title, text, format, scroll, written, width, height }: DraftViewProps) {
  if (title === null) {
    return (
      <Box flexDirection="column" height={height}>
        <Text wrap="truncate">{fit('Nothing to draft yet: highlight a storm (Storms view) or mark errors with space, then press d or Tab.', width)}</Text>
      </Box>
    );
  }
  const body = Math.max(1, height - (written ? 2 : 1));
  const lines = draftLines(text, width);
  const top = Math.max(0, Math.min(scroll, lines.length - body));
  const shown = lines.slice(top, top + body);
  const head =
    `draft: ${title} · format ${format} (f: next) · w: write · lines ${lines.length === 0 ? 0 : top + 1}–${top + shown.length} of ${lines.length}`;
  return (
    <Box flexDirection="column">
      <Text color={theme.accent} wrap="truncate">
        {fit(head, width)}
      </Text>
      {written ? (
        <Text color={theme.ok} wrap="truncate">
          {fit(`written: ${written}`, width, 'left', 'end')}
        </Text>
      ) : null}
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate">
          {l || ' '}
        </Text>
      ))}
    </Box>
  );
}
