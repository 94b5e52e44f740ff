import { Box, Text } from 'ink';
import { theme } from '../theme.js';
import { fit } from '../utils/cells.js';
import { FLAG_LEGEND } from '../utils/format.js';

/** Cells of the key column; a longer key cell (`PgDn PgUp Ctrl+F Ctrl+B`) pushes its own text right. */
const KEY_WIDTH = 13;

/** Props of `HelpView`. */
export interface HelpViewProps {
  /** `[keys, what they do]`, one line each: the keymap's help lines (keys.ts `helpLines`). */
  readonly lines: readonly (readonly [string, string])[];
  readonly width: number;
  readonly height: number;
}

/**
 * The `?` screen: the keys, then each retry-flag abbreviation in words (a flag is about the
 * answer before the retry, which the bare abbreviation on a retryable row does not say) and the
 * histogram glyphs. Sixteen key lines and four legend lines: the 20-line body of an 80 × 24 terminal.
 */
export function HelpView({ lines: keyLines, width, height }: HelpViewProps) {
  const abbrevWidth = Math.max(...FLAG_LEGEND.map(([a]) => a.length));
  const lines: [string, string | undefined][] = [
    ...keyLines.map(([k, v]): [string, string | undefined] => [`${k.padEnd(KEY_WIDTH)} ${v}`, undefined]),
    ...FLAG_LEGEND.map(([a, , words], i): [string, string | undefined] => [
      `${(i === 0 ? 'flags' : '').padEnd(KEY_WIDTH)} ${a.padEnd(abbrevWidth)} ${words}`,
      theme.flag,
    ]),
    [`${'histogram'.padEnd(KEY_WIDTH)} █ terminal (retryable=false)  ░ retryable  ▒ unknown`, theme.muted],
  ];
  return (
    <Box flexDirection="column">
      {lines.slice(0, height).map(([l, c], i) => (
        <Text key={i} color={c} wrap="truncate">
          {fit(l, width) || ' '}
        </Text>
      ))}
    </Box>
  );
}
