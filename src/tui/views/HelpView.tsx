import { Box, Text } from 'ink';
import { ISSUE_SORT_KEYS, SORT_KEYS } from '../keys.js';
import { theme } from '../theme.js';
import { fit } from '../utils/cells.js';
import { FLAG_LEGEND } from '../utils/format.js';

/** Every key, one line each (the source of the `?` screen and of docs/tui.md). */
export const KEY_HELP: readonly (readonly [string, string])[] = [
  ['?', 'this help (any key closes it)'],
  ['/', 'filter, in the query language of `aap-triage search` (Enter applies, Esc cancels)'],
  [':', 'command: :issues :errors :storms :draft :since 1h :until <time> :format md :w <path> :q'],
  ['Esc', 'back (closes help, detail, drill-down, clears marks on Errors)'],
  ['q', 'quit'],
  ['j k ↓ ↑ g G', 'move; first / last (PgUp PgDn: a page)'],
  ['Enter', 'open: the issue’s errors (Issues), error detail (Errors), the storm’s errors (Storms)'],
  ['Tab', 'next view: issues → errors → storms → draft'],
  ['space', 'mark / unmark the error'],
  ['d', 'draft the incident email: the issue or storm selected, else marked errors, else the filter'],
  ['f w', 'draft format text → md → eml; write the draft to a file (path in the status line)'],
  ['r', 'refresh now (it also refreshes every 2 s)'],
  ['e E', 'next / previous retryable=false error'],
  ['y Y', 'copy error_id / trace_id (OSC 52 clipboard; also shown)'],
  ['c m o', 'Issues: resolve now / mute / open again (by AAP_TRIAGE_OPERATOR; releases: aap-triage issues resolve --in)'],
  [
    Object.keys(SORT_KEYS).join(' '),
    `sort Errors by ${Object.values(SORT_KEYS)
      .map((k) => k.column)
      .join(', ')} (again: reverse)`,
  ],
  [
    Object.keys(ISSUE_SORT_KEYS).join(' '),
    `sort Issues by ${Object.values(ISSUE_SORT_KEYS)
      .map((k) => k.column)
      .join(', ')} (most / newest first)`,
  ],
];

const KEY_WIDTH = Math.max(...KEY_HELP.map(([k]) => k.length));

/**
 * The `?` screen: the keys, then each retry-flag abbreviation in words (a flag is about the
 * answer before the retry, which the bare abbreviation on a retryable row does not say) and the
 * histogram glyphs. Sixteen key lines and four legend lines: the 20-line body of an 80 × 24 terminal.
 */
export function HelpView({ width, height }: { readonly width: number; readonly height: number }) {
  const abbrevWidth = Math.max(...FLAG_LEGEND.map(([a]) => a.length));
  const lines: [string, string | undefined][] = [
    ...KEY_HELP.map(([k, v]): [string, string | undefined] => [`${k.padEnd(KEY_WIDTH)} ${v}`, undefined]),
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
