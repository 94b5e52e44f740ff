// Issues over a store with a known mix: counts, clients, first/last seen, new vs regressed vs
// ongoing, the same answer from the hourly summary and from the rows, the issue: query term.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReader } from '../../src/audit/store.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { issueKey, issueKeyText, listIssues, searchErrors, type Issue } from '../../src/triage/index.js';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import { pruneStore } from '../../src/audit/index.js';
import { event } from './seed.js';

const HOUR = 3_600_000;
// "now": half past an hour, so a 24 h window has partial hours at both edges.
const NOW = Date.UTC(2026, 10, 30, 12, 30, 0);
const WINDOW = { since: NOW - 24 * HOUR, until: NOW };
const A = 'clientAAAAAAAAAAAAAAAAA'.slice(0, 22);
const B = 'clientBBBBBBBBBBBBBBBBB'.slice(0, 22);
const C = 'clientCCCCCCCCCCCCCCCCC'.slice(0, 22);

/** The dealer's version of the i-th RATE_LIMITED error: none, 1.4.0 or 1.10.0 in turn. */
const rateVersion = (i: number): string | null => [null, '1.4.0', '1.10.0'][i % 3]!;
const rate = (at: number, client: string, version: string | null = null): ErrorEvent =>
  event({ occurred_at: at, skill: 'inventory.search', code: 'RATE_LIMITED', retryable: true, client, service_version: version });
const schema = (at: number, index: number): ErrorEvent =>
  event({
    occurred_at: at,
    skill: 'lead.submit',
    code: 'SCHEMA_VALIDATION_FAILED',
    retryable: false,
    client: B,
    violations: [{ location: `/lead/vehicles/${index}/vin`, keyword: 'pattern' }],
  });
const notFound = (at: number): ErrorEvent =>
  event({ occurred_at: at, service: 'mm-dmc12', protocol: 'dmc12', rpc_method: 'tools/call', skill: 'get_vehicle', code: 'VEHICLE_NOT_FOUND', retryable: false, client: C });
const flaky = (at: number): ErrorEvent => event({ occurred_at: at, skill: 'dealer.information', code: 'INTERNAL_ERROR', retryable: null, client: A });

// The mix:
// - RATE_LIMITED: every 20 min from 3 days before NOW, clients A and C alternating → ongoing.
// - SCHEMA_VALIDATION_FAILED: 5 errors 3 h before NOW, array indexes 0..4 (one shape) → new.
// - VEHICLE_NOT_FOUND: 2 errors 48 h before NOW, quiet, 3 errors 5 h before NOW → regressed.
// - INTERNAL_ERROR: once 30 h before NOW, at NOW−20 h, quiet 18 h, at NOW−2 h → regressed (gap inside the window).
function mix(): ErrorEvent[] {
  const out: ErrorEvent[] = [];
  let i = 0;
  for (let at = NOW - 72 * HOUR; at < NOW; at += 20 * 60_000, i++) out.push(rate(at, i % 2 ? C : A, rateVersion(i)));
  for (let k = 0; k < 5; k++) out.push(schema(NOW - 3 * HOUR + k * 1000, k));
  out.push(notFound(NOW - 48 * HOUR), notFound(NOW - 48 * HOUR + 60_000));
  for (let k = 0; k < 3; k++) out.push(notFound(NOW - 5 * HOUR + k * 60_000));
  out.push(flaky(NOW - 30 * HOUR), flaky(NOW - 20 * HOUR), flaky(NOW - 2 * HOUR));
  return out;
}

const rateInWindow = mix().filter((e) => e.code === 'RATE_LIMITED' && e.occurred_at >= WINDOW.since && e.occurred_at < WINDOW.until);

const byCode = (issues: readonly Issue[]): Record<string, Issue> => Object.fromEntries(issues.map((i) => [i.code, i]));

describe('issue key', () => {
  it('is 16 hex digits of the documented version-1 text, with array indexes folded', () => {
    const base = { service: 's', protocol: 'aap', rpc_method: 'SendMessage', skill: 'lead.submit', code: 'X', conformance: ['b', 'a', 'a'] };
    const one = { ...base, violations: [{ location: '/items/0/vin', keyword: 'pattern' }] };
    const two = { ...base, violations: [{ location: '/items/7/vin', keyword: 'pattern' }] };
    expect(issueKeyText(one)).toBe('issue-v1\ns\naap\ns:lead.submit\nX\npattern@/items/*/vin\na,b');
    expect(issueKey(one)).toMatch(/^[0-9a-f]{16}$/);
    expect(issueKey(two)).toBe(issueKey(one));
    expect(issueKey({ ...one, service: 't' })).not.toBe(issueKey(one));
    expect(issueKeyText({ ...base, skill: null, violations: [] })).toContain('\nm:SendMessage\n');
  });
});

