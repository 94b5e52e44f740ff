import { Text } from 'ink';
import { glyphs, theme } from '../theme.js';
import type { GapSummary } from '../types.js';
import { cells, truncate, truncateStart } from '../utils/cells.js';
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

/** Cells the database path keeps at least when the line is short of room (its end: the file name). */
const MIN_DB_CELLS = 12;
const SEP = ' · ';

/**
 * One line: the latest message (what the operator just did: a written file, a copied id — the
 * only place an id shows on a terminal without OSC 52), then a warning when the store holds gap
 * records (errors that were seen but not recorded): the newest one in the window as
 * `! N errors not recorded between t1 and t2 (reason)` plus `+k more`; then the database, the
 * window and the time of the last refresh (UTC).
 * The warning comes before the database path so a long path can never push it off the line;
 * when the line is too long the path gives way first (cut from its start, keeping the file name,
 * down to {@link MIN_DB_CELLS} cells), then the end of the line is cut.
 */
export function StatusBar({ db, window, lastRefresh, gaps, message, width }: StatusBarProps) {
  const after = `${SEP}${window}${SEP}refreshed ${lastRefresh === null ? '—' : formatClock(lastRefresh) + ' UTC'}`;
  // The newest gap in the window as the sentence `stats` prints; gaps only outside the window
  // still get a short count, so lost errors are never silent.
  const gap =
    gaps.newest !== null
      ? `${glyphs.gap} ${gaps.newest}${gaps.inWindow > 1 ? ` +${gaps.inWindow - 1} more` : ''}${SEP}`
      : gaps.records > 0
        ? `${glyphs.gap} ${gaps.records} gap record${gaps.records === 1 ? '' : 's'} outside the window: ${gaps.dropped} errors not recorded${SEP}`
        : '';
  const msg = message ? `${message.text}${SEP}` : '';
  const color = message?.kind === 'ok' ? theme.ok : message?.kind === 'problem' ? theme.problem : undefined;
  const room = width - cells(msg) - cells(gap) - cells('db ') - cells(after);
  const dbShown = cells(db) <= room ? db : truncateStart(db, Math.max(Math.min(cells(db), MIN_DB_CELLS), room));
  const base = `db ${dbShown}${after}`;
  // Cut the line at the width part by part, so it never wraps.
  const msgShown = truncate(msg, width);
  const gapShown = truncate(gap, width - cells(msgShown));
  const baseShown = truncate(base, width - cells(msgShown) - cells(gapShown));
  return (
    <Text wrap="truncate">
      <Text color={color}>{msgShown}</Text>
      <Text color={theme.warning} bold>
        {gapShown}
      </Text>
      <Text color={theme.muted}>{baseShown}</Text>
    </Text>
  );
}
