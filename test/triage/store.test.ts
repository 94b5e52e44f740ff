import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildIncidentEml,
  computeStats,
  draftIncident,
  errorHistogram,
  findStormById,
  findStorms,
  getError,
  getTrace,
  listGaps,
  nextErrors,
  searchErrors,
  stormId,
  tailCursor,
} from '../../src/triage/index.js';
import type { AuditReader } from '../../src/audit/store.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { errId, event, HEALTHY_CLIENT, MIN, RATE_CLIENT, seedEvents, SEED_COUNTS, STORM_CLIENT, STRAY_CLIENT, T0 } from './seed.js';
import { errorIdTime } from '../../src/protocol/error-id.js';

const HOUR = { since: T0, until: T0 + 3_600_000 };

// The shared store suite (issue #19): the same triage functions over the same seeded rows give
// the same answers on SQLite and on PostgreSQL.
describe.each(STORE_KINDS)('triage over the %s store', (kind) => {
let store: TestStore;
let db: AuditReader;

beforeAll(async () => {
  store = await createTestStore(kind);
  const { events, traffic } = seedEvents();
  await store.insertEvents(events);
  await store.insertTraffic(traffic);
  db = await store.reader();
});
afterAll(async () => {
  await store.cleanup();
});

describe('searchErrors', () => {
  it('returns a page newest first with the total of the window', async () => {
    const res = (await searchErrors(db, '', HOUR, { limit: 5, now: T0 + HOUR.until }));
    expect(res.total).toBe(SEED_COUNTS.total);
    expect(res.rows.map((r) => r.occurred_at)).toEqual([T0 + 42 * MIN, T0 + 41 * MIN, T0 + 40 * MIN, T0 + 29 * MIN + 30_000, T0 + 28 * MIN + 30_000]);
    const page2 = (await searchErrors(db, '', HOUR, { limit: 5, offset: 5 }));
    expect(page2.rows[0]!.occurred_at).toBe(T0 + 27 * MIN + 30_000);
  });

  it('parses JSON columns to arrays and retryable to boolean or null', async () => {
    const [row] = (await searchErrors(db, 'code:SCHEMA_VALIDATION_FAILED attempt:2', HOUR, { limit: 1 })).rows;
    expect(row!.retryable).toBe(false);
    expect(row!.retry_flags).toEqual(['retried_non_retryable', 'no_backoff']);
    expect(row!.violations).toEqual([{ location: '/lead/customer/email', keyword: 'format' }]);
    expect((await searchErrors(db, 'retryable:unknown', HOUR)).rows.map((r) => [r.code, r.retryable])).toEqual([['EXTENSION_SUPPORT_REQUIRED', null]]);
  });

  it.each([
    ['code:SCHEMA_VALIDATION_FAILED', 80],
    ['code:RATE_LIMITED', 42 + 30],
    ['code:RATE_LIMITED -client:' + HEALTHY_CLIENT, 42],
    ['skill:lead.submit retryable:false', 80],
    ['protocol:dmc12,a2a', 2],
    ['attempt:>5', 12],
    ['attempt:>=4', 20 + 24],
    ['flag:ignored_retry_after', 36],
    ['flag:any', 60 + 36],
    ['-flag:any', SEED_COUNTS.total - 96],
    ['trace:trc_0123456789abcdef01234567', 1],
    [`client:${STRAY_CLIENT}`, 3],
    ['subject:subjectPseudonymEEEEEE', 1],
    ['idempotency:idemPseudonymFFFFFFFFF', 1],
    ['rate', 72],
    ['reservation', 1],
    ['tools/call', 1],
    ['http:200 jsonrpc:-32008', 1],
    ['service:mm-dmc12', 1],
  ])('%s matches %i rows', async (q, n) => {
    expect((await searchErrors(db, q, HOUR, { now: T0 })).total).toBe(n);
  });

  it('applies since: relative to now', async () => {
    expect((await searchErrors(db, 'since:5m', { since: 0, until: T0 + 10 * MIN }, { now: T0 + 10 * MIN })).total).toBe(5);
  });
});

describe('errorHistogram', () => {
  it('counts errors per minute split retryable / terminal / unknown, empty minutes included', async () => {
    const h = (await errorHistogram(db, '', { since: T0 + 19 * MIN, until: T0 + 23 * MIN }, { now: T0 }));
    expect(h.bucketMs).toBe(60_000);
    expect(h.buckets).toEqual([
      { start: T0 + 19 * MIN, retryable: 1, terminal: 0, unknown: 0 },
      { start: T0 + 20 * MIN, retryable: 15, terminal: 0, unknown: 0 },
      { start: T0 + 21 * MIN, retryable: 15, terminal: 0, unknown: 0 },
      { start: T0 + 22 * MIN, retryable: 15, terminal: 0, unknown: 0 },
    ]);
    const storm = (await errorHistogram(db, 'skill:lead.submit', { since: T0, until: T0 + 2 * MIN }));
    expect(storm.buckets.map((b) => b.terminal)).toEqual([16, 16]);
  });
});

describe('getError and getTrace', () => {
  it('shows one error with code info, same-trace and same-fingerprint rows', async () => {
    const [second] = (await searchErrors(db, `client:${STORM_CLIENT} attempt:2`, { since: T0, until: T0 + MIN }, { limit: 1 })).rows;
    const d = (await getError(db, second!.error_id))!;
    expect(d.error.error_id).toBe(second!.error_id);
    expect(d.codeInfo?.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(d.codeInfo?.retryable).toBe(false);
    expect(d.sameFingerprint.map((r) => r.attempt)).toEqual([1, 3, 4]);
    expect(d.sameFingerprintCount).toBe(3);
    expect(d.sameTrace).toEqual([]);
  });

  it('lists the retry chain nearest the error on both sides with the true count, not the oldest', async () => {
    const [second] = (await searchErrors(db, `client:${STORM_CLIENT} attempt:2`, { since: T0, until: T0 + MIN }, { limit: 1 })).rows;
    const all = (await getError(db, second!.error_id, { relatedLimit: 1000 }))!;
    const d = (await getError(db, second!.error_id, { relatedLimit: 2 }))!;
    expect(d.sameFingerprintCount).toBe(all.sameFingerprint.length);
    // One before (attempt 1) and one after (attempt 3): the neighbours.
    expect(d.sameFingerprint.map((r) => r.attempt)).toEqual([1, 3]);
    expect(d.fingerprintWindowMs).toBe(600_000);
  });

  it.each([
    // 2 × limit + 1 rows or more in the window: the nearest on each side and the count come from their own reads.
    [1, [3]],
    [2, [3, 5]],
    // Fewer: every row of the window came in the one read.
    [3, [2, 3, 5]],
    [20, [1, 2, 3, 5, 6, 7]],
  ])('shows the nearest of a 7-attempt chain and counts all six others (limit %i)', async (limit, attempts) => {
    const [fourth] = (await searchErrors(db, `client:${RATE_CLIENT} attempt:4`, { since: T0 + 20 * MIN, until: T0 + 20 * MIN + 10_000 }, { limit: 1 })).rows;
    const d = (await getError(db, fourth!.error_id, { relatedLimit: limit }))!;
    expect(d.sameFingerprint.map((r) => r.attempt)).toEqual(attempts);
    expect(d.sameFingerprintCount).toBe(6);
  });

  it('splits rows at the same millisecond as the error by error_id, on both paths', async () => {
    const at = T0 + 57 * MIN;
    const rows = ['a', 'b', 'c', 'd', 'e', 'f'].map((k, i) => event({ occurred_at: at, error_id: `err_sametime${k}`, client: STRAY_CLIENT, fingerprint: 'fpSameTimexxxxxxxxxxxx', attempt: i + 1 }));
    await store.insertEvents(rows);
    try {
      const around = async (limit: number) => (await getError(db, 'err_sametimec', { relatedLimit: limit }))!;
      // limit 1 and 2: the window (5 others) fills the first read (3 and 5 rows); limit 3: it does not (7).
      expect((await around(1)).sameFingerprint.map((r) => r.error_id)).toEqual(['err_sametimeb']);
      expect((await around(2)).sameFingerprint.map((r) => r.error_id)).toEqual(['err_sametimeb', 'err_sametimed']);
      expect((await around(3)).sameFingerprint.map((r) => r.error_id)).toEqual(['err_sametimea', 'err_sametimeb', 'err_sametimed']);
      for (const limit of [1, 2, 3]) expect((await around(limit)).sameFingerprintCount).toBe(5);
    } finally {
      await store.deleteEvents(rows.map((r) => r.error_id));
    }
  });

  it('relates the DMC-12 row and the A2A row through their shared trace id', async () => {
    const d = (await getError(db, 'err_dmc12stray000000000000000000001'))!;
    expect(d.sameTrace.map((r) => r.error_id)).toEqual(['err_a2astray00000000000000000000002']);
    expect(d.codeInfo?.clientAction).toMatch(/another VIN/i);
  });

  it('finds a row by a time-ordered id near its time (one day partition on PostgreSQL), and one whose id time is far from its row by the fallback', async () => {
    // An id minted three days before the row's occurred_at: the lookup near the id's time misses,
    // the plain lookup finds it. A time-ordered id of a row stored at its own time is found near it.
    const far = event({ occurred_at: T0 + 50 * MIN, error_id: errId(T0 - 3 * 86_400_000), client: STRAY_CLIENT });
    const near = event({ occurred_at: T0 + 51 * MIN, client: STRAY_CLIENT });
    expect(errorIdTime(far.error_id)).toBe(T0 - 3 * 86_400_000);
    expect(errorIdTime(near.error_id)).toBe(T0 + 51 * MIN);
    await store.insertEvents([far, near]);
    try {
      expect((await getError(db, far.error_id))?.error.occurred_at).toBe(T0 + 50 * MIN);
      expect((await getError(db, near.error_id))?.error.occurred_at).toBe(T0 + 51 * MIN);
      if (kind === 'postgres') {
        // The near lookup reads one partition, not every day's.
        const plan = await db.all<{ 'QUERY PLAN': string }>('EXPLAIN SELECT error_id FROM error_events WHERE error_id = ? AND occurred_at >= ? AND occurred_at < ?', [
          near.error_id,
          T0 + 51 * MIN - 3_600_000,
          T0 + 51 * MIN + 3_600_000,
        ]);
        const scanned = new Set(plan.flatMap((r) => [...r['QUERY PLAN'].matchAll(/on (error_events_p\w+)/g)].map((m) => m[1])));
        expect(scanned.size).toBe(1);
      }
    } finally {
      await store.deleteEvents([far.error_id, near.error_id]);
    }
  });

  it('lists the oldest other rows of the trace, whether the trace has more rows than it shows or not', async () => {
    // Four rows of one trace, a minute apart, stored newest first and with ids that sort newest
    // first (as a store's own order might return them); the second one shown. The trace is read
    // up to limit + 2 rows in any order; at that many an ordered read gives the oldest.
    const trace = '0000000000000000000000000000f00d';
    const rows = [52, 53, 54, 55].map((m) => event({ occurred_at: T0 + m * MIN, trace_id: trace, client: STRAY_CLIENT, error_id: `err_tracerow${60 - m}` }));
    await store.insertEvents([...rows].reverse());
    try {
      const shown = async (limit: number) => (await getError(db, rows[1]!.error_id, { relatedLimit: limit }))!.sameTrace.map((r) => r.error_id);
      const [first, , third, fourth] = rows.map((r) => r.error_id);
      expect(await shown(1)).toEqual([first]);
      expect(await shown(2)).toEqual([first, third]);
      expect(await shown(3)).toEqual([first, third, fourth]);
      expect(await shown(20)).toEqual([first, third, fourth]);
    } finally {
      await store.deleteEvents(rows.map((r) => r.error_id));
    }
  });

  it('is undefined for an unknown id', async () => {
    expect((await getError(db, 'err_nope'))).toBeUndefined();
  });

  it('finds every row of a W3C trace id or a DMC-12 upstream trace id, oldest first', async () => {
    expect((await getTrace(db, '00000000000000000000000000004001')).map((r) => r.error_id)).toEqual([
      'err_dmc12stray000000000000000000001',
      'err_a2astray00000000000000000000002',
    ]);
    expect((await getTrace(db, 'trc_0123456789abcdef01234567')).map((r) => r.code)).toEqual(['RESERVATION_CONFLICT']);
    expect((await getTrace(db, 'trc_unknown'))).toEqual([]);
  });
});

describe('nextErrors', () => {
  it('returns rows that land after the cursor once, including late commits within the lookback', async () => {
    const start = T0 + 50 * MIN;
    let { rows, cursor } = (await nextErrors(db, '', tailCursor(start), { now: start }));
    expect(rows).toEqual([]);
    const a = event({ occurred_at: start + 1000, code: 'INTERNAL_ERROR' });
    await store.insertEvents([a]);
    ({ rows, cursor } = (await nextErrors(db, '', cursor, { now: start + 2000 })));
    expect(rows.map((r) => r.error_id)).toEqual([a.error_id]);
    const late = event({ occurred_at: start + 500, code: 'RATE_LIMITED' }); // committed later, older time
    const future = event({ occurred_at: start + 60_000, code: 'INTERNAL_ERROR' }); // writer clock ahead
    await store.insertEvents([late, future]);
    ({ rows, cursor } = (await nextErrors(db, '', cursor, { now: start + 3000 })));
    expect(rows.map((r) => r.error_id)).toEqual([late.error_id, future.error_id]);
    ({ rows, cursor } = (await nextErrors(db, '', cursor, { now: start + 4000 })));
    expect(rows).toEqual([]);
    ({ rows } = (await nextErrors(db, 'code:INTERNAL_ERROR', cursor, { now: start + 5000 })));
    expect(rows).toEqual([]);
    await store.deleteEvents([future.error_id, a.error_id, late.error_id]);
  });
});

describe('nextErrors paging', () => {
  it('pages through a burst larger than one page and skips none, then catches up with late commits', async () => {
    const burst = Array.from({ length: 2_500 }, (_, i) => event({ occurred_at: T0 + 55 * MIN + 1000 + Math.floor(i / 3), code: 'RATE_LIMITED' }));
    try {
      const start = T0 + 55 * MIN;
      let next = await nextErrors(db, '', tailCursor(start), { now: start });
      await store.insertEvents(burst);
      const got: string[] = [];
      const pages: number[] = [];
      next = await nextErrors(db, '', next.cursor, { now: start + 2000 });
      for (;;) {
        pages.push(next.rows.length);
        got.push(...next.rows.map((r) => r.error_id));
        if (!next.more) break;
        next = await nextErrors(db, '', next.cursor, { now: start + 2000 });
      }
      expect(pages).toEqual([1000, 1000, 500]);
      expect(new Set(got).size).toBe(2_500);
      expect(new Set(got)).toEqual(new Set(burst.map((e) => e.error_id)));
      const late = event({ occurred_at: start + 1500, code: 'INTERNAL_ERROR' });
      await store.insertEvents([late]);
      next = await nextErrors(db, '', next.cursor, { now: start + 3000 });
      expect(next.rows.map((r) => r.error_id)).toEqual([late.error_id]);
      expect(next.more).toBe(false);
      burst.push(late);
    } finally {
      await store.deleteEvents(burst.map((e) => e.error_id));
    }
  });
});

describe('computeStats and listGaps', () => {
  it('counts by code, skill, protocol, retryable and flag, with traffic rates', async () => {
    const s = (await computeStats(db, null, HOUR, { now: T0 }));
    expect(s.errors).toBe(SEED_COUNTS.total);
    expect(s.byCode.map((r) => [r.key, r.protocol, r.count])).toEqual([
      ['SCHEMA_VALIDATION_FAILED', 'aap', 80],
      ['RATE_LIMITED', 'aap', 72],
      ['-32601', 'jsonrpc', 1],
      ['EXTENSION_SUPPORT_REQUIRED', 'aap', 1],
      ['RESERVATION_CONFLICT', 'dmc12', 1],
    ].map(([k, p, n]) => [k, k === 'EXTENSION_SUPPORT_REQUIRED' ? 'a2a' : p, n]));
    expect(s.byRetryable).toEqual({ true: 72, false: 82, unknown: 1 });
    expect(s.byFlag).toEqual({ retried_non_retryable: 60, no_backoff: 96, ignored_retry_after: 36 });
    expect(s.bySkill.map((r) => [r.key, r.count])).toEqual([
      ['lead.submit', 80],
      ['inventory.search', 72],
      ['(none)', 1],
      ['create_reservation', 1],
      ["lead.submit' OR '1'='1", 1],
    ]);
    expect(s.traffic).toEqual({ requests: 3170, errors: 272, retries: 246, errorRate: 272 / 3170, retryRatio: 246 / 3170 });
  });

  it('lists gap records overlapping the window', async () => {
    await store.insertGap({ service: 'dealer-test', started_at: T0 + MIN, ended_at: T0 + 2 * MIN, dropped: 17, reason: 'queue-full' });
    expect((await listGaps(db, HOUR)).map((g) => [g.dropped, g.reason])).toEqual([[17, 'queue-full']]);
    expect((await listGaps(db, { since: T0 + 3 * MIN, until: T0 + 4 * MIN }))).toEqual([]);
  });
});

describe('findStorms', () => {
  it('finds the two hand-worked episodes and not the healthy client', async () => {
    const storms = (await findStorms(db, HOUR));
    expect(storms.map((s) => [s.client, (s.start - T0) / MIN, (s.end - T0) / MIN])).toEqual([
      [RATE_CLIENT, 20, 23],
      [STORM_CLIENT, 0, 5],
    ]);
    const [rate, bad] = storms as [(typeof storms)[0], (typeof storms)[0]];
    expect([bad.requests, bad.errors, bad.retries, bad.retryRatio, bad.peakPerMinute]).toEqual([80, 80, 60, 0.75, 16]);
    expect(bad.flags).toEqual({ retried_non_retryable: 60, ignored_retry_after: 0, no_backoff: 60 });
    expect(bad.codes.map((c) => [c.code, c.count, c.retryable, c.maxAttempt])).toEqual([['SCHEMA_VALIDATION_FAILED', 80, false, 4]]);
    expect(bad.skills).toEqual(['lead.submit']);
    expect(bad.samples).toHaveLength(5);
    expect(bad.samples[0]!.attempt).toBe(2); // flagged retries first, oldest first
    expect(bad.samples.every((s) => s.trace_id !== null)).toBe(true);
    expect(bad.overBudget).toBe(true);
    expect([rate.requests, rate.errors, rate.retries, rate.overAttemptCap]).toEqual([90, 42, 36, 12]);
    expect(rate.flags).toEqual({ retried_non_retryable: 0, ignored_retry_after: 36, no_backoff: 36 });
    expect(rate.codes[0]!.retryAfterMs).toEqual({ min: 30_000, max: 30_000 });
    expect(rate.id).toBe(stormId(RATE_CLIENT, T0 + 20 * MIN));
    expect(rate.id).toMatch(/^storm-20261130T1020Z-[0-9a-f]{8}$/);
  });

  it('finds an episode again by its id, whatever window listed it', async () => {
    const id = stormId(STORM_CLIENT, T0);
    const s = (await findStormById(db, id))!;
    expect([s.id, s.client, s.requests]).toEqual([id, STORM_CLIENT, 80]);
    expect((await findStormById(db, 'storm-20261130T0900Z-00000000'))).toBeUndefined();
    expect((await findStormById(db, 'not-a-storm'))).toBeUndefined();
  });
});

describe('draftIncident', () => {
  it('drafts a storm with every section DESIGN §7 asks for', async () => {
    const d = (await draftIncident(db, { kind: 'storm', id: stormId(STORM_CLIENT, T0) }, { now: T0 + 3_600_000 }))!;
    expect(d.subject).toBe(`[aap-triage] Retry storm from client ${STORM_CLIENT.slice(0, 8)} on lead.submit: SCHEMA_VALIDATION_FAILED (80 errors, 2026-11-30 10:00Z)`);
    const sections = d.text.split('\n').filter((l) => /^[A-Z]/.test(l));
    expect(sections).toEqual([
      `Subject: ${d.subject}`,
      'Summary',
      'Impact',
      'Timeline (UTC)',
      'Errors by code',
      'Evidence (error_id + trace_id)',
      'What the client did, and what the spec says it should do',
      'Requested action',
      'Next update',
    ]);
    expect(d.text).toContain('  Window (UTC): 2026-11-30 10:00:00Z to 2026-11-30 10:05:00Z');
    expect(d.text).toContain('  Requests:     80');
    expect(d.text).toContain('  Retry ratio:  75.0 %');
    expect(d.text).toContain('    Did:    60 of 80 were retries, up to attempt 4; 60 retried an answer marked retryable=false; 60 came without exponential backoff.');
    expect(d.text).toMatch(/Should: .*(do not retry|Do not retry the same request as it is)/);
    expect(d.text).toContain('  1. Stop retrying answers marked retryable=false (SCHEMA_VALIDATION_FAILED)');
    expect(d.text).toContain('  By 2026-11-30 12:00 UTC');
    for (const s of d.facts.summary.samples) expect(d.text).toContain(`${s.error_id}  trace_id=${s.trace_id}`);
    expect(d.markdown).toContain('## Evidence');
    expect(d.markdown).toContain('| `SCHEMA_VALIDATION_FAILED` | aap | false | 80 | 60 | 4 |');
  });

  it('drafts from a query and from error ids, and returns undefined when nothing matches', async () => {
    const q = (await draftIncident(db, { kind: 'query', query: 'code:RATE_LIMITED client:' + RATE_CLIENT, window: HOUR }, { now: T0 }))!;
    expect(q.facts.errors).toBe(42);
    expect(q.facts.requests).toBe(90);
    expect(q.text).toContain('36 came before retry_after_ms had elapsed (the server asked for 30000 ms)');
    expect(q.text).toMatch(/^\s+Client:\s/m);
    // RATE_LIMITED from two clients: the Impact field is plural.
    const both = (await draftIncident(db, { kind: 'query', query: 'code:RATE_LIMITED', window: HOUR }, { now: T0 }))!;
    expect(both.facts.clients).toHaveLength(2);
    expect(both.text).toMatch(/^\s+Clients:\s/m);
    const ids = (await draftIncident(db, { kind: 'errors', ids: ['err_dmc12stray000000000000000000001'] }, { now: T0 }))!;
    expect(ids.facts.summary.samples.map((s) => s.upstream_trace_id)).toEqual(['trc_0123456789abcdef01234567']);
    expect(ids.subject).toContain('1 error RESERVATION_CONFLICT on create_reservation');
    expect((await draftIncident(db, { kind: 'errors', ids: ['err_nope'] }))).toBeUndefined();
    expect((await draftIncident(db, { kind: 'query', query: 'code:NOPE', window: HOUR }))).toBeUndefined();
  });

  it('builds an .eml that parses back to the same headers and body', async () => {
    const d = (await draftIncident(db, { kind: 'storm', id: stormId(RATE_CLIENT, T0 + 20 * MIN) }, { now: T0 }))!;
    const date = new Date(T0 + 3_600_000);
    const raw = await buildIncidentEml(d, { from: 'Dealer On-call <oncall@dealer.example.com>', to: ['partner@example.com', 'ops@example.com'], date, messageId: '<storm-1@dealer.example.com>' });
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe(d.subject);
    expect(mail.from?.value).toEqual([{ address: 'oncall@dealer.example.com', name: 'Dealer On-call' }]);
    expect((Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) => a!.value.map((v) => v.address))).toEqual(['partner@example.com', 'ops@example.com']);
    expect(mail.date?.getTime()).toBe(date.getTime());
    expect(mail.messageId).toBe('<storm-1@dealer.example.com>');
    expect(mail.headers.get('mime-version')).toBe('1.0');
    expect(mail.text?.trimEnd()).toBe(d.text.slice(d.text.indexOf('\n\n') + 2).trimEnd());
  });
});

describe('an open reader', () => {
  it('answers a question it has asked before once a new day and its rows arrive, many times over', async () => {
    // PostgreSQL: a new day partition under statements the reader has already prepared.
    const DAY = 86_400_000;
    const day = { since: T0 + 2 * DAY, until: T0 + 3 * DAY };
    const ask = async () => [
      (await searchErrors(db, 'code:RATE_LIMITED', day, { now: day.until })).total,
      (await computeStats(db, null, day, { now: day.until })).errors,
      (await getTrace(db, '000000000000000000000000000d0002')).length,
    ];
    expect(await ask()).toEqual([0, 0, 0]);
    await store.insertEvents([
      event({ occurred_at: day.since + MIN, code: 'RATE_LIMITED', trace_id: '000000000000000000000000000d0002' }),
      event({ occurred_at: day.since + 2 * MIN, code: 'RATE_LIMITED', trace_id: '000000000000000000000000000d0002' }),
      event({ occurred_at: day.since + 3 * MIN }),
    ]);
    for (let i = 0; i < 8; i++) expect(await ask()).toEqual([2, 3, 2]);
  });
});

});

