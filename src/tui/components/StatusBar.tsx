import { Text } from 'ink';
import { glyphs, theme } from '../theme.js';
import type { GapSummary } from '../types.js';
import { fit } from '../utils/cells.js';
import { formatClock } from '../utils/format.js';

/** Props of `StatusBar`. */
export interface StatusBarProps {
  /** Database path as given. */
  readonly db: string;
  /** Window as the operator wrote it, e.g. `since 1h`. */
  readonly window: string;
  /** Epoch milliseconds of the last successful refresh, or null before the first. */
  readonly lastRefresh: number | null;
  readonly gaps: GapSummary;
  /** A transient message (written file, copied id) or a problem. */
  readonly message?: { readonly text: string; readonly kind: 'ok' | 'problem' | 'info' } | null;
  readonly width: number;
}

/**
 * One line: database, window, time of last refresh (UTC), a warning when the store holds gap
 * records (errors that were seen but not recorded), then the latest message.
 */
export function StatusBar({ db, window, lastRefresh, gaps, message, width }: StatusBarProps) {
  const base = `db ${db} · ${window} · refreshed ${lastRefresh === null ? '—' : formatClock(lastRefresh) + ' UTC'}`;
  const gap =
    gaps.records > 0
      ? ` · ${glyphs.gap} ${gaps.records} gap record${gaps.records === 1 ? '' : 's'} (${gaps.inWindow} in window): ${gaps.dropped} errors not recorded`
      : '';
  const msg = message ? ` · ${message.text}` : '';
  const color = message?.kind === 'ok' ? theme.ok : message?.kind === 'problem' ? theme.problem : undefined;
  // Fit the whole line first, then colour the parts that survived, so it never wraps.
  // The message comes before the gap warning: it answers what the operator just did.
  const line = fit(base + msg + gap, width);
  const baseShown = line.slice(0, base.length);
  const msgShown = line.slice(base.length, base.length + msg.length);
  const rest = line.slice(base.length + msg.length);
  return (
    <Text wrap="truncate">
      <Text color={theme.muted}>{baseShown}</Text>
      <Text color={color}>{msgShown}</Text>
      <Text color={theme.warning} bold>
        {rest}
      </Text>
    </Text>
  );
}
