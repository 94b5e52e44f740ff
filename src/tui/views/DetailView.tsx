import { Box, Text } from 'ink';
import { retryableColor, retryableLabel, theme } from '../theme.js';
import type { ErrorDetailView, ErrorRowView } from '../types.js';
import { fit, wrapCells } from '../utils/cells.js';
import { formatDuration } from '../../triage/time.js';
import { formatTime } from '../utils/format.js';

/** One display line of the Detail view. */
export interface DetailLine {
  readonly text: string;
  readonly color?: string;
  readonly bold?: boolean;
}

function relatedLine(r: ErrorRowView): DetailLine {
  return {
    text: `  ${formatTime(r.occurred_at)}  ${r.code}  retry=${retryableLabel(r.retryable)}  attempt ${r.attempt}  ${r.error_id}`,
    color: retryableColor(r.retryable),
  };
}

/**
 * The heading of the retry chain: the true count within the window around the error, and which
 * of them are listed, e.g. `same fingerprint: 406 within ±10m, the 10 before and 10 after this one`.
 */
export function fingerprintHeading(d: ErrorDetailView): string {
  const span = formatDuration(d.fingerprintWindowMs);
  if (d.fields.some(([n, v]) => n === 'fingerprint' && v === '—')) return 'same fingerprint: — (no call fingerprint recorded)';
  if (d.sameFingerprintCount === 0) return `same fingerprint: none within ±${span}`;
  const before = d.sameFingerprint.filter((r) => r.occurred_at < d.row.occurred_at || (r.occurred_at === d.row.occurred_at && r.error_id < d.row.error_id)).length;
  const after = d.sameFingerprint.length - before;
  const shown = d.sameFingerprint.length === d.sameFingerprintCount ? 'all shown' : `the ${before} before and ${after} after this one`;
  return `same fingerprint: ${d.sameFingerprintCount} within ±${span}, ${shown}`;
}

/**
 * The Detail view as lines (wrapped to `width`), so scrolling is a slice. Pure: tested
 * without rendering.
 */
export function detailLines(d: ErrorDetailView, width: number): DetailLine[] {
  const out: DetailLine[] = [];
  const push = (text: string, color?: string, bold?: boolean) => {
    for (const piece of wrapCells(text, width)) out.push({ text: piece, color, bold });
  };
  push(`${d.row.code}  retryable=${retryableLabel(d.row.retryable)}  ${d.row.error_id}`, retryableColor(d.row.retryable), true);
  push(`meaning: ${d.meaning ?? 'not in the code tables'}`);
  push(`client should: ${d.clientAction ?? '—'}`, theme.accent);
  if (d.specSection) push(`spec: ${d.specSection}`, theme.muted);
  if (d.traceUrl) push(`trace: ${d.traceUrl}`, theme.accent);
  push('');
  const nameWidth = Math.max(...d.fields.map(([n]) => n.length));
  for (const [name, value] of d.fields) push(`${name.padEnd(nameWidth)}  ${value}`);
  push('');
  push(`same trace (${d.sameTrace.length})`, theme.muted, true);
  for (const r of d.sameTrace) out.push(relatedLine(r));
  push(fingerprintHeading(d), theme.muted, true);
  const isBefore = (r: ErrorRowView) => r.occurred_at < d.row.occurred_at || (r.occurred_at === d.row.occurred_at && r.error_id < d.row.error_id);
  const before = d.sameFingerprint.filter(isBefore);
  for (const r of before) out.push(relatedLine(r));
  if (d.sameFingerprint.length > 0) {
    out.push({ text: `› ${formatTime(d.row.occurred_at)}  ${d.row.code}  this error, attempt ${d.row.attempt}`, bold: true });
  }
  for (const r of d.sameFingerprint.slice(before.length)) out.push(relatedLine(r));
  return out;
}

/** Props of `DetailView`. */
export interface DetailViewProps {
  readonly detail: ErrorDetailView | null;
  /** First line shown. */
  readonly scroll: number;
  readonly width: number;
  readonly height: number;
}

/** One error with every column, what its code means, what the client should do, related errors. */
export function DetailView({ detail, scroll, width, height }: DetailViewProps) {
  if (!detail) {
    return (
      <Box height={height}>
        <Text color={theme.problem}>{fit('error not found (pruned or forgotten?)', width)}</Text>
      </Box>
    );
  }
  const lines = detailLines(detail, width);
  const top = Math.max(0, Math.min(scroll, lines.length - height));
  const shown = lines.slice(top, top + height);
  return (
    <Box flexDirection="column" height={height}>
      {shown.map((l, i) => (
        <Text key={i} color={l.color} bold={l.bold} wrap="truncate">
          {l.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
