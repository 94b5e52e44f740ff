/**
 * Formatting of values for display. UTC throughout: incident drafts and partner emails use UTC
 * (DESIGN §7), so the screen does too and the status line says so.
 */
import type { ResolvedWindow } from '../types.js';

/**
 * Retry flags (DESIGN §6) as the tables abbreviate them, and what each means in words for the
 * `?` legend. A flag describes the retry against the answer *before* it, so `RNR` on a row whose
 * own code is retryable (a RATE_LIMITED retry of a refused call) is not a contradiction.
 */
const FLAGS: Readonly<Record<string, { readonly abbrev: string; readonly words: string }>> = {
  retried_non_retryable: { abbrev: 'RNR', words: 'retried after a non-retryable answer (retryable=false before)' },
  ignored_retry_after: { abbrev: 'IRA', words: "ignored retry_after (came before the server's retry_after_ms)" },
  no_backoff: { abbrev: 'NB', words: 'no backoff (came sooner than capped exponential backoff allows)' },
};

const FLAG_ABBREV: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(FLAGS).map(([f, v]) => [f, v.abbrev]));

/** `MM-DD HH:MM:SS` in UTC from epoch milliseconds. */
export function formatTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(5, 10)} ${iso.slice(11, 19)}`;
}

/** `HH:MM:SS` in UTC from epoch milliseconds. */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Short form of retry flags (`RNR,IRA,NB`), legend in the help screen. */
export function formatFlags(flags: readonly string[]): string {
  return flags.map((f) => FLAG_ABBREV[f] ?? f).join(',');
}

/** Flag counts of a storm as `RNR×12 NB×3`. */
export function formatFlagCounts(flags: Readonly<Record<string, number>>): string {
  return Object.entries(flags)
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${FLAG_ABBREV[f] ?? f}×${n}`)
    .join(' ');
}

/**
 * The legend of the flag abbreviations for the help screen, one entry per flag:
 * `[abbreviation, flag name, meaning in words]`.
 */
export const FLAG_LEGEND: readonly (readonly [string, string, string])[] = Object.entries(FLAGS).map(([f, v]) => [v.abbrev, f, v.words] as const);

/** A ratio 0..1 as a percentage with one decimal. */
export function formatRatio(r: number): string {
  return `${(r * 100).toFixed(1)}%`;
}

/** Window as `since 1h (06-01 10:00:00 → 11:00:00 UTC)`. */
export function formatWindow(label: string, w: ResolvedWindow): string {
  return `${label} (${formatTime(w.since)} → ${formatClock(w.until)} UTC)`;
}

/** What a view's footer says until the store's first answer arrives (never a false "no issues"). */
export const LOADING_TEXT = 'loading… (reading the audit store)';
