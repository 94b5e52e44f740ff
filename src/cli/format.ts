import { createRequire } from 'node:module';

/** string-width, loaded on the first non-ASCII cell: its module builds an Intl.Segmenter, ~60 ms of start-up (issue 31). */
let stringWidthFn: ((text: string) => number) | undefined;
/** Printable ASCII is one terminal cell per character (ids, codes, times: nearly every cell). */
const ASCII = /^[\x20-\x7e]*$/;

/** Width of `text` in terminal cells (wide characters two, combining marks none, ANSI escapes none). */
function stringWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  stringWidthFn ??= (createRequire(import.meta.url)('string-width') as { default: (t: string) => number }).default;
  return stringWidthFn(text);
}
import type { ErrorEvent } from '../protocol/error-event.js';
import { formatClient, formatUtc, LONGEST_CODE_LENGTH, NO_CREDENTIAL, type ClientLabels } from '../triage/index.js';
import { KNOWN_SKILLS, RETRY_FLAGS } from '../protocol/index.js';

/** Lays out rows as columns separated by two spaces, widths in display cells. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? ''))));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - stringWidth(c)))))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `true` / `false` / `?` for a retryable value. */
export const retryableText = (r: boolean | null): string => (r === null ? '?' : String(r));

/** A client as every view shows it: label name and the first 8 characters of the pseudonym (src/triage/clients.ts). */
export const clientText = (p: string | null, labels?: ClientLabels): string => formatClient(p, labels);

/** Columns of the error list (search, trace, related rows). */
export const ERROR_HEADERS = ['TIME (UTC)', 'CODE', 'RETRYABLE', 'SKILL', 'PROTOCOL', 'CLIENT', 'ATTEMPT', 'FLAGS', 'ERROR_ID'] as const;

/** One error as a table row; clients shown with their labels when `labels` is given. */
export function errorCells(e: ErrorEvent, labels?: ClientLabels): string[] {
  return [
    formatUtc(e.occurred_at),
    e.code,
    retryableText(e.retryable),
    e.skill ?? '-',
    e.protocol,
    clientText(e.client, labels),
    String(e.attempt),
    e.retry_flags.length ? e.retry_flags.join(',') : '-',
    e.error_id,
  ];
}

/** A list of errors as a table. */
export function errorTable(rows: readonly ErrorEvent[], labels?: ClientLabels): string {
  return table(ERROR_HEADERS, rows.map((r) => errorCells(r, labels)));
}

/** A fraction as a percentage with one decimal (`12.5 %`), `n/a` for null. */
export const percent = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

/** Fixed column widths for streamed rows (`tail`), where later rows cannot widen earlier ones. */
const FIXED_WIDTHS = [20, 28, 9, 22, 8, 11, 7, 22];

/**
 * The widths of a streamed error table (`tail`), fixed before the first row so that no later row
 * can push its columns (issue 28): the widest value each column can hold — every code of the
 * tables, every known skill, the widest labelled client of `labels` (loaded once, as the rows
 * show them), every retry flag at once — never narrower than `FIXED_WIDTHS` or the header.
 */
export function streamWidths(labels?: ClientLabels): number[] {
  const widest = (xs: readonly string[]) => Math.max(0, ...xs.map((x) => stringWidth(x)));
  const clients = labels ? [...labels.keys()].map((c) => formatClient(c, labels)) : [];
  const wants = [
    widest([formatUtc(0)]),
    LONGEST_CODE_LENGTH,
    widest(['false', 'true', '?']),
    widest(KNOWN_SKILLS),
    widest(['jsonrpc', 'dmc12']),
    widest([...clients, NO_CREDENTIAL]),
    3,
    widest([RETRY_FLAGS.join(',')]),
  ];
  return FIXED_WIDTHS.map((w, i) => Math.max(w, wants[i] ?? 0, stringWidth(ERROR_HEADERS[i] ?? '')));
}

/** One row of a streamed table at fixed widths (over-long cells push the line, never truncate ids). */
export function fixedRow(cells: readonly string[], widths: readonly number[] = FIXED_WIDTHS): string {
  return cells
    .map((c, i) => (i < widths.length ? c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - stringWidth(c))) : c))
    .join('  ')
    .trimEnd();
}

const SPARK = '▁▂▃▄▅▆▇█';

/** A one-line sparkline of a series (storms and issues tables): peaks of `ceil(n / width)` values per cell. */
export function sparkline(values: readonly number[], width = 16): string {
  if (values.length === 0) return '';
  const step = Math.max(1, Math.ceil(values.length / width));
  const buckets: number[] = [];
  for (let i = 0; i < values.length; i += step) buckets.push(Math.max(...values.slice(i, i + step)));
  const max = Math.max(...buckets);
  return buckets.map((v) => (max === 0 ? SPARK[0] : SPARK[Math.min(SPARK.length - 1, Math.floor((v / max) * (SPARK.length - 1)))])).join('');
}
