import { describe, expect, it } from 'vitest';
import { formatDuration, formatUtc, parseDuration, parseTimeSpec, resolveTimeSpec } from '../../src/triage/index.js';

describe('time arguments', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
  ])('parses the duration %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '0m', '15', 'm', '1.5h', '-1h', 'yesterday', '1y'])('rejects %j as a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('parses RFC 3339 times with Z or an offset, and a bare date as UTC midnight', () => {
    expect(parseTimeSpec('2026-11-30T10:00:00Z')).toEqual({ kind: 'instant', ms: Date.UTC(2026, 10, 30, 10) });
    expect(parseTimeSpec('2026-11-30T12:00:00+02:00')).toEqual({ kind: 'instant', ms: Date.UTC(2026, 10, 30, 10) });
    expect(parseTimeSpec('2026-11-30')).toEqual({ kind: 'instant', ms: Date.UTC(2026, 10, 30) });
    expect(parseTimeSpec('30/11/2026')).toBeUndefined();
    expect(parseTimeSpec('2026-13-45T99:00:00Z')).toBeUndefined();
  });

  it('counts durations back from now', () => {
    expect(resolveTimeSpec({ kind: 'duration', ms: 60_000 }, 1_000_000)).toBe(940_000);
    expect(resolveTimeSpec({ kind: 'instant', ms: 5 }, 1_000_000)).toBe(5);
  });

  it('formats UTC times and durations', () => {
    expect(formatUtc(Date.UTC(2026, 10, 30, 1, 2, 3, 456))).toBe('2026-11-30 01:02:03Z');
    expect([45_000, 12 * 60_000, 185 * 60_000, 52 * 3_600_000].map(formatDuration)).toEqual(['45s', '12m', '3h05m', '2d04h']);
  });
});
