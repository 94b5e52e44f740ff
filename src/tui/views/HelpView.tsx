import { Box, Text } from 'ink';
import { theme } from '../theme.js';
import { fit } from '../utils/cells.js';
import { FLAG_LEGEND } from '../utils/format.js';

/** Every key, one line each (the source of the `?` screen and of docs/tui.md). */
export const KEY_HELP: readonly (readonly [string, string])[] = [
  ['?', 'this help (any key closes it)'],
  ['/', 'filter, in the query language of `aap-triage search` (Enter applies, Esc cancels)'],
  [':', 'command: :errors :storms :draft :since 1h :until <time> :format md :w <path> :q'],
  ['Esc', 'back (closes help, detail, drill-down, clears marks on Errors)'],
  ['q', 'quit'],
  ['j k ↓ ↑', 'move'],
  ['g G', 'first / last'],
  ['PgUp PgDn', 'page up / down'],
  ['Enter', 'open: error detail (Errors), the storm’s errors (Storms)'],
  ['Tab', 'next view: errors → storms → draft'],
  ['space', 'mark / unmark the error'],
  ['d', 'draft the incident email: selected storm, else marked errors, else the filter'],
  ['f', 'draft format: text → md → eml'],
  ['w', 'write the draft to a file (path shown in the status line)'],
  ['r', 'refresh now (it also refreshes every 2 s)'],
  ['e E', 'next / previous retryable=false error'],
  ['y Y', 'copy error_id / trace_id (OSC 52 clipboard; also shown)'],
];

/** The `?` screen: the keys, the flag abbreviations and the histogram glyphs. */
export function HelpView({ width, height }: { readonly width: number; readonly height: number }) {
  const lines: [string, string | undefined][] = [
    ...KEY_HELP.map(([k, v]): [string, string | undefined] => [`${k.padEnd(10)} ${v}`, undefined]),
    ['', undefined],
    [`flags: ${FLAG_LEGEND.map(([a, f]) => `${a} = ${f}`).join(', ')}`, theme.flag],
    ['histogram: █ terminal (retryable=false)  ░ retryable  ▒ unknown', theme.muted],
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
