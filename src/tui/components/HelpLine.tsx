import { Text } from 'ink';
import { theme } from '../theme.js';
import { cells } from '../utils/cells.js';

/** Props of `HelpLine`. */
export interface HelpLineProps {
  /** `[key, what it does]`, most important first; what does not fit is left off. */
  readonly hints: readonly (readonly [string, string])[];
  readonly width: number;
}

/** The key hints of the current view on one line (k9s style), cut at whole hints. */
export function HelpLine({ hints, width }: HelpLineProps) {
  const shown: (readonly [string, string])[] = [];
  let used = 0;
  for (const h of hints) {
    const w = cells(`${h[0]} ${h[1]}  `);
    if (used + w > width) break;
    shown.push(h);
    used += w;
  }
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
