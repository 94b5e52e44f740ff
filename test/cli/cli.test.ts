import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPseudonymizer, ERROR_EVENT_COLUMNS } from '../../src/audit/index.js';
import { main } from '../../src/cli/index.js';
import { stormId } from '../../src/triage/index.js';
import { event, HEALTHY_CLIENT, insertEvents, MIN, RATE_CLIENT, seededStore, SEED_COUNTS, STORM_CLIENT, T0 } from '../triage/seed.js';

const SECRET = 'test-secret-0123456789abcdef';
const pseudo = createPseudonymizer(SECRET);
const NOW = T0 + 3_600_000; // 11:00Z, one hour after the seed starts

/** Runs the CLI in-process, capturing output. */
async function run(args: string[], env: Record<string, string> = {}, signal?: AbortSignal): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    stderr: { write: (c: string | Uint8Array) => (err += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    env: { AAP_TRIAGE_DB: store.path, ...env },
    now: () => NOW,
    ...(signal ? { signal } : {}),
  });
  return { code, out, err };
}

/** Asserts the one-line error rule: exactly one line, prefixed, no stack frames. */
function expectOneLineError(err: string, pattern: RegExp): void {
  const lines = err.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^aap-triage: /);
  expect(lines[0]).toMatch(pattern);
  expect(err).not.toMatch(/\n\s+at /);
}

let store: ReturnType<typeof seededStore>;
const PARTNER_KEY = 'sk_test_partner_0001';
const EMAIL = 'jo.buyer@example.com';

beforeAll(() => {
  store = seededStore();
  const db = new Database(store.path);
  // Two rows written under the test key: one partner credential, one customer email.
  insertEvents(db, [
    event({ error_id: 'err_keyed00000000000000000000000001', occurred_at: T0 + 45 * MIN, code: 'INVALID_CONSENT', retryable: false, skill: 'lead.submit', client: pseudo.client(PARTNER_KEY), subject: pseudo.subject(EMAIL) }),
  ]);
  db.close();
});
afterAll(() => store.cleanup());

describe('aap-triage (no command) and --help', () => {
  it('prints help and exits 0 without a command', async () => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: aap-triage \[options\] \[command\]/);
    expect(r.out).toContain('Exit codes:');
    expect(r.err).toBe('');
  });

  it('documents the exit codes in --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const line of ['  0  ok', '  1  nothing found', '  2  usage or input error', '  3  environment error']) expect(r.out).toContain(line);
  });

  it.each([
    [['--frob'], /unknown option '--frob'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['search', '--since', 'yesterday'], /--since 'yesterday' is not a duration/],
    [['search', '--limit', '0'], /--limit must be a positive integer/],
    [['search', 'code:X', 'bogus:1'], /bad query token 'bogus:1'/],
    [['show'], /missing required argument 'error_id'/],
    [['draft'], /exactly one of --storm/],
    [['draft', '--storm', 'nope'], /'nope' is not a storm id/],
    [['draft', '--storm', 'storm-20261130T1000Z-00000000', '--format', 'pdf'], /--format must be text, md or eml/],
    [['hash', 'x', '--as', 'phone'], /--as must be client, subject or idempotency/],
    [['prune', '--older-than', 'soon'], /--older-than 'soon' is not a duration/],
    [['forget'], /exactly one of --email or --phone/],
  ])('exits 2 with one line for %j', async (args, pattern) => {
    const r = await run(args, { AAP_TRIAGE_KEY: SECRET });
    expect(r.code).toBe(2);
    expectOneLineError(r.err, pattern);
  });

  it('exits 3 with one line when the database is missing', async () => {
    const r = await run(['search', '--db', join(store.dir, 'nope.db')]);
    expect(r.code).toBe(3);
    expectOneLineError(r.err, /no audit database at .*nope\.db/);
  });
});