describe('codeInfoFor', () => {
  it('reads each family’s own table and does not give a DMC-12 -32001 an A2A meaning', async () => {
    const { codeInfoFor } = await import('../../src/triage/index.js');
    expect(codeInfoFor('dmc12', 'RESERVATION_CONFLICT')?.retryable).toBe(false);
    expect(codeInfoFor('aap', 'RATE_LIMITED')?.retryable).toBe(true);
    expect(codeInfoFor('jsonrpc', '-32601')?.jsonrpcCode).toBe(-32601);
    expect(codeInfoFor('a2a', '-32008')?.code).toBe('EXTENSION_SUPPORT_REQUIRED');
    // DMC-12's -32001 is its auth failure (HTTP 401), not A2A's TaskNotFound.
    expect(codeInfoFor('dmc12', '-32001')).toMatchObject({ protocol: 'dmc12', retryable: false });
    expect(codeInfoFor('dmc12', '-32001')?.code).not.toBe('TASK_NOT_FOUND');
    expect(codeInfoFor('aap', 'NOT_A_CODE')).toBeUndefined();
  });
});

// A window's total leaves the probe's rows out unless asked (docs/probe.md), counted as every
// origin less the probe's (issue 31): the same totals on both stores, whichever way they count.
describe.each(STORE_KINDS)('search totals with probe rows on the %s store', (kind) => {
  it('counts buyer calls only by default, all rows with includeProbe, the probe alone with origin:probe', async () => {
    const store = await createTestStore(kind);
    try {
      const buyer = Array.from({ length: 60 }, (_, i) => event({ error_id: errId(5000 + i), occurred_at: T0 + i * 1000, code: i % 2 ? 'RATE_LIMITED' : 'VEHICLE_NOT_FOUND' }));
      const probe = Array.from({ length: 7 }, (_, i) => event({ error_id: errId(6000 + i), occurred_at: T0 + i * 1500, code: 'RATE_LIMITED', origin: 'probe' }));
      await store.insertEvents([...buyer, ...probe]);
      const reader = await store.reader();
      const total = async (q: string, includeProbe = false) => (await searchErrors(reader, q, HOUR, { limit: 5, now: T0, includeProbe })).total;
      expect(await total('')).toBe(60);
      expect(await total('', true)).toBe(67);
      expect(await total('code:RATE_LIMITED')).toBe(30);
      expect(await total('code:RATE_LIMITED', true)).toBe(37);
      expect(await total('origin:probe')).toBe(7);
      expect(await total('-code:RATE_LIMITED')).toBe(30);
    } finally {
      await store.cleanup();
    }
  });
});
