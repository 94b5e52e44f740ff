/**
 * The retry tracker (DESIGN §6): attempt numbers, the window, the size bound and the three
 * flags, first as a unit, then end to end through a DMC-12 server with the traffic counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryTracker, minBackoffMs, RETRY_TRACKER_DEFAULTS } from '../../src/instrument/exchange/retry-tracker.js';
import type { CallResult } from '../../src/instrument/exchange/retry-tracker.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { counterSum, histogramCount, waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

const ok = (at: number): CallResult => ({ at, ok: true, retryable: null, retryAfterMs: null });
const err = (at: number, retryable: boolean | null, retryAfterMs: number | null = null): CallResult => ({ at, ok: false, retryable, retryAfterMs });

describe('RetryTracker', () => {
  it('counts attempts of the same key within the window and starts over after it', () => {
    const t = new RetryTracker({ windowMs: 10_000 });
    expect(t.record('k', 0, null, ok(10)).attempt).toBe(1);
    expect(t.record('k', 5_000, null, ok(5_010)).attempt).toBe(2);
    expect(t.record('k', 14_000, null, ok(14_010)).attempt).toBe(3);
    expect(t.record('k', 24_001, null, ok(24_010)).attempt).toBe(1);
    expect(t.record('other', 24_002, null, ok(24_010)).attempt).toBe(1);
  });

  it('takes the attempt from the client header when it sends one, and leaves untracked calls at 1', () => {
    const t = new RetryTracker();
    expect(t.record('k', 0, 3, ok(1)).attempt).toBe(3);
    expect(t.record(null, 0, null, ok(1)).attempt).toBe(1);
  });

  it('flags a retry of a non-retryable error', () => {
    const t = new RetryTracker();
    t.record('k', 0, null, err(100, false));
    expect(t.record('k', 60_000, null, err(60_100, false)).flags).toEqual(['retried_non_retryable']);
  });

  it('flags a retry that came before retry_after_ms elapsed', () => {
    const t = new RetryTracker();
    t.record('k', 0, null, err(100, true, 30_000));
    expect(t.record('k', 20_100, null, err(20_200, true)).flags).toEqual(['ignored_retry_after']);
    expect(t.record('k', 60_000, null, ok(60_100)).flags).toEqual([]);
  });

  it('flags no_backoff below the equal-jitter floor, 0.5 × capped 1 s · 2^(n−1)', () => {
    const o = RETRY_TRACKER_DEFAULTS;
    expect(minBackoffMs(1, o)).toBe(500);
    expect(minBackoffMs(2, o)).toBe(1_000);
    expect(minBackoffMs(3, o)).toBe(2_000);
    expect(minBackoffMs(20, o)).toBe(10_000); // capped at 20 s
    const t = new RetryTracker();
    t.record('k', 0, null, err(100, true));
    expect(t.record('k', 600, null, err(650, true)).flags).toEqual([]); // 500 ms: the floor itself
  });

  it('measures the gap from the previous response to this request', () => {
    const t = new RetryTracker();
    t.record('k', 0, null, err(100, true));
    expect(t.record('k', 599, null, err(650, true)).flags).toEqual(['no_backoff']); // 499 ms < 500 ms
    expect(t.record('k', 650 + 1_000, null, err(1_700, true)).flags).toEqual([]); // second retry: 1000 ms is enough
  });

  it('keeps at most maxKeys keys, evicting the least recently seen', () => {
    const t = new RetryTracker({ maxKeys: 3 });
    for (const k of ['a', 'b', 'c']) t.record(k, 0, null, ok(1));
    t.record('a', 10, null, ok(11)); // a is now the most recent
    t.record('d', 20, null, ok(21)); // evicts b
    expect(t.size).toBe(3);
    expect(t.record('b', 30, null, ok(31)).attempt).toBe(1);
    expect(t.record('a', 40, null, ok(41)).attempt).toBe(3);
  });

  it('stays within its bound through many evictions, keeping the most recently seen keys', () => {
    const t = new RetryTracker({ maxKeys: 1_600 });
    for (let i = 0; i < 20_000; i++) {
      t.record(i, i, null, ok(i));
      // Key 0 comes back every 100 calls: always among the most recent, never evicted.
      if (i % 100 === 0) t.record(0, i, null, ok(i));
      expect(t.size).toBeLessThanOrEqual(1_600);
    }
    // Evicted in batches of maxKeys / 16: between 1 500 and 1 600 keys remain.
    expect(t.size).toBeGreaterThanOrEqual(1_500);
    expect(t.record(0, 20_000, null, ok(20_000)).attempt).toBe(202);
    expect(t.record(19_999, 20_001, null, ok(20_001)).attempt).toBe(2);
    expect(t.record(1, 20_002, null, ok(20_002)).attempt).toBe(1);
  });

  it('forgets keys idle longer than the window', () => {
    const t = new RetryTracker({ windowMs: 10_000 });
    for (let i = 0; i < 100; i++) t.record(`k${i}`, i, null, ok(i));
    t.record('late', 60_000, null, ok(60_001));
    expect(t.size).toBe(1);
  });
});

describe('retries seen through the instrumentation', () => {
  let h: Harness;
  let srv: Dmc12Server;
  beforeAll(async () => {
    h = createHarness();
    srv = await startDmc12Server(h.triage);
  });
  afterAll(async () => {
    await srv.close();
  });

  it('numbers repeated calls per client and fingerprint, ignoring the JSON-RPC id, and flags them', async () => {
    const args = { fail: 'RESERVATION_CONFLICT', vin: '1HGCM82633A000010' };
    for (let i = 0; i < 3; i++) await post(srv.url, toolsCall(`rt-${i}`, 'create_reservation', args), DMC12_HEADERS);
    await waitFor(() => h.sink.events.length >= 3);
    const attempts = h.sink.events.map((e) => e.attempt);
    expect(attempts.slice(0, 3)).toEqual([1, 2, 3]);
    expect(h.sink.events[1]?.retry_flags).toEqual(['retried_non_retryable', 'no_backoff']);
    expect(h.sink.events[0]?.client).toMatch(/.+/);
    expect(h.sink.events[0]?.client).not.toContain('test-token');
    expect(new Set(h.sink.events.slice(0, 3).map((e) => e.fingerprint)).size).toBe(1);
    const span = await h.span('rt-2');
    expect(span.attributes['aap.request.attempt']).toBe(3);
    expect(span.attributes['aap.retry.flags']).toEqual(['retried_non_retryable', 'no_backoff']);
    const m = await h.otel.metrics();
    expect(counterSum(m.get('aap.server.retries'), { 'aap.retry.flag': 'retried_non_retryable', 'aap.skill': 'create_reservation' })).toBeGreaterThanOrEqual(2);
    expect(histogramCount(m.get('aap.server.request.attempts'), { 'aap.skill': 'create_reservation' })).toBeGreaterThanOrEqual(3);
  });

  it('uses the aap-attempt header a client sends', async () => {
    await post(srv.url, toolsCall('hdr-1', 'search_inventory', { make: 'Mazda' }), { ...DMC12_HEADERS, 'aap-attempt': '4' });
    expect((await h.span('hdr-1')).attributes['aap.request.attempt']).toBe(4);
  });

  it('hands per-minute traffic counters to the audit sink on shutdown', async () => {
    await h.triage.shutdown();
    const rows = h.sink.traffic.filter((t) => t.skill === 'create_reservation');
    expect(rows.reduce((n, r) => n + r.requests, 0)).toBe(3);
    expect(rows.reduce((n, r) => n + r.errors, 0)).toBe(3);
    expect(rows.reduce((n, r) => n + r.retries, 0)).toBe(2);
    for (const r of rows) {
      expect(r.minute % 60_000).toBe(0);
      expect(r.service).toBe('dealer-test');
    }
    expect(h.sink.closed).toBe(true);
  });
});
