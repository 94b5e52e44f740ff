/**
 * Time arguments of the command line and the query language: durations (`90s`, `15m`, `24h`,
 * `7d`, `2w`) and RFC 3339 instants (`2026-11-30T01:00:00Z`). Pure; all results in epoch ms.
 */

/** A half-open time window `[since, until)`, epoch milliseconds. */
export interface TimeWindow {
  since: number;
  until: number;
}

/** A parsed time argument: a duration back from "now", or an absolute instant. */
export type TimeSpec = { kind: 'duration'; ms: number } | { kind: 'instant'; ms: number };

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

// RFC 3339 date-time (with offset or Z), or a bare date taken as UTC midnight.
const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/**
 * Parses a duration such as `15m`, `24h`, `7d`, `1h30m` into milliseconds; undefined when the
 * text is not a positive duration. Units: ms, s, m, h, d, w.
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!/^(\d+(ms|s|m|h|d|w))+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  }
  return total > 0 && Number.isSafeInteger(total) ? total : undefined;
}

/** Parses a duration or an RFC 3339 time; undefined when it is neither. */
export function parseTimeSpec(text: string): TimeSpec | undefined {
  const d = parseDuration(text);
  if (d !== undefined) return { kind: 'duration', ms: d };
  const t = text.trim();
  if (!RFC3339.test(t)) return undefined;
  const ms = Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t);
  return Number.isFinite(ms) ? { kind: 'instant', ms } : undefined;
}

/** The instant a spec names, `now` being the reference for durations (durations count back). */
export function resolveTimeSpec(spec: TimeSpec, now: number): number {
  return spec.kind === 'duration' ? now - spec.ms : spec.ms;
}

/** Formats epoch ms as `2026-11-30 01:02:03Z` (UTC, second precision). */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** Formats epoch ms as `2026-11-30 01:02Z` (UTC, minute precision). */
export function formatUtcMinute(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, 'Z');
}

/** Formats a duration in ms as `45s`, `12m`, `3h05m`, `2d04h`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}
