import { describe, expect, it } from 'vitest';
import { detectStorms, STORM_DEFAULTS, type StormMinute } from '../../src/triage/index.js';
import { RETRY_WINDOW_MS } from '../../src/protocol/index.js';

const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const MIN = 60_000;
const series = (client: string, skill: string, from: number, n: number, f: (m: number) => Omit<StormMinute, 'minute' | 'client' | 'skill'>): StormMinute[] =>
  Array.from({ length: n }, (_, i) => ({ minute: T0 + (from + i) * MIN, client, skill, ...f(from + i) }));

describe('detectStorms', () => {
  it('finds a client retrying a non-retryable SCHEMA_VALIDATION_FAILED identically as one episode', () => {
    // 5 minutes: 4 distinct calls × 4 attempts = 16 calls, 12 retries (all flagged) a minute.
    const storms = detectStorms(series('bad', 'lead.submit', 0, 5, () => ({ requests: 16, errors: 16, retries: 12, flagged: 12 })));
    expect(storms).toHaveLength(1);
    const s = storms[0]!;
    expect([s.client, s.start, s.end, s.skills]).toEqual(['bad', T0, T0 + 5 * MIN, ['lead.submit']]);
    expect(s.reasons).toEqual(['retry-ratio', 'amplification', 'flagged-retries']);
    expect([s.requests, s.errors, s.retries, s.flagged]).toEqual([80, 80, 60, 60]);
    expect(s.retryRatio).toBe(0.75);
    expect(s.amplification).toBe(4);
    expect([s.peakPerMinute, s.peakRetriesPerMinute]).toEqual([16, 12]);
    expect(s.series).toHaveLength(5);
  });

  it('finds a client retrying RATE_LIMITED without backoff, before retry_after_ms', () => {
    // 3 minutes of 30 calls with 12 retries (40 %, ≥ 10/min), every retry flagged.
    const storms = detectStorms(series('rate', 'inventory.search', 20, 3, () => ({ requests: 30, errors: 14, retries: 12, flagged: 12 })));
    expect(storms).toHaveLength(1);
    const s = storms[0]!;
    expect([s.start, s.end]).toEqual([T0 + 20 * MIN, T0 + 23 * MIN]);
    expect([s.requests, s.errors, s.retries]).toEqual([90, 42, 36]);
    expect(s.retryRatio).toBeCloseTo(0.4, 10);
    expect(s.amplification).toBeCloseTo(90 / 54, 10);
    expect(s.reasons).toEqual(['retry-ratio', 'amplification', 'flagged-retries']);
  });

  it('does not flag a healthy client at about 5 % retries', () => {
    const storms = detectStorms(series('ok', 'inventory.search', 0, 60, (m) => ({ requests: 100, errors: 5, retries: m % 2 ? 4 : 6, flagged: 0 })));
    expect(storms).toEqual([]);
  });

  it('needs at least 10 retries a minute for the ratio rule', () => {
    // 9 of 20 calls are retries: 45 % but only 9 a minute, amplification 20/11 < 1.5 → nothing.
    expect(detectStorms(series('small', 's', 0, 5, () => ({ requests: 20, errors: 0, retries: 6, flagged: 0 })))).toEqual([]);
    const one = detectStorms(series('small', 's', 0, 1, () => ({ requests: 40, errors: 0, retries: 10, flagged: 0 })));
    expect(one.map((s) => s.reasons)).toEqual([['retry-ratio']]);
  });

  it('needs amplification ≥ 1.5 for two consecutive minutes', () => {
    // 6 calls, 2 retries → 6/4 = 1.5 exactly; one minute alone is not enough.
    const lone = [...series('amp', 's', 0, 1, () => ({ requests: 6, errors: 0, retries: 2, flagged: 0 })), ...series('amp', 's', 2, 1, () => ({ requests: 6, errors: 0, retries: 2, flagged: 0 }))];
    expect(detectStorms(lone)).toEqual([]);
    const two = detectStorms(series('amp', 's', 0, 2, () => ({ requests: 6, errors: 0, retries: 2, flagged: 0 })));
    expect(two.map((s) => [s.reasons, s.start, s.end])).toEqual([[['amplification'], T0, T0 + 2 * MIN]]);
  });

  it('flags repeating flagged retries but not a single one', () => {
    expect(detectStorms(series('f', 's', 0, 1, () => ({ requests: 50, errors: 1, retries: 1, flagged: 1 })))).toEqual([]);
    const rows = [...series('f', 's', 0, 1, () => ({ requests: 50, errors: 1, retries: 1, flagged: 1 })), ...series('f', 's', 8, 1, () => ({ requests: 50, errors: 1, retries: 1, flagged: 1 }))];
    const storms = detectStorms(rows);
    expect(storms.map((s) => [s.reasons, s.start, s.end, s.flagged])).toEqual([[['flagged-retries'], T0, T0 + 9 * MIN, 2]]);
    // 11 minutes apart is outside the 10-minute window: no repeat.
    const apart = [...series('f', 's', 0, 1, () => ({ requests: 50, errors: 1, retries: 1, flagged: 1 })), ...series('f', 's', 11, 1, () => ({ requests: 50, errors: 1, retries: 1, flagged: 1 }))];
    expect(detectStorms(apart)).toEqual([]);
  });

  it('merges one client’s stormy skills and sums several services of one minute', () => {
    const rows = [
      ...series('c', 'a', 0, 2, () => ({ requests: 8, errors: 8, retries: 6, flagged: 0 })),
      ...series('c', 'a', 0, 2, () => ({ requests: 8, errors: 8, retries: 6, flagged: 0 })), // second service
      ...series('c', 'b', 3, 2, () => ({ requests: 30, errors: 0, retries: 12, flagged: 0 })),
    ];
    const storms = detectStorms(rows);
    expect(storms).toHaveLength(1);
    expect(storms[0]!.skills).toEqual(['a', 'b']);
    expect([storms[0]!.start, storms[0]!.end, storms[0]!.requests, storms[0]!.retries]).toEqual([T0, T0 + 5 * MIN, 92, 48]);
    expect(storms[0]!.series.map((p) => p.requests)).toEqual([16, 16, 0, 30, 30]);
  });

  it('keeps episodes of one client apart when the gap is longer than the window', () => {
    const rows = [
      ...series('c', 'a', 0, 2, () => ({ requests: 30, errors: 0, retries: 12, flagged: 0 })),
      ...series('c', 'a', 13, 2, () => ({ requests: 30, errors: 0, retries: 12, flagged: 0 })),
    ];
    expect(detectStorms(rows).map((s) => (s.start - T0) / MIN)).toEqual([0, 13]);
  });

  it('honours thresholds given as options', () => {
    const rows = series('c', 'a', 0, 3, () => ({ requests: 100, errors: 0, retries: 15, flagged: 0 }));
    expect(detectStorms(rows)).toEqual([]);
    expect(detectStorms(rows, { retryRatio: 0.1 }).map((s) => s.reasons)).toEqual([['retry-ratio']]);
    expect(STORM_DEFAULTS).toMatchObject({ retryRatio: 0.2, minRetriesPerMinute: 10, amplification: 1.5, amplificationMinutes: 2, windowMs: 600_000, attemptCap: 5, clientBudget: 0.1 });
  });
});

describe('STORM_DEFAULTS', () => {
  it("uses the protocol's retry window (DESIGN §6: 10 min), not a copy of its own", () => {
    expect(STORM_DEFAULTS.windowMs).toBe(RETRY_WINDOW_MS);
    expect(RETRY_WINDOW_MS).toBe(10 * 60_000);
  });
});
