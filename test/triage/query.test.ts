import Database from 'better-sqlite3';
import { sqliteReader, type AuditReader } from '../../src/audit/store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileQuery, describeGap, looksLikePseudonym, looksLikeSubject, parseQuery, QuerySyntaxError, searchErrors } from '../../src/triage/index.js';
import { seededStore, STORM_CLIENT, T0 } from './seed.js';

const ctx = { now: T0, window: { since: T0 - 3_600_000, until: T0 + 1 }, pseudonymizer: null };

describe('parseQuery', () => {
  it('reads field:value terms, lists, negation, comparisons and bare words', () => {
    const q = parseQuery('code:rate_limited,SCHEMA_VALIDATION_FAILED -skill:lead.submit attempt:>2 retryable:false flag:no_backoff timeout');
    expect(q.terms).toEqual([
      { field: 'code', negate: false, values: ['RATE_LIMITED', 'SCHEMA_VALIDATION_FAILED'], op: '=', token: 'code:rate_limited,SCHEMA_VALIDATION_FAILED' },
      { field: 'skill', negate: true, values: ['lead.submit'], op: '=', token: '-skill:lead.submit' },
      { field: 'attempt', negate: false, values: ['2'], op: '>', token: 'attempt:>2' },
      { field: 'retryable', negate: false, values: ['false'], op: '=', token: 'retryable:false' },
      { field: 'flag', negate: false, values: ['no_backoff'], op: '=', token: 'flag:no_backoff' },
      { field: 'text', negate: false, values: ['timeout'], op: '=', token: 'timeout' },
    ]);
  });

  it('takes since:/until: as durations or RFC 3339 times', () => {
    const q = parseQuery('since:1h until:2026-11-30T10:00:00Z');
    expect(q.since).toEqual({ kind: 'duration', ms: 3_600_000 });
    expect(q.until).toEqual({ kind: 'instant', ms: T0 });
    expect(q.terms).toEqual([]);
  });

  it('keeps double-quoted values whole and treats a negative number as a word', () => {
    const q = parseQuery('skill:"lead submit" -32601');
    expect(q.terms.map((t) => [t.field, t.negate, t.values])).toEqual([
      ['skill', false, ['lead submit']],
      ['text', false, ['-32601']],
    ]);
  });

  it.each([
    ['foo:bar', 'foo:bar', /unknown field 'foo'/],
    ['since:yesterday', 'since:yesterday', /duration/],
    ['retryable:maybe', 'retryable:maybe', /true, false or unknown/],
    ['flag:sloppy', 'flag:sloppy', /flag must be/],
    ['protocol:soap', 'protocol:soap', /protocol must be/],
    ['attempt:>x', 'attempt:>x', /integer/],
    ['code:', 'code:', /empty value/],
    ['code:A,,B', 'code:A,,B', /empty value/],
    ['--json', '--json', /not an option/],
    ['skill:"lead', 'skill:"lead', /unterminated/],
  ])('rejects %s naming the bad token', (text, token, reason) => {
    let caught: unknown;
    try {
      parseQuery(`code:RATE_LIMITED ${text}`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuerySyntaxError);
    expect((caught as QuerySyntaxError).token).toBe(token);
    expect((caught as QuerySyntaxError).message).toMatch(reason);
  });
});

describe('compileQuery', () => {
  it('binds every value as a parameter and builds SQL from fixed fragments only', () => {
    const c = compileQuery(parseQuery("code:X'); skill:%_\\ -client:abc"), {
      ...ctx,
      pseudonymizer: { client: (v) => `P(${v})`, subject: (v) => v, idempotency: (v) => v },
    });
    expect(c.where).toBe(
      "occurred_at >= ? AND occurred_at < ? AND code IN (?) AND skill IN (?) AND (client IS NULL OR NOT client IN (?,?)) AND origin IS NULL",
    );
    expect(c.params).toEqual([T0 - 3_600_000, T0 + 1, "X');", '%_\\', 'abc', 'P(abc)']);
  });

  it('reads single-quoted values as double-quoted ones, where a value starts and a closing quote follows (issue 28)', () => {
    for (const [single, double] of [
      ["code:'RATE_LIMITED'", 'code:"RATE_LIMITED"'],
      ["skill:'lead.submit' -code:'A B'", 'skill:"lead.submit" -code:"A B"'],
      ["'RATE LIMITED'", '"RATE LIMITED"'],
    ]) {
      expect(parseQuery(single!).terms.map(({ token: _t, ...t }) => t), single).toEqual(parseQuery(double!).terms.map(({ token: _t, ...t }) => t));
    }
    // Inside one kind of quote the other is a plain character.
    expect(parseQuery(`skill:'say "hi"' skill:"it's"`).terms.map((t) => t.values)).toEqual([['say "hi"'], ["it's"]]);
    // Elsewhere a single quote is a plain character.
    expect(parseQuery("it's").terms.map((t) => t.values)).toEqual([["it's"]]);
    expect(parseQuery("' OR 1=1").terms.map((t) => t.values)).toEqual([["'"], ['OR'], ['1=1']]);
  });

  it('keeps buyer calls only unless the query names an origin or the caller includes the probe (issue 28)', () => {
    expect(compileQuery(parseQuery('code:X'), ctx).where).toMatch(/ AND origin IS NULL$/);
    expect(compileQuery(parseQuery('code:X'), { ...ctx, includeProbe: true }).where).not.toContain('origin');
    expect(compileQuery(parseQuery('origin:probe'), ctx).where).toBe("occurred_at >= ? AND occurred_at < ? AND (origin = 'probe')");
    expect(compileQuery(parseQuery('origin:any'), ctx).where).toBe('occurred_at >= ? AND occurred_at < ? AND (1 = 1)');
    expect(compileQuery(parseQuery('origin:buyer,probe'), ctx).where).toBe("occurred_at >= ? AND occurred_at < ? AND (origin = 'probe' OR origin IS NULL)");
    expect(() => parseQuery('origin:crawler')).toThrow(/origin must be one of probe, buyer, any/);
  });

  it('escapes LIKE wildcards in bare words', () => {
    const c = compileQuery(parseQuery('50%_off'), ctx);
    expect(c.params.slice(2)).toEqual(['%50\\%\\_off%', '%50\\%\\_off%', '%50\\%\\_off%']);
  });

  it('lets since:/until: in the query override the window', () => {
    const c = compileQuery(parseQuery('since:15m'), ctx);
    expect(c.window).toEqual({ since: T0 - 15 * 60_000, until: T0 + 1 });
  });

  it('uses a pseudonym-shaped value as it is without a key, and refuses a raw one', () => {
    expect(compileQuery(parseQuery(`client:${STORM_CLIENT}`), ctx).params.slice(2)).toEqual([STORM_CLIENT]);
    expect(() => compileQuery(parseQuery('subject:jo@example.com'), ctx)).toThrow(/needs the pseudonymisation key/);
  });

  it('tells pseudonyms (22 base64url characters) from emails, phones and API keys', () => {
    expect(looksLikePseudonym('AbCdEfGhIjKlMnOpQrSt_-')).toBe(true);
    expect(looksLikePseudonym('jo@example.com')).toBe(false);
    expect(looksLikePseudonym('+15555550123')).toBe(false);
    expect(looksLikePseudonym('sk_test_0123456789abcdefghijkl')).toBe(false);
  });
});

describe('queries against a store', () => {
  let store: ReturnType<typeof seededStore>;
  let db: Database.Database;
  let reader: AuditReader;
  beforeAll(() => {
    store = seededStore();
    db = new Database(store.path, { readonly: true });
    reader = sqliteReader(db);
  });
  afterAll(() => {
    db.close();
    store.cleanup();
  });
  const all = { since: T0 - 3_600_000, until: T0 + 3_600_000 };

  const count = (): number => db.prepare('SELECT COUNT(*) FROM error_events').pluck().get() as number;

  it.each([
    ["' OR 1=1", 0],
    ["code:' OR '1'='1", 0],
    ["code:1;DELETE", 0],
    ['skill:"lead.submit\' OR \'1\'=\'1"', 1],
    ['%', 0],
    ['"; DROP TABLE traffic; --"', 0],
  ])('treats %s as a value, not SQL', async (text, rows) => {
    const res = (await searchErrors(reader, text, all, { now: T0 }));
    expect(res.total).toBe(rows);
    if (rows) expect(res.rows.map((r) => r.skill)).toEqual(["lead.submit' OR '1'='1"]);
    expect(count()).toBe(155);
  });

  it.each([
    ["' OR 1=1 --", '--'],
    ['code:x");DROP TABLE error_events;--', 'code:x");DROP TABLE error_events;--'],
  ])('rejects %s with the bad token named, running nothing', async (text, token) => {
    await expect(searchErrors(reader, text, all, { now: T0 })).rejects.toThrow(QuerySyntaxError);
    try {
      await searchErrors(reader, text, all, { now: T0 });
    } catch (error) {
      expect((error as QuerySyntaxError).token).toBe(token);
    }
    expect(count()).toBe(155);
  });

  it('finds the row whose error_id is an injection string by its exact id', async () => {
    const res = (await searchErrors(reader, `id:"err_quote'; DROP TABLE error_events;--"`, all, { now: T0 }));
    expect(res.rows.map((r) => r.error_id)).toEqual(["err_quote'; DROP TABLE error_events;--"]);
  });
});

describe('looksLikeSubject', () => {
  it.each(['jo@example.com', ' Jo.Buyer+tag@Example.COM ', '+15555550123', '+1 (555) 555-0123', '555.555.0123', '0044 20 7946 0958'])('takes %j for an email or phone', (v) => {
    expect(looksLikeSubject(v)).toBe(true);
  });
  it.each(['sk_test_partner_0001', 'client-42', '12345', '555-0123', '', 'jo@localhost', 'a b@example.com', '1234567890123456'])('does not take %j for one', (v) => {
    expect(looksLikeSubject(v)).toBe(false);
  });
});

describe('describeGap', () => {
  it('is the one sentence the views show: count, UTC bounds, reason', () => {
    const at = Date.UTC(2026, 10, 30, 10, 5, 0);
    expect(describeGap({ dropped: 17, started_at: at, ended_at: at + 61_000, reason: 'queue_full' })).toBe(
      '17 errors not recorded between 2026-11-30 10:05:00Z and 2026-11-30 10:06:01Z (queue_full)',
    );
    expect(describeGap({ dropped: 1, started_at: at, ended_at: at, reason: 'write_failed' })).toBe(
      '1 error not recorded between 2026-11-30 10:05:00Z and 2026-11-30 10:05:00Z (write_failed)',
    );
  });
});
