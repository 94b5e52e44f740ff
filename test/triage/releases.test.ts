// Triage by release (issue 29): version order, resolve / mute / reopen stored with who and when,
// regression only by a version at or past the resolution while old versions keep sending, and
// alerts that follow — the same suite on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setIssueStateInStore, type IssueStateRow } from '../../src/triage/store.js';
import {
  compareVersions,
  deriveAlerts,
  findRegression,
  issueAlert,
  issueKey,
  issueStateFor,
  listIssues,
  muteHolds,
  regresses,
  type AlertContext,
  type Issue,
} from '../../src/triage/index.js';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { event } from './seed.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 11, 2, 8, 0, 0);

describe('compareVersions', () => {
  it('orders SemVer by precedence: pre-releases first, numbers as numbers, build metadata ignored, a leading v allowed', () => {
    const sorted = ['1.10.0', '1.4.0', '1.4.0-rc.1', 'v1.5.0', '1.4.0-rc.10', '1.4.0-beta'].sort(compareVersions);
    expect(sorted).toEqual(['1.4.0-beta', '1.4.0-rc.1', '1.4.0-rc.10', '1.4.0', 'v1.5.0', '1.10.0']);
    expect(compareVersions('1.4.0+build.7', '1.4.0')).toBe(0);
  });

  it('falls back to natural order (digit runs as numbers) when either is not SemVer', () => {
    expect(['2026.12.10', '2026.12.2', '2026.11.30'].sort(compareVersions)).toEqual(['2026.11.30', '2026.12.2', '2026.12.10']);
    expect(['build-100', 'build-99'].sort(compareVersions)).toEqual(['build-99', 'build-100']);
    expect(compareVersions('1.4', '1.4.0')).toBeLessThan(0);
  });
});

describe('regression and mute rules', () => {
  it('regresses a version resolution on that version or later, a next-release one only past its base, a "now" one on anything', () => {
    const inV = { resolved_mode: 'version' as const, resolved_in: '1.5.0' };
    expect([regresses(inV, '1.4.9'), regresses(inV, '1.5.0'), regresses(inV, '2.0.0'), regresses(inV, null)]).toEqual([false, true, true, false]);
    const next = { resolved_mode: 'next_release' as const, resolved_in: '1.5.0' };
    expect([regresses(next, '1.5.0'), regresses(next, '1.5.1-rc.1'), regresses(next, null)]).toEqual([false, true, false]);
    expect(regresses({ resolved_mode: 'next_release', resolved_in: null }, '0.0.1')).toBe(true);
    expect(regresses({ resolved_mode: 'now', resolved_in: null }, null)).toBe(true);
    expect(findRegression(inV, [{ version: '1.6.0', first_at: 9, count: 1 }, { version: '1.4.0', first_at: 1, count: 5 }, { version: '1.5.0', first_at: 5, count: 1 }])).toEqual({ at: 5, version: '1.5.0' });
    expect(findRegression(inV, [{ version: '1.4.0', first_at: 1, count: 5 }])).toBeNull();
  });

  it('holds a mute until its time and until its count, whichever comes first; forever without either', () => {
    expect(muteHolds({ mute_until: null, mute_count: null }, 1e9, 1e15)).toBe(true);
    expect(muteHolds({ mute_until: 100, mute_count: null }, 0, 99)).toBe(true);
    expect(muteHolds({ mute_until: 100, mute_count: null }, 0, 100)).toBe(false);
    expect(muteHolds({ mute_until: null, mute_count: 3 }, 2, 0)).toBe(true);
    expect(muteHolds({ mute_until: null, mute_count: 3 }, 3, 0)).toBe(false);
    expect(muteHolds({ mute_until: 100, mute_count: 3 }, 3, 50)).toBe(false);
  });
});

