import { Text } from 'ink';
import { theme } from '../theme.js';
import { cells } from '../utils/cells.js';

/** Props of `HelpLine`. */
export interface HelpLineProps {
  /** `[key, what it does]`, most important first; what does not fit is left off. */
  readonly hints: readonly (readonly [string, string])[];
  readonly width: number;
}

/**
 * The key hints of the current view on one line (k9s style), cut at whole hints. The last hint
 * (`q quit`) is always shown: the hints before it fill the room that is left.
 */
export function HelpLine({ hints, width }: HelpLineProps) {
  const pinned = hints[hints.length - 1];
  const cost = (h: readonly [string, string]) => cells(`${h[0]} ${h[1]}  `);
  const shown: (readonly [string, string])[] = [];
  let used = pinned ? cost(pinned) : 0;
  for (const h of hints.slice(0, -1)) {
    if (used + cost(h) > width) break;
    shown.push(h);
    used += cost(h);
  }
  if (pinned) shown.push(pinned);
  return (
    <Text wrap="truncate">
      {shown.map(([k, label]) => (
        <Text key={k}>
          <Text color={theme.accent} bold>
            {k}
          </Text>
          <Text color={theme.muted}>{` ${label}  `}</Text>
        </Text>
      ))}
    </Text>
  );
}
