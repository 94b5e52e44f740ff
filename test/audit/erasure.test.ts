/**
 * Erasure of a customer who gave an email and a phone (issue #17 "Erasure"): every request's
 * email and phone pseudonyms are stored, each normalised (emails trimmed and lower-cased, phones
 * to E.164 by libphonenumber-js in the configured region), so `forget --email` and `forget
 * --phone` each find every row, whatever spelling the requests used. Real parts: the DMC-12
 * test server wrapped by the instrumentation, the SQLite writer, the CLI's `forget`.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPseudonymizer, normalizeSubject } from '../../src/audit/index.js';
import { main } from '../../src/cli/index.js';
import { createTriage } from '../../src/instrument/index.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { setupOtel } from '../helpers/otel.js';

const SECRET = 'erasure-test-secret-0123456789';

// One customer, four requests, two spellings of each contact; a second customer apart.
const REQUESTS: readonly Record<string, string>[] = [
  { email: 'jo.buyer@example.com', phone: '(555) 555-0123' },
  { email: '  JO.Buyer@Example.COM ', phone: '+1 555 555 0123' },
  { phone: '555.555.0123' },
  { email: 'Jo.Buyer@example.com' },
  { email: 'someone.else@example.com', phone: '+1 555 555 0199' },
];

async function run(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
    stderr: { write: (c: string | Uint8Array) => (err += String(c)) },
    env: { AAP_TRIAGE_KEY: SECRET, ...env },
  });
  return { code, out, err };
}

/** Writes one row per customer through the real instrumentation into a new store at `path`. */
async function record(path: string, customers: readonly Record<string, string>[], region?: string): Promise<void> {
  const otel = setupOtel();
  const triage = createTriage({
    serviceName: 'dealer-erasure',
    auditDb: path,
    pseudonymizer: createPseudonymizer(SECRET, region ? { phoneRegion: region } : {}),
    logger: false,
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
  });
  const srv = await startDmc12Server(triage);
  try {
    let i = 0;
    for (const customer of customers) {
      // The test server's error_id is fixed unless omitted (then minted): one row per request.
      const r = await post(srv.url, toolsCall(`e${i++}`, 'create_reservation', { fail: 'VALIDATION_FAILED', omitErrorId: true, vin: '1HGCM82633A000009', customer }), DMC12_HEADERS);
      expect(r.status).toBe(200);
    }
  } finally {
    await srv.close();
    await triage.shutdown();
  }
}

const count = (path: string): number => {
  const db = new Database(path, { readonly: true });
  const n = db.prepare('SELECT count(*) FROM error_events').pluck().get() as number;
  db.close();
  return n;
};

let dir: string;
let stored: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aap-erasure-'));
  stored = join(dir, 'recorded.db');
  await record(stored, REQUESTS);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('normalizeSubject', () => {
  it.each([
    ['  Jo.Buyer@Example.COM ', 'US', 'jo.buyer@example.com'],
    ['(555) 555-0123', 'US', '+15555550123'],
    ['+1 555 555 0123', 'GB', '+15555550123'],
    ['07700 900123', 'GB', '+447700900123'],
    ['+44 7700 900123', 'US', '+447700900123'],
    ['0044 7700 900123', 'US', '+447700900123'],
    ['12345', 'US', '+12345'],
  ])('%j in %s is %s', (value, region, expected) => {
    expect(normalizeSubject(value, region)).toBe(expected);
  });

  it('refuses an unknown region', () => {
    expect(() => createPseudonymizer(SECRET, { phoneRegion: 'XX' })).toThrow(/two-letter country code/);
  });
});

describe('forget a customer with an email and a phone', () => {
  it('stores both pseudonyms of a request and never the raw values', () => {
    const db = new Database(stored, { readonly: true });
    const rows = db.prepare('SELECT subject, subject_alt FROM error_events ORDER BY error_id').all() as { subject: string | null; subject_alt: string | null }[];
    db.close();
    const p = createPseudonymizer(SECRET);
    const email = p.subject('jo.buyer@example.com');
    const phone = p.subject('+15555550123');
    expect(rows).toEqual([
      { subject: email, subject_alt: phone },
      { subject: email, subject_alt: phone },
      { subject: phone, subject_alt: null },
      { subject: email, subject_alt: null },
      { subject: p.subject('someone.else@example.com'), subject_alt: p.subject('+15555550199') },
    ]);
    const bytes = readFileSync(stored).toString('latin1');
    for (const raw of ['5555550123', '555-0123', 'jo.buyer', 'example.com']) expect(bytes).not.toContain(raw);
  });

  it('forget --phone in a third spelling deletes every row with that phone', async () => {
    const copy = join(dir, 'phone.db');
    copyFileSync(stored, copy);
    const r = await run(['forget', '--db', copy, '--phone', '+1-555-555-0123'], {});
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^deleted 3 errors recorded for that phone/);
    expect(count(copy)).toBe(2);
  });

  it('forget --email deletes every row with that email, the one with its phone too', async () => {
    const copy = join(dir, 'email.db');
    copyFileSync(stored, copy);
    const r = await run(['forget', '--db', copy, '--email', 'JO.BUYER@example.com', '--json'], {});
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ deleted: 3 });
    expect(count(copy)).toBe(2);
    const rest = await run(['search', '--db', copy, '--json', '--since', '30d', 'subject:+15555550123'], {});
    expect((JSON.parse(rest.out) as unknown[]).length).toBe(1);
  });

  it('reads national numbers in AAP_TRIAGE_PHONE_REGION, the same on the writer and in forget', async () => {
    const path = join(dir, 'gb.db');
    await record(path, [{ email: 'pat@example.com', phone: '07700 900123' }, { phone: '+44 7700 900123' }], 'GB');
    const wrongRegion = await run(['forget', '--db', path, '--phone', '07700 900123'], {});
    expect(wrongRegion.out).toMatch(/^deleted 0 errors/);
    const r = await run(['forget', '--db', path, '--phone', '07700 900123'], { AAP_TRIAGE_PHONE_REGION: 'gb' });
    expect(r.out).toMatch(/^deleted 2 errors recorded for that phone/);
    const bad = await run(['forget', '--db', path, '--phone', '07700 900123'], { AAP_TRIAGE_PHONE_REGION: 'Narnia' });
    expect(bad.code).toBe(3);
    expect(bad.err).toBe("aap-triage: AAP_TRIAGE_PHONE_REGION 'Narnia' is not a region — use a two-letter country code such as GB or US\n");
  });
});