// The shared store suite (issue #19): the same issues from SQLite and from PostgreSQL.
describe.each(STORE_KINDS)('listIssues on the %s store', (kind) => {
  let testStore: TestStore;
  let store: AuditReader;
  beforeAll(async () => {
    testStore = await createTestStore(kind);
    await testStore.insertEvents(mix());
    store = await testStore.reader();
  });
  afterAll(async () => {
    await testStore.cleanup();
  });

  it('groups the mix into four issues with counts, clients, first/last seen and state', async () => {
    const list = (await listIssues(store, { window: WINDOW, now: NOW }));
    expect(list.source).toBe('summary'); // both stores keep the hourly summary (PostgreSQL's backfilled by migration 5)
    expect(list.total).toBe(4);
    expect(list.issues.map((i) => i.code)).toEqual(['RATE_LIMITED', 'SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND', 'INTERNAL_ERROR']);
    const m = byCode(list.issues);
    expect(m['RATE_LIMITED']).toMatchObject({
      count: rateInWindow.length,
      clients: 2,
      retryable: true,
      state: 'ongoing',
      first_seen: rateInWindow[0]!.occurred_at,
      last_seen: rateInWindow.at(-1)!.occurred_at,
      first_seen_ever: NOW - 72 * HOUR,
    });
    expect(m['SCHEMA_VALIDATION_FAILED']).toMatchObject({
      count: 5,
      clients: 1,
      retryable: false,
      state: 'new',
      first_seen: NOW - 3 * HOUR,
      violations: [{ location: '/lead/vehicles/4/vin', keyword: 'pattern' }],
      title: 'SCHEMA_VALIDATION_FAILED · lead.submit · dealer-test (aap)',
    });
    expect(m['VEHICLE_NOT_FOUND']).toMatchObject({ count: 3, state: 'regressed', regressed_at: NOW - 5 * HOUR, first_seen_ever: NOW - 48 * HOUR, service: 'mm-dmc12' });
    expect(m['INTERNAL_ERROR']).toMatchObject({ count: 2, state: 'regressed', regressed_at: NOW - 2 * HOUR, retryable: null, retryable_split: { true: 0, false: 0, unknown: 2 } });
    expect(list.issues.every((i) => i.trend.reduce((a, b) => a + b, 0) === i.count)).toBe(true);
    expect(list.bucket_ms).toBe(HOUR);
    expect(m['SCHEMA_VALIDATION_FAILED']!.trend[Math.floor((NOW - 3 * HOUR - list.trend_start) / HOUR)]).toBe(5);
  });

  it("counts an issue's versions in the window from the summary as the rows give them, in release order", async () => {
    const list = await listIssues(store, { window: WINDOW, now: NOW });
    expect(list.source).toBe('summary');
    const want = new Map<string | null, number>();
    for (const e of rateInWindow) want.set(e.service_version ?? null, (want.get(e.service_version ?? null) ?? 0) + 1);
    expect(byCode(list.issues)['RATE_LIMITED']!.versions).toEqual([
      { version: '1.4.0', count: want.get('1.4.0') },
      { version: '1.10.0', count: want.get('1.10.0') },
      { version: null, count: want.get(null) },
    ]);
    expect(byCode(list.issues)['SCHEMA_VALIDATION_FAILED']!.versions).toEqual([{ version: null, count: 5 }]);
  });

  it('gives the same issues from the rows as from the hourly summary', async () => {
    const summary = (await listIssues(store, { window: WINDOW, now: NOW }));
    // A query that matches every row forces the row path.
    const rows = (await listIssues(store, { window: WINDOW, now: NOW, query: '-code:NONE' }));
    expect(rows.source).toBe('rows');
    const strip = (i: Issue) => ({ ...i, trend: i.trend.reduce((a, b) => a + b, 0) });
    expect(rows.issues.map(strip)).toEqual(summary.issues.map(strip));
  });

  it('buckets the trend on the hour on both stores, the rows path as the summary', async () => {
    // The window starts at half past: hour buckets from the hour before, so a store that
    // answers from its rows (PostgreSQL) gives the same trend as SQLite's hourly summary.
    const list = await listIssues(store, { window: WINDOW, now: NOW });
    expect(list.bucket_ms).toBe(HOUR);
    expect(list.trend_start).toBe(Math.floor(WINDOW.since / HOUR) * HOUR);
    // RATE_LIMITED at :10, :30, :50: two in the window's first half hour, one in its last.
    expect(byCode(list.issues)['RATE_LIMITED']!.trend).toEqual([2, ...new Array<number>(23).fill(3), 1]);
  });

  it('cuts a --since window (it ends at now + 1 ms) into whole buckets with no 1 ms cell at the end, on both paths', async () => {
    const since24 = { since: NOW - 24 * HOUR, until: NOW + 1 };
    const summary = await listIssues(store, { window: since24, now: NOW });
    expect([summary.source, summary.bucket_ms, summary.trend_start]).toEqual(['summary', HOUR, NOW - 24 * HOUR - 30 * 60_000]);
    expect(summary.issues[0]!.trend).toHaveLength(25); // :30 to :30, on the hour: both partial hours
    const rows = await listIssues(store, { window: since24, now: NOW, query: '-code:NONE' });
    expect([rows.source, rows.bucket_ms, rows.issues[0]!.trend.length]).toEqual(['rows', HOUR, 24]);
    // `--since 6h` is a 6 h window: read from the rows, in 15-minute buckets.
    const six = await listIssues(store, { window: { since: NOW - 6 * HOUR, until: NOW + 1 }, now: NOW });
    expect([six.source, six.bucket_ms, six.issues[0]!.trend.length]).toEqual(['rows', 15 * 60_000, 24]);
  });

  it('sorts by last seen and by first seen, newest first', async () => {
    expect((await listIssues(store, { window: WINDOW, now: NOW, sort: 'last_seen' })).issues.map((i) => i.code)).toEqual([
      'RATE_LIMITED',
      'INTERNAL_ERROR',
      'SCHEMA_VALIDATION_FAILED',
      'VEHICLE_NOT_FOUND',
    ]);
    expect((await listIssues(store, { window: WINDOW, now: NOW, sort: 'first_seen' })).issues.map((i) => i.code)).toEqual([
      'SCHEMA_VALIDATION_FAILED',
      'VEHICLE_NOT_FOUND',
      'INTERNAL_ERROR',
      'RATE_LIMITED',
    ]);
  });

  it('takes the quiet period as an option: an 18 h gap is not a regression when 19 h are needed', async () => {
    const m = byCode((await listIssues(store, { window: WINDOW, now: NOW, quietMs: 19 * HOUR })).issues);
    expect(m['INTERNAL_ERROR']!.state).toBe('ongoing');
    expect(m['VEHICLE_NOT_FOUND']!.state).toBe('regressed');
  });

  it('reads a short window from the rows in minute buckets', async () => {
    const list = (await listIssues(store, { window: { since: NOW - HOUR, until: NOW }, now: NOW }));
    expect(list.source).toBe('rows');
    expect(list.bucket_ms).toBe(3 * 60_000);
    expect(list.issues.map((i) => [i.code, i.count])).toEqual([['RATE_LIMITED', 3]]);
  });

  it('finds the errors of an issue with issue:<key> and with a 6-digit prefix', async () => {
    const issue = byCode((await listIssues(store, { window: WINDOW, now: NOW })).issues)['SCHEMA_VALIDATION_FAILED']!;
    expect((await searchErrors(store, `issue:${issue.key}`, WINDOW, { now: NOW })).total).toBe(5);
    expect((await searchErrors(store, `issue:${issue.key.slice(0, 6).toUpperCase()}`, WINDOW, { now: NOW })).total).toBe(5);
    expect((await searchErrors(store, `-issue:${issue.key}`, WINDOW, { now: NOW })).total).toBe(rateInWindow.length + 3 + 2);
    await expect(searchErrors(store, 'issue:abc', WINDOW)).rejects.toThrow(/issue takes an issue key/);
  });

  it('keeps the summary in step with the rows after prune', async () => {
    await pruneStore(testStore.target, 3 * HOUR - 2000, NOW);
    const summary = await listIssues(store, { window: WINDOW, now: NOW });
    const rows = await listIssues(store, { window: WINDOW, now: NOW, query: '-code:NONE' });
    const strip = (i: Issue) => [i.key, i.count, i.clients, i.first_seen, i.last_seen];
    expect(summary.issues.map(strip)).toEqual(rows.issues.map(strip));
    expect(byCode(summary.issues)['SCHEMA_VALIDATION_FAILED']!.count).toBe(3);
    // Both stores took the pruned hours out of their summary.
    expect((await store.get<{ n: number }>('SELECT count(*) AS n FROM issue_hours WHERE hour < ?', [NOW - 4 * HOUR]))?.n).toBe(0);
  });
});