describe('search', () => {
  it('--json prints an array of rows with the DESIGN §5 column names, JSON columns parsed', async () => {
    const r = await run(['search', '--json', '--since', '2h', 'code:SCHEMA_VALIDATION_FAILED', 'attempt:4']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as Record<string, unknown>[];
    expect(rows).toHaveLength(20);
    expect(Object.keys(rows[0]!)).toEqual([...ERROR_EVENT_COLUMNS]);
    expect(rows[0]).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', retryable: false, attempt: 4, retry_flags: ['retried_non_retryable', 'no_backoff'] });
    expect(rows.map((x) => x['occurred_at'])).toEqual([...rows.map((x) => x['occurred_at'] as number)].sort((a, b) => b - a));
  });

  it('prints a table and the "rows a–b of N" footer', async () => {
    const r = await run(['search', '--since', '2h', '--limit', '2', 'protocol:dmc12,a2a']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME \(UTC\)\s+CODE\s+RETRYABLE\s+SKILL\s+PROTOCOL\s+CLIENT\s+ATTEMPT\s+FLAGS\s+ERROR_ID$/);
    expect(lines[1]).toMatch(/^2026-11-30 10:41:00Z\s+EXTENSION_SUPPORT_REQUIRED\s+\?\s+-\s+a2a\s+/);
    expect(lines[2]).toMatch(/RESERVATION_CONFLICT\s+false\s+create_reservation\s+dmc12.*err_dmc12stray000000000000000000001$/);
    expect(lines[3]).toBe('rows 1–2 of 2 (2026-11-30 09:00:00Z to 2026-11-30 11:00:00Z UTC)');
  });

  it('exits 0 with a note on stderr when nothing matches, and --json prints []', async () => {
    const r = await run(['search', 'code:NOTHING']);
    expect([r.code, r.out]).toEqual([0, '']);
    expect(r.err).toMatch(/^no errors match between/);
    const j = await run(['search', '--json', 'code:NOTHING']);
    expect([j.code, JSON.parse(j.out)]).toEqual([0, []]);
  });

  it('pseudonymises raw client: and subject: values with the current key', async () => {
    const byClient = await run(['search', '--json', '--since', '2h', `client:${PARTNER_KEY}`], { AAP_TRIAGE_KEY: SECRET });
    expect((JSON.parse(byClient.out) as { error_id: string }[]).map((x) => x.error_id)).toEqual(['err_keyed00000000000000000000000001']);
    const bySubject = await run(['search', '--json', '--since', '2h', 'subject:JO.BUYER@example.com'], { AAP_TRIAGE_KEY: SECRET });
    expect((JSON.parse(bySubject.out) as unknown[]).length).toBe(1);
    const noKey = await run(['search', '--since', '2h', `client:${PARTNER_KEY}`], { AAP_TRIAGE_KEY: '' });
    expect(noKey.code).toBe(2);
    expectOneLineError(noKey.err, /needs the pseudonymisation key/);
  });

  it('accepts -field:value exclusions after the command', async () => {
    const r = await run(['search', '--json', '--since', '2h', '--limit', '500', 'code:RATE_LIMITED', `-client:${RATE_CLIENT}`]);
    expect((JSON.parse(r.out) as unknown[]).length).toBe(30);
  });

  it('--histogram prints errors per minute', async () => {
    const r = await run(['search', '--histogram', '--json', '--since', '2026-11-30T10:20:00Z', '--until', '2026-11-30T10:22:00Z', 'skill:inventory.search']);
    const h = JSON.parse(r.out) as { buckets: { retryable: number }[] };
    expect(h.buckets.map((b) => b.retryable)).toEqual([15, 15]);
  });
});

describe('show and trace', () => {
  it('show prints every column, the code meaning and client action, and related rows', async () => {
    const r = await run(['show', 'err_dmc12stray000000000000000000001']);
    expect(r.code).toBe(0);
    for (const col of ERROR_EVENT_COLUMNS) expect(r.out).toMatch(new RegExp(`^${col} +`, 'm'));
    expect(r.out).toMatch(/^upstream_trace_id +trc_0123456789abcdef01234567$/m);
    expect(r.out).toMatch(/^Client action: +.*another VIN/im);
    expect(r.out).toContain('Same trace (1)');
    expect(r.out).toContain('err_a2astray00000000000000000000002');
    const j = await run(['show', '--json', 'err_dmc12stray000000000000000000001']);
    const detail = JSON.parse(j.out) as { error: { code: string }; code_info: { retryable: boolean }; same_trace: unknown[]; same_fingerprint: unknown[] };
    expect([detail.error.code, detail.code_info.retryable, detail.same_trace.length, detail.same_fingerprint.length]).toEqual(['RESERVATION_CONFLICT', false, 1, 0]);
  });

  it('show exits 1 for an unknown id', async () => {
    const r = await run(['show', 'err_00000000000000000000000000000000']);
    expect([r.code, r.out]).toEqual([1, '']);
    expectOneLineError(r.err, /no error with id err_0+/);
  });

  it('trace lists rows of a trace id or upstream trace id, and exits 1 for none', async () => {
    const r = await run(['trace', '--json', '00000000000000000000000000004001']);
    expect((JSON.parse(r.out) as { error_id: string }[]).map((x) => x.error_id)).toEqual(['err_dmc12stray000000000000000000001', 'err_a2astray00000000000000000000002']);
    const up = await run(['trace', 'trc_0123456789abcdef01234567']);
    expect(up.code).toBe(0);
    expect(up.out.trimEnd().split('\n')).toHaveLength(2);
    const none = await run(['trace', 'trc_none']);
    expect(none.code).toBe(1);
  });
});

describe('stats and storms', () => {
  it('stats --json counts the window with traffic rates', async () => {
    const r = await run(['stats', '--json', '--since', '2026-11-30T10:00:00Z']);
    const s = JSON.parse(r.out) as { errors: number; traffic: { requests: number; retries: number }; by_retryable: unknown; gaps: unknown[] };
    expect(s.errors).toBe(SEED_COUNTS.total + 1);
    expect(s.traffic).toMatchObject({ requests: 3170, errors: 272, retries: 246 });
    expect(s.by_retryable).toEqual({ true: 72, false: 83, unknown: 1 });
    expect(s.gaps).toEqual([]);
  });

  it('stats text has the sections', async () => {
    const r = await run(['stats', '--since', '2026-11-30T10:00:00Z']);
    expect(r.out).toContain('Errors: 156');
    expect(r.out).toContain('Calls: 3170  errors: 272  retries: 246  error rate: 8.6 %  retry ratio: 7.8 %');
    for (const h of ['By code', 'By skill', 'By protocol']) expect(r.out).toMatch(new RegExp(`^${h}$`, 'm'));
  });

  it('storms --json prints the two episodes with stable ids', async () => {
    const r = await run(['storms', '--json', '--since', '2h']);
    const storms = JSON.parse(r.out) as { id: string; client: string; requests: number; retries: number; reasons: string[] }[];
    expect(storms.map((s) => [s.id, s.client, s.requests, s.retries])).toEqual([
      [stormId(RATE_CLIENT, T0 + 20 * MIN), RATE_CLIENT, 90, 36],
      [stormId(STORM_CLIENT, T0), STORM_CLIENT, 80, 60],
    ]);
    const text = await run(['storms', '--since', '2h']);
    expect(text.out).toContain(stormId(STORM_CLIENT, T0));
    // The hint repeats the global options given (here --since; the database came from AAP_TRIAGE_DB).
    expect(text.out).toMatch(/^2 episodes; draft one with: aap-triage --since 2h draft --storm <ID>$/m);
  });

  it('storms repeats --db (quoted when it has spaces) and --since in its draft hint, and the hinted command works', async () => {
    const dir = join(store.dir, 'dealer stores');
    mkdirSync(dir, { recursive: true });
    const spaced = join(dir, "o'brien audit.db");
    copyFileSync(store.path, spaced);
    const r = await run(['--db', spaced, 'storms', '--since', '2h'], { AAP_TRIAGE_DB: '' });
    expect(r.code).toBe(0);
    const quoted = `'${spaced.replace(/'/g, `'\\''`)}'`;
    expect(r.out).toContain(`2 episodes; draft one with: aap-triage --db ${quoted} --since 2h draft --storm <ID>\n`);
    // The same words, with an id from the table, draft that storm from the same store.
    const drafted = await run(['--db', spaced, '--since', '2h', 'draft', '--storm', stormId(STORM_CLIENT, T0)], { AAP_TRIAGE_DB: '' });
    expect(drafted.code).toBe(0);
    expect(drafted.out).toContain('Subject: [aap-triage]');
  });

  it('draft --storm names the storms command with the --db given when the storm is unknown', async () => {
    const r = await run(['--db', store.path, 'draft', '--storm', 'storm-20261130T0000Z-00000000']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`list current ones with aap-triage --db ${store.path} storms --since 7d\n`);
  });

  it('refuses a directory as --db with one line, before SQLite reads it, exit 3', async () => {
    for (const args of [['--db', store.dir, 'search'], ['--db', store.dir, 'doctor'], ['--db', store.dir, 'prune']]) {
      const r = await run(args);
      expect(r.code).toBe(3);
      expectOneLineError(r.err, new RegExp(`^aap-triage: ${store.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a directory, not an audit database — pass the \\.db file$`));
      expect(r.err).not.toContain('SQLITE');
    }
  });

  it('storms takes thresholds as options: a 1 % ratio with 1 retry a minute flags the healthy client too', async () => {
    const r = await run(['storms', '--json', '--since', '2h', '--retry-ratio', '0.01', '--min-retries', '1']);
    const clients = (JSON.parse(r.out) as { client: string }[]).map((s) => s.client).sort();
    expect(clients).toEqual([HEALTHY_CLIENT, RATE_CLIENT, STORM_CLIENT].sort());
    const bad = await run(['storms', '--retry-ratio', 'lots']);
    expect(bad.code).toBe(2);
    expectOneLineError(bad.err, /--retry-ratio must be a non-negative number/);
  });

  it('storms notes an empty window and exits 0', async () => {
    const r = await run(['storms', '--since', '2026-11-30T09:00:00Z', '--until', '2026-11-30T09:30:00Z']);
    expect([r.code, r.out, r.err]).toEqual([0, '', 'no retry storms in the window\n']);
  });
});

describe('draft', () => {
  const id = (): string => stormId(STORM_CLIENT, T0);

  it('prints the text draft of a storm', async () => {
    const r = await run(['draft', '--storm', id()]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Subject: \[aap-triage\] Retry storm from client stormCli on lead\.submit/);
    for (const h of ['Summary', 'Impact', 'Timeline (UTC)', 'Errors by code', 'Evidence (error_id + trace_id)', 'Requested action', 'Next update']) {
      expect(r.out).toMatch(new RegExp(`^${h.replace(/[()+]/g, '\\$&')}$`, 'm'));
    }
    expect(r.out).toContain('By 2026-11-30 12:00 UTC');
  });

  it('--format md and --json give the Markdown and the facts', async () => {
    const md = await run(['draft', '--storm', id(), '--format', 'md']);
    expect(md.out).toMatch(/^# \[aap-triage\] Retry storm/);
    expect(md.out).toContain('## Requested action');
    const j = await run(['draft', '--json', '--query', 'code:RATE_LIMITED client:' + RATE_CLIENT, '--since', '2h']);
    const d = JSON.parse(j.out) as { subject: string; facts: { errors: number; requests: number } };
    expect([d.facts.errors, d.facts.requests]).toEqual([42, 90]);
  });

  it('--format eml --out writes an RFC 5322 message that parses back', async () => {
    const file = join(store.dir, 'incident.eml');
    const r = await run(['draft', '--storm', id(), '--format', 'eml', '--to', 'partner@example.com', '--from', 'oncall@dealer.example.com', '--out', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^wrote .*incident\.eml \(eml\): \[aap-triage\] Retry storm/);
    const raw = readFileSync(file);
    const mail = await simpleParser(raw);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('partner@example.com');
    expect(mail.from?.text).toBe('oncall@dealer.example.com');
    expect(mail.date?.getTime()).toBe(NOW);
    expect(mail.messageId).toMatch(/^<[0-9a-f-]+@dealer\.example\.com>$/);
    expect(mail.subject).toMatch(/^\[aap-triage\] Retry storm from client stormCli /);
    expect(mail.text).toContain('Requested action');
    expect(raw.toString('utf8')).toMatch(/^Content-Type: text\/plain; charset=utf-8$/m);
  });

  it('--out refuses to overwrite without --force and never follows a symlink at the final path', async () => {
    const dir = join(store.dir, 'out-safety');
    mkdirSync(dir, { recursive: true });
    const existing = join(dir, 'draft.txt');
    writeFileSync(existing, 'keep me\n');
    const refused = await run(['draft', '--storm', id(), '--out', existing]);
    expect(refused.code).toBe(2);
    expectOneLineError(refused.err, /already exists; not overwritten/);
    expect(readFileSync(existing, 'utf8')).toBe('keep me\n');

    // A symlink planted at the path, pointing at a file the operator never meant to touch.
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const link = join(dir, 'link.txt');
    symlinkSync(victim, link);
    const viaLink = await run(['draft', '--storm', id(), '--out', link]);
    expect(viaLink.code).toBe(2);
    expectOneLineError(viaLink.err, /already exists/);
    const dangling = join(dir, 'dangling.txt');
    symlinkSync(join(dir, 'not-there.txt'), dangling);
    expect((await run(['draft', '--storm', id(), '--out', dangling])).code).toBe(2);
    expect(existsSync(join(dir, 'not-there.txt'))).toBe(false);

    // --force replaces the path itself: the symlink becomes a regular file, its target is untouched.
    const forced = await run(['draft', '--storm', id(), '--out', link, '--force']);
    expect(forced.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(readFileSync(link, 'utf8')).toMatch(/Retry storm/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(link).mode & 0o777).toBe(0o600);
    expect((await run(['draft', '--storm', id(), '--out', existing, '--force'])).code).toBe(0);
    expect(readFileSync(existing, 'utf8')).toMatch(/Retry storm/);
  });

  it('drafts error ids, and exits 1 when nothing matches', async () => {
    const ok = await run(['draft', 'err_dmc12stray000000000000000000001']);
    expect(ok.out).toContain('trace_id=00000000000000000000000000004001  upstream_trace_id=trc_0123456789abcdef01234567');
    const none = await run(['draft', 'err_00000000000000000000000000000000']);
    expect(none.code).toBe(1);
    expectOneLineError(none.err, /nothing to draft/);
    const noStorm = await run(['draft', '--storm', 'storm-20261130T0900Z-00000000']);
    expect(noStorm.code).toBe(1);
  });

  it('eml needs --to', async () => {
    const r = await run(['draft', '--storm', id(), '--format', 'eml']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /needs --to/);
  });
});

describe('hash, prune, forget', () => {
  it('hash prints the pseudonym under the current key, and exits 3 without a key', async () => {
    const r = await run(['hash', PARTNER_KEY], { AAP_TRIAGE_KEY: SECRET });
    expect([r.code, r.out]).toEqual([0, `${pseudo.client(PARTNER_KEY)}\n`]);
    const s = await run(['hash', '--json', '--as', 'subject', EMAIL], { AAP_TRIAGE_KEY: SECRET });
    expect(JSON.parse(s.out)).toEqual({ kind: 'subject', pseudonym: pseudo.subject(EMAIL), key_id: pseudo.keyId });
    const none = await run(['hash', PARTNER_KEY], { AAP_TRIAGE_KEY: '' });
    expect(none.code).toBe(3);
    expectOneLineError(none.err, /no pseudonym key/);
  });

  describe('on a copy', () => {
    let copy: ReturnType<typeof seededStore>;
    beforeEach(() => {
      copy = seededStore();
      const db = new Database(copy.path);
      insertEvents(db, [event({ occurred_at: T0 + 50 * MIN, subject: pseudo.subject(EMAIL) }), event({ occurred_at: T0 + 51 * MIN, subject: pseudo.subject(EMAIL) })]);
      db.close();
      return () => copy.cleanup();
    });

    it('prune deletes what is older than the duration', async () => {
      // now = 11:00Z; older than 30m → everything before 10:30Z goes (storm rows, 30 healthy, 42 rate rows, their traffic).
      const r = await run(['prune', '--json', '--db', copy.path, '--older-than', '30m', '--force']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ older_than_ms: 1_800_000, deleted: { error_events: 80 + 42 + 30, traffic: 5 + 3 + 30, gaps: 0 } });
    });

    it('forget deletes the rows of an email under the current key', async () => {
      const r = await run(['forget', '--db', copy.path, '--email', ' Jo.Buyer@Example.com '], { AAP_TRIAGE_KEY: SECRET });
      expect(r.code).toBe(0);
      expect(r.out).toBe(`deleted 2 errors recorded for that email (key ${pseudo.keyId})\n`);
      const db = new Database(copy.path, { readonly: true });
      expect(db.prepare('SELECT COUNT(*) FROM error_events WHERE subject = ?').pluck().get(pseudo.subject(EMAIL))).toBe(0);
      db.close();
    });
  });
});

describe('doctor', () => {
  it('reports each check on one line and exits 0 on a good database', async () => {
    const r = await run(['doctor'], { AAP_TRIAGE_KEY: SECRET });
    expect(r.code).toBe(0);
    const checks = r.out.trimEnd().split('\n').map((l) => l.split(/\s+/).slice(0, 2));
    expect(checks).toEqual([
      ['OK', 'node'],
      ['OK', 'native'],
      ['OK', 'database'],
      ['OK', 'integrity'],
      ['OK', 'wal'],
      ['OK', 'gaps'],
      ['OK', 'key'],
      ['SKIP', 'writer'],
    ]);
    expect(r.out).toMatch(/^OK +database +.*audit\.db \(schema \d+ of \d+\)$/m);
  });

  it('fails the database check and exits 3 for a missing database', async () => {
    const r = await run(['doctor', '--json', '--db', join(store.dir, 'missing.db')]);
    expect(r.code).toBe(3);
    const checks = JSON.parse(r.out) as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === 'database')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/no audit database/) });
  });

  it('fails the database check and exits 3 for a file that is not a database', async () => {
    const file = join(store.dir, 'notes.txt');
    writeFileSync(file, 'this is not sqlite\n'.repeat(100));
    const r = await run(['doctor', '--db', file]);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/^FAIL +database +.*not an aap-triage audit database/m);
  });
});

describe('doctor and the writer health', () => {
  it('exits 3 while a running writer reports degraded, and only warns once that process is gone', async () => {
    const copy = seededStore();
    try {
      const { writeHealthFile, writerHealthFilePath } = await import('../../src/audit/health.js');
      const { unlinkSync } = await import('node:fs');
      const report = { state: 'degraded' as const, reason: 'a batch of 5 audit records failed (SQLITE_FULL: database or disk is full)', written: 10, dropped: 0, failed: 5, queueSize: 0, path: copy.path, service: 'dealer', updatedAt: Date.now() };
      writeHealthFile({ ...report, pid: process.pid });
      const running = await run(['doctor', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
      expect(running.code).toBe(3);
      expect(running.out).toMatch(/^FAIL +writer +.*degraded: a batch of 5 audit records failed .*failed 5/m);
      unlinkSync(writerHealthFilePath(copy.path, 'dealer', process.pid));
      writeHealthFile({ ...report, pid: 2 ** 22 + 12_345, updatedAt: Date.now() + 1 }); // above Linux's pid_max: never running
      const gone = await run(['doctor', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
      expect(gone.code).toBe(0);
      expect(gone.out).toMatch(/^WARN +writer +.*degraded: .*no longer running/m);
    } finally {
      copy.cleanup();
    }
  });
});

describe('tail', () => {
  it('prints the last rows, then rows that land, and stops cleanly when aborted', async () => {
    const copy = seededStore();
    try {
      const stop = new AbortController();
      const offset = NOW - Date.now(); // the seed lies in the past of this clock
      const clock = (): number => Date.now() + offset;
      let out = '';
      const done = main(['node', 'aap-triage', 'tail', '--json', '--lines', '2', '--interval', '50', '--db', copy.path], {
        stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
        stderr: { write: () => true },
        env: {},
        now: clock,
        signal: stop.signal,
      });
      await new Promise((r) => setTimeout(r, 150));
      const db = new Database(copy.path);
      const fresh = event({ error_id: 'err_tail000000000000000000000000001', occurred_at: clock(), code: 'UPSTREAM_UNAVAILABLE', protocol: 'dmc12' });
      insertEvents(db, [fresh]);
      db.close();
      for (let i = 0; i < 40 && !out.includes(fresh.error_id); i++) await new Promise((r) => setTimeout(r, 50));
      stop.abort();
      expect(await done).toBe(0);
      const lines = out.trimEnd().split('\n').map((l) => JSON.parse(l) as { error_id: string });
      expect(lines.map((l) => l.error_id)).toEqual(["err_a2astray00000000000000000000002", "err_quote'; DROP TABLE error_events;--", fresh.error_id]);
    } finally {
      copy.cleanup();
    }
  });
});

describe('tail columns', () => {
  it('stay aligned when a label, a code or the flags are wide: widths are fixed from what each column can hold (issue 28)', async () => {
    const copy = seededStore();
    try {
      const db = new Database(copy.path);
      db.prepare('INSERT INTO client_labels (client, name, contact, updated_at) VALUES (?, ?, NULL, 0)').run(STORM_CLIENT, 'A Very Long Partner Name Motors GmbH & Co. KG');
      const at = NOW - 1000;
      insertEvents(db, [
        event({ error_id: 'err_tailwide00000000000000000000001', occurred_at: at, code: 'EXTENSION_SUPPORT_REQUIRED', client: STORM_CLIENT, retry_flags: ['retried_non_retryable', 'ignored_retry_after', 'no_backoff'], attempt: 12 }),
        event({ error_id: 'err_tailwide00000000000000000000002', occurred_at: at + 1, code: 'X', client: null, skill: 'initiate_deal_handoff' }),
      ]);
      db.close();
      const stop = new AbortController();
      const offset = NOW - Date.now();
      let out = '';
      const done = main(['node', 'aap-triage', 'tail', '--lines', '6', '--interval', '50', '--db', copy.path], {
        stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
        stderr: { write: () => true },
        env: {},
        now: () => Date.now() + offset,
        signal: stop.signal,
      });
      await new Promise((r) => setTimeout(r, 200));
      stop.abort();
      expect(await done).toBe(0);
      const lines = out.trimEnd().split('\n');
      expect(lines.length).toBe(7);
      expect(out).toContain('A Very Long Partner Name Motors GmbH & Co. KG');
      expect(out).toContain('retried_non_retryable,ignored_retry_after,no_backoff');
      // Every column starts at the same cell on every line: the header's column starts hold on each row.
      const header = lines[0]!;
      const starts = ['CODE', 'RETRYABLE', 'SKILL', 'PROTOCOL', 'CLIENT', 'ATTEMPT', 'FLAGS', 'ERROR_ID'].map((h) => header.indexOf(h));
      for (const line of lines.slice(1)) {
        for (const at of starts) {
          expect(line[at - 1], line).toBe(' ');
          expect(line[at], line).not.toBe(' ');
        }
      }
    } finally {
      copy.cleanup();
    }
  });
});

describe('doctor and the key file', () => {
  it('refuses a key file readable by others, and a key file that is not a regular file', async () => {
    const copy = seededStore();
    try {
      const { chmodSync } = await import('node:fs');
      const keyFile = `${copy.path}.key`;
      writeFileSync(keyFile, `${SECRET}\n`);
      chmodSync(keyFile, 0o644);
      const r = await run(['doctor', '--db', copy.path], { AAP_TRIAGE_KEY: '' });
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^WARN +key +pseudonym key file .*audit\.db\.key is readable by group\/others \(mode 644\): chmod 600 it/m);
      const refused = await run(['hash', '--db', copy.path, PARTNER_KEY], { AAP_TRIAGE_KEY: '' });
      expect(refused.code).not.toBe(0);
      expectOneLineError(refused.err, /readable by group\/others/);
      const dev = await run(['hash', '--db', copy.path, '--key-file', '/dev/zero', PARTNER_KEY], { AAP_TRIAGE_KEY: '' });
      expect(dev.code).not.toBe(0);
      expectOneLineError(dev.err, /not a regular file/);
      chmodSync(keyFile, 0o600);
      const ok = await run(['doctor', '--db', copy.path], { AAP_TRIAGE_KEY: '' });
      expect(ok.out).toMatch(new RegExp(`^OK +key +key ${pseudo.keyId} `, 'm'));
      const hashed = await run(['hash', '--db', copy.path, PARTNER_KEY], { AAP_TRIAGE_KEY: '' });
      expect(hashed.out).toBe(`${pseudo.client(PARTNER_KEY)}\n`);
    } finally {
      copy.cleanup();
    }
  });
});

describe('gap records in stats and search', () => {
  let copy: ReturnType<typeof seededStore>;
  beforeEach(() => {
    copy = seededStore();
    const db = new Database(copy.path);
    const gap = db.prepare('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES (?, ?, ?, ?, ?)');
    gap.run('dealer-test', T0 + 5 * MIN, T0 + 6 * MIN, 17, 'queue_full');
    gap.run('dealer-test', T0 + MIN, T0 + 2 * MIN + 30_000, 1, 'write_failed');
    gap.run('dealer-test', T0 - 3 * 86_400_000, T0 - 3 * 86_400_000 + MIN, 99, 'queue_full'); // outside every window below
    db.close();
    return () => copy.cleanup();
  });
  const lines = ['17 errors not recorded between 2026-11-30 10:05:00Z and 2026-11-30 10:06:00Z (queue_full)', '1 error not recorded between 2026-11-30 10:01:00Z and 2026-11-30 10:02:30Z (write_failed)'];

  it('stats prints one line per gap in the window, newest first', async () => {
    const r = await run(['stats', '--db', copy.path, '--since', '2026-11-30T10:00:00Z']);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n').slice(-2)).toEqual(lines);
    const later = await run(['stats', '--db', copy.path, '--since', '2026-11-30T10:03:00Z']);
    expect(later.out.trimEnd().split('\n').slice(-1)).toEqual([lines[0]]);
    expect(later.out).not.toContain('write_failed');
  });

  it('search notes the gaps on stderr in text mode only; --json stays an array of rows', async () => {
    const r = await run(['search', '--db', copy.path, '--since', '2026-11-30T10:00:00Z', 'code:RATE_LIMITED']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`${lines.join('\n')}\n`);
    expect(r.out).not.toContain('not recorded');
    const json = await run(['search', '--json', '--db', copy.path, '--since', '2026-11-30T10:00:00Z']);
    expect(json.err).toBe('');
    expect(Array.isArray(JSON.parse(json.out))).toBe(true);
    const none = await run(['search', '--db', copy.path, '--since', '2026-11-30T10:30:00Z']);
    expect(none.err).not.toContain('not recorded');
  });
});

describe('a store with an older schema', () => {
  let copy: ReturnType<typeof seededStore>;
  beforeEach(() => {
    copy = seededStore();
    const db = new Database(copy.path);
    // As an aap-triage before migration 2 left it (what migrations 2 and 3 add, taken away).
    db.exec(`DROP INDEX error_events_retries; DROP INDEX error_events_issue_time;
      DROP TABLE issue_hours; DROP TABLE issue_client_ids; DROP TABLE client_labels;
      ALTER TABLE error_events DROP COLUMN issue_key; ALTER TABLE error_events DROP COLUMN subject_alt;
        DROP INDEX error_events_origin_time; ALTER TABLE error_events DROP COLUMN origin;
        ALTER TABLE error_events DROP COLUMN service_version; DROP TABLE issue_states; DROP TABLE issue_hour_versions;`);
    db.pragma('user_version = 1');
    db.close();
    return () => copy.cleanup();
  });

  it('search exits 3 with one line naming doctor --migrate, and does not migrate', async () => {
    const r = await run(['search', '--db', copy.path]);
    expect(r.code).toBe(3);
    expectOneLineError(r.err, /schema version 1, older than this aap-triage's \d+: run `aap-triage --db \S+ doctor --migrate`/);
    expect(r.err).toContain(`run \`aap-triage --db ${copy.path} doctor --migrate\``);
    const db = new Database(copy.path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('doctor fails the database check; doctor --migrate upgrades it and then every check passes', async () => {
    const before = await run(['doctor', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
    expect(before.code).toBe(3);
    expect(before.out).toMatch(/^FAIL +database +.*audit\.db \(schema 1 of \d+\): older than this aap-triage — run aap-triage --db \S+ doctor --migrate$/m);
    expect(before.out).toContain(`run aap-triage --db ${copy.path} doctor --migrate\n`);
    const after = await run(['doctor', '--migrate', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
    expect(after.code).toBe(0);
    expect(after.out).toMatch(/^migrated schema from version 1 to \d+$/m);
    expect(after.out).toMatch(/^OK +database +.*\(schema (\d+) of \1\)$/m);
    expect(after.out).toMatch(/^OK +gaps /m);
    const search = await run(['search', '--json', '--db', copy.path, '--since', '2026-11-30T10:00:00Z', '--limit', '1']);
    expect(search.code).toBe(0);
    const again = await run(['doctor', '--migrate', '--json', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
    expect(again.err).toMatch(/^aap-triage: schema already at version \d+\n$/);
    expect(JSON.parse(again.out)).toContainEqual(expect.objectContaining({ check: 'database', status: 'ok' }));
  });
});

describe('hash picks the role', () => {
  /** Like `run`, with `stdin` fed to the program. */
  async function runWithStdin(args: string[], input: string): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(['node', 'aap-triage', ...args], {
      stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
      stderr: { write: (c: string | Uint8Array) => (err += String(c)) },
      env: { AAP_TRIAGE_DB: store.path, AAP_TRIAGE_KEY: SECRET },
      now: () => NOW,
      stdin: Readable.from([Buffer.from(input, 'utf8')]),
    });
    return { code, out, err };
  }

  it.each([
    [EMAIL, 'subject', 'it looks like an email or phone'],
    ['+1 (555) 555-0123', 'subject', 'it looks like an email or phone'],
    ['555.555.0123', 'subject', 'it looks like an email or phone'],
    [PARTNER_KEY, 'client', 'it does not look like an email or phone'],
    ['12345', 'client', 'it does not look like an email or phone'],
  ] as const)('hashes %j as %s without --as, and says so on stderr', async (value, kind, why) => {
    const r = await run(['hash', value], { AAP_TRIAGE_KEY: SECRET });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${pseudo.lookup(kind, value)}\n`);
    expect(r.err).toBe(`aap-triage: hashed as ${kind} (${why}; --as to choose)\n`);
    const json = await run(['hash', '--json', value], { AAP_TRIAGE_KEY: SECRET });
    expect(JSON.parse(json.out)).toEqual({ kind, pseudonym: pseudo.lookup(kind, value), key_id: pseudo.keyId });
    expect(json.err).toBe('');
  });

  it('--as wins over the guess', async () => {
    const r = await run(['hash', '--as', 'client', EMAIL], { AAP_TRIAGE_KEY: SECRET });
    expect([r.out, r.err]).toEqual([`${pseudo.client(EMAIL)}\n`, 'aap-triage: hashed as client\n']);
  });

  it("reads the value from stdin for '-', dropping one final newline", async () => {
    const r = await runWithStdin(['hash', '-'], `${EMAIL}\n`);
    expect([r.code, r.out]).toEqual([0, `${pseudo.subject(EMAIL)}\n`]);
    expect(r.err).toContain('hashed as subject');
    const key = await runWithStdin(['hash', '--json', '-'], PARTNER_KEY);
    expect(JSON.parse(key.out)).toEqual({ kind: 'client', pseudonym: pseudo.client(PARTNER_KEY), key_id: pseudo.keyId });
  });
});

describe('forget and rows under other keys', () => {
  it('warns in one line how many rows with a customer could not be checked and which key would be needed', async () => {
    const copy = seededStore();
    try {
      const old = createPseudonymizer('an-older-secret-0123456789abcdef');
      const db = new Database(copy.path);
      insertEvents(db, [
        event({ occurred_at: T0 + 50 * MIN, subject: pseudo.subject(EMAIL), key_id: pseudo.keyId }),
        event({ occurred_at: T0 + 51 * MIN, subject: old.subject(EMAIL), key_id: old.keyId }),
        event({ occurred_at: T0 + 52 * MIN, subject: old.subject('someone@example.com'), key_id: old.keyId }),
      ]);
      db.close();
      const r = await run(['forget', '--db', copy.path, '--email', EMAIL], { AAP_TRIAGE_KEY: SECRET });
      expect(r.code).toBe(0);
      expect(r.out).toBe(`deleted 1 error recorded for that email (key ${pseudo.keyId})\n`);
      // The seed's stray row with a subject was written under key 'testkey1'; ours under old.keyId twice.
      const ids = [old.keyId, 'testkey1'].sort();
      expect(r.err).toBe(
        `aap-triage: warning: 3 rows with a customer written under another key (key ids ${ids.join(', ')}) could not be checked — rerun forget with --key-file set to the key file whose key id is ${ids.join(' / ')} (or AAP_TRIAGE_KEY set to that secret)\n`,
      );
      const json = await run(['forget', '--json', '--db', copy.path, '--email', EMAIL], { AAP_TRIAGE_KEY: SECRET });
      expect(JSON.parse(json.out)).toEqual({ deleted: 0, key_id: pseudo.keyId, unchecked: { rows: 3, key_ids: ids } });
    } finally {
      copy.cleanup();
    }
  });
});
