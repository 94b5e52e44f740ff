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
 * One line: database, window, time of last refresh (UTC), the latest message, then a warning
 * when the store holds gap records (errors that were seen but not recorded): the newest one in
 * the window as `N errors not recorded between t1 and t2 (reason)` plus `+k more`.
 */
export function StatusBar({ db, window, lastRefresh, gaps, message, width }: StatusBarProps) {
  const base = `db ${db} · ${window} · refreshed ${lastRefresh === null ? '—' : formatClock(lastRefresh) + ' UTC'}`;
  // The newest gap in the window as the sentence `stats` prints; gaps only outside the window
  // still get a short count, so lost errors are never silent.
  const gap =
    gaps.newest !== null
      ? ` · ${glyphs.gap} ${gaps.newest}${gaps.inWindow > 1 ? ` +${gaps.inWindow - 1} more` : ''}`
      : gaps.records > 0
        ? ` · ${glyphs.gap} ${gaps.records} gap record${gaps.records === 1 ? '' : 's'} outside the window: ${gaps.dropped} errors not recorded`
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
