/**
 * Colours by meaning (the gemini-cli `semantic-colors` idea): views name what a value *is*, never
 * a raw colour, so one palette change reaches every screen. Names are ink/chalk colour names.
 *
 * Colour is never the only signal: every meaning also has a glyph or a word (`no`/`yes`, `█`/`░`,
 * `!` for gaps), so the screen reads the same in a monochrome terminal or a `capture-pane` dump.
 */
export const theme = {
  /** Terminal (retryable=false) errors: the client must change something. */
  terminal: 'red',
  /** Retryable errors: back off and try again. */
  retryable: 'yellow',
  /** retryable unknown (the envelope lost it). */
  unknown: 'gray',
  /** Retry flags and storm flags: client misbehaviour. */
  flag: 'magenta',
  /** Warnings in the status line (gap records, query errors). */
  warning: 'yellow',
  /** Errors of the tool itself (bad query, write failed). */
  problem: 'red',
  /** Good news: file written, copied. */
  ok: 'green',
  /** Secondary text: headers, hints, ids. */
  muted: 'gray',
  /** The active tab, key names in hints, the prompt. */
  accent: 'cyan',
  /** Marked rows. */
  marked: 'blueBright',
} as const;

/** Glyphs that carry the same meaning as the colours above. */
export const glyphs = {
  terminalBar: '█',
  retryableBar: '░',
  unknownBar: '▒',
  cursor: '›',
  mark: '*',
  gap: '!',
  ellipsis: '…',
} as const;

/** The meaning of a `retryable` value as a colour name. */
export function retryableColor(retryable: boolean | null): string {
  if (retryable === true) return theme.retryable;
  if (retryable === false) return theme.terminal;
  return theme.unknown;
}

/** The meaning of a `retryable` value as a word. */
export function retryableLabel(retryable: boolean | null): string {
  if (retryable === true) return 'yes';
  if (retryable === false) return 'no';
  return '?';
}