// The summary path and the rows path over many windows (issue 31's summary read): the same rows
// in two stores of one kind, the second with one probe call in every window, which makes
// listIssues read its rows with the same hourly buckets. Every field must agree, trend included.
describe.each(STORE_KINDS)('summary and rows agree on the %s store', (kind) => {
  const START = Date.UTC(2026, 10, 20, 0, 0, 0);
  const END = START + 10 * 24 * HOUR;
  let plain: TestStore;
  let probed: TestStore;
  beforeAll(async () => {
    let seed = 12345;
    // The high bits: an LCG's low bits repeat with a short period.
    const rand = (n: number) => Math.floor((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 16) % n;
    const rows: ErrorEvent[] = [];
    for (let at = START; at < END - HOUR; at += 400_000 + rand(30_000)) {
      rows.push(
        event({
          occurred_at: at,
          code: ['RATE_LIMITED', 'VEHICLE_NOT_FOUND', 'INTERNAL_ERROR', 'SCHEMA_VALIDATION_FAILED'][rand(4)]!,
          skill: ['inventory.search', 'lead.submit'][rand(2)]!,
          retryable: [true, false, null][rand(3)]!,
          client: [null, A, B, C][rand(4)]!,
          service_version: [null, '2.0.0', '2.1.0', '2.10.0'][rand(4)]!,
        }),
      );
    }
    // An issue seen only in the last minutes before END (a window's partial edge hour).
    for (let k = 0; k < 3; k++) rows.push(event({ occurred_at: END - 20 * 60_000 + k * 7_000 + 3, code: 'RESERVATION_CONFLICT', client: B, service_version: '2.1.0' }));
    plain = await createTestStore(kind);
    probed = await createTestStore(kind);
    await plain.insertEvents(rows);
    // One probe call every 6 h: each window below holds one.
    const probes = Array.from({ length: 40 }, (_, k) => event({ occurred_at: START + k * 6 * HOUR + 1, code: 'UNSUPPORTED_SKILL', origin: 'probe' }));
    await probed.insertEvents([...rows, ...probes]);
  });
  afterAll(async () => {
    await plain.cleanup();
    await probed.cleanup();
  });

  it.each([
    ['24 h ending at :17:23.456', END - 42 * 60_000 - 36_544 - 24 * HOUR, END - 42 * 60_000 - 36_544],
    ['7 days (7 h buckets)', END - 7 * 24 * HOUR, END],
    ['3 days, 13 min and 7 ms', END - 3 * 24 * HOUR - 13 * 60_000 - 7, END],
    ['12 h, start on the hour', END - 12 * HOUR - 30 * 60_000, END - 17 * 60_000],
    ['24 h, both ends on the hour', END - 24 * HOUR, END],
    ['6 h and 2 ms', END - 6 * HOUR - 2, END],
  ])('%s', async (_, since, until) => {
    const window = { since, until };
    const a = await listIssues(await plain.reader(), { window, now: END });
    const b = await listIssues(await probed.reader(), { window, now: END });
    expect(a.source).toBe('summary');
    expect(b.source).toBe('rows'); // in hourly buckets (see above)
    expect(a.total).toBeGreaterThan(3);
    expect({ ...b, source: 'summary' }).toEqual(a);
  });
});

// A summary cell that is not an integer (a store some other tool wrote into) is not guessed at:
// the rows answer.
describe('a summary holding a non-integer', () => {
  it('answers from the rows', async () => {
    const store = await createTestStore('sqlite');
    try {
      await store.insertEvents(mix());
      const db = new Database(store.target);
      // 11:00, a whole hour of the window (12:00 is its partial edge, read from the rows anyway).
      expect(db.prepare('UPDATE issue_hours SET errors = 1.5 WHERE hour = ?').run(Math.floor(NOW / HOUR) * HOUR - HOUR).changes).toBeGreaterThan(0);
      db.close();
      const list = await listIssues(await store.reader(), { window: WINDOW, now: NOW });
      expect(list.source).toBe('rows');
      expect(byCode(list.issues)['RATE_LIMITED']!.count).toBe(rateInWindow.length);
    } finally {
      await store.cleanup();
    }
  });
});