// One issue per scenario (a distinct code each), rows from two versions interleaved as during a
// rolling release: old (1.4.0) and new (1.5.0) servers side by side.
const CODES = { inVersion: 'VEHICLE_NOT_FOUND', nextRelease: 'RATE_LIMITED', now: 'INTERNAL_ERROR', muteCount: 'UPSTREAM_UNAVAILABLE', muteTime: 'DEALER_UNAVAILABLE' } as const;
const row = (code: string, at: number, version: string | null): ErrorEvent => event({ occurred_at: at, code, skill: 'inventory.search', service_version: version });
const keyOf = (code: string): string => issueKey({ ...row(code, 0, null), violations: [], conformance: [] });
const interleaved = (code: string, from: number, n: number): ErrorEvent[] => Array.from({ length: n }, (_, i) => row(code, from + i * MIN, i % 2 ? '1.5.0' : '1.4.0'));

describe.each(STORE_KINDS)('releases on the %s store', (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createTestStore(kind);
    await store.insertEvents(Object.values(CODES).flatMap((code) => interleaved(code, T0, 6)));
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  const issues = async (now: number): Promise<Record<string, Issue>> => {
    const list = await listIssues(await store.reader(), { window: { since: T0 - 60 * MIN, until: now }, now });
    return Object.fromEntries(list.issues.map((i) => [i.code, i]));
  };
  const set = async (code: string, action: Parameters<typeof issueStateFor>[2], at: number): Promise<IssueStateRow> =>
    setIssueStateInStore(store.target, await issueStateFor(await store.reader(), keyOf(code), action, 'alice', at));
  const alertCtx = (now: number): AlertContext => ({ now, everyMs: MIN, labels: new Map(), command: (r) => `aap-triage ${r}`, traceUrl: null });

  it('carries first-seen and last-seen versions and the versions of the window, oldest release first', async () => {
    const i = (await issues(T0 + 10 * MIN))[CODES.inVersion]!;
    expect(i.first_seen_version).toBe('1.4.0');
    expect(i.last_seen_version).toBe('1.5.0');
    expect(i.versions).toEqual([{ version: '1.4.0', count: 3 }, { version: '1.5.0', count: 3 }]);
    expect(i.status).toBe('open');
  });

  it('resolved in 1.5.0: old-version rows keep coming and count, no regression; a 1.5.0 row regresses it', async () => {
    const resolvedAt = T0 + 10 * MIN;
    const stored = await set(CODES.inVersion, { kind: 'resolve', in: 'version', version: '1.5.0' }, resolvedAt);
    expect(stored).toEqual({ issue_key: keyOf(CODES.inVersion), state: 'resolved', resolved_mode: 'version', resolved_in: '1.5.0', mute_until: null, mute_count: null, set_by: 'alice', set_at: resolvedAt });
    await store.insertEvents([row(CODES.inVersion, T0 + 11 * MIN, '1.4.0'), row(CODES.inVersion, T0 + 12 * MIN, '1.4.0'), row(CODES.inVersion, T0 + 13 * MIN, null)]);
    let i = (await issues(T0 + 14 * MIN))[CODES.inVersion]!;
    expect(i.status).toBe('resolved');
    expect(i.count).toBe(9);
    expect(i.versions).toEqual([{ version: '1.4.0', count: 5 }, { version: '1.5.0', count: 3 }, { version: null, count: 1 }]);
    expect(i.operator_state).toEqual(stored);
    expect(issueAlert(i, alertCtx(T0 + 14 * MIN))).toBeNull();

    await store.insertEvents([row(CODES.inVersion, T0 + 15 * MIN, '1.4.0'), row(CODES.inVersion, T0 + 16 * MIN, '1.5.0')]);
    i = (await issues(T0 + 17 * MIN))[CODES.inVersion]!;
    expect(i).toMatchObject({ status: 'regressed', state: 'regressed', regressed_at: T0 + 16 * MIN, regressed_in: '1.5.0', last_seen_version: '1.5.0' });
    const alerts = await deriveAlerts(await store.reader(), alertCtx(T0 + 17 * MIN));
    const mine = alerts.filter((a) => a.labels.issue_key === i.key);
    expect(mine.map((a) => a.labels.alertname)).toEqual(['AapTriageIssueRegressed']);
    expect(mine[0]!.startsAt).toBe(new Date(T0 + 16 * MIN).toISOString());
  });

  it('resolved in the next release: measured against the newest version deployed (1.5.0); only a newer one regresses it', async () => {
    const stored = await set(CODES.nextRelease, { kind: 'resolve', in: 'next_release' }, T0 + 10 * MIN);
    expect(stored).toMatchObject({ state: 'resolved', resolved_mode: 'next_release', resolved_in: '1.5.0' });
    await store.insertEvents([row(CODES.nextRelease, T0 + 11 * MIN, '1.5.0'), row(CODES.nextRelease, T0 + 12 * MIN, '1.4.0')]);
    expect((await issues(T0 + 13 * MIN))[CODES.nextRelease]!.status).toBe('resolved');
    await store.insertEvents([row(CODES.nextRelease, T0 + 18 * MIN, '1.5.1')]);
    expect((await issues(T0 + 19 * MIN))[CODES.nextRelease]).toMatchObject({ status: 'regressed', regressed_in: '1.5.1', regressed_at: T0 + 18 * MIN });
  });

  it('resolved now: any later row regresses it, even one without a version; reopen makes it open again', async () => {
    await set(CODES.now, { kind: 'resolve', in: 'now' }, T0 + 10 * MIN);
    expect((await issues(T0 + 11 * MIN))[CODES.now]!.status).toBe('resolved');
    await store.insertEvents([row(CODES.now, T0 + 12 * MIN, null)]);
    expect((await issues(T0 + 13 * MIN))[CODES.now]).toMatchObject({ status: 'regressed', regressed_in: null, regressed_at: T0 + 12 * MIN });
    const reopened = await set(CODES.now, { kind: 'reopen' }, T0 + 14 * MIN);
    expect(reopened).toMatchObject({ state: 'open', set_by: 'alice', set_at: T0 + 14 * MIN });
    expect((await issues(T0 + 15 * MIN))[CODES.now]).toMatchObject({ status: 'open', regressed_in: null });
  });

  it('muted for 3 errors: still counted, never alerted, until the third error after the mute', async () => {
    await set(CODES.muteCount, { kind: 'mute', until: null, count: 3 }, T0 + 10 * MIN);
    await store.insertEvents([row(CODES.muteCount, T0 + 11 * MIN, '1.5.0'), row(CODES.muteCount, T0 + 12 * MIN, '1.5.0')]);
    let i = (await issues(T0 + 13 * MIN))[CODES.muteCount]!;
    expect(i).toMatchObject({ status: 'muted', muted_count: 2, count: 8 });
    const muted = (await deriveAlerts(await store.reader(), alertCtx(T0 + 13 * MIN))).filter((a) => a.labels.issue_key === i.key);
    expect(muted).toEqual([]);
    await store.insertEvents([row(CODES.muteCount, T0 + 14 * MIN, '1.5.0')]);
    i = (await issues(T0 + 15 * MIN))[CODES.muteCount]!;
    expect(i).toMatchObject({ status: 'open', muted_count: null, count: 9 });
    expect(issueAlert(i, alertCtx(T0 + 15 * MIN))?.labels.alertname).toBe('AapTriageNewIssue');
  });

  it('muted for 30 minutes: muted before its end whatever the errors, open from its end on', async () => {
    await set(CODES.muteTime, { kind: 'mute', until: T0 + 40 * MIN, count: null }, T0 + 10 * MIN);
    await store.insertEvents(interleaved(CODES.muteTime, T0 + 11 * MIN, 10));
    expect((await issues(T0 + 39 * MIN))[CODES.muteTime]).toMatchObject({ status: 'muted', muted_count: null, count: 16 });
    expect((await issues(T0 + 40 * MIN))[CODES.muteTime]!.status).toBe('open');
  });
});
