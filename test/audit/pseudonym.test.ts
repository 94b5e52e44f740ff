import { createHash, createHmac } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PSEUDONYM_BYTES, PseudonymKeyError, canonicalParams, createPseudonymizer, loadPseudonymizer, normalizeSubject } from '../../src/audit/index.js';
import { captureLogger, tempDir } from './helpers.js';

const SECRET = 'test-secret-0123456789abcdef-not-for-production';
/** The pseudonym computed independently: HMAC-SHA256(secret, role ‖ NUL ‖ value), 16 bytes, base64url. */
const expected = (role: string, value: string) =>
  createHmac('sha256', SECRET).update(`${role}\u0000${value}`).digest().subarray(0, 16).toString('base64url');

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('createPseudonymizer()', () => {
  const p = createPseudonymizer(SECRET);

  it('equals an independent HMAC-SHA256 computation, truncated to 16 bytes, base64url', () => {
    expect(PSEUDONYM_BYTES).toBe(16);
    expect(p.client('sk_test_1234')).toBe(expected('client', 'sk_test_1234'));
    expect(p.idempotency('idem-42')).toBe(expected('idempotency', 'idem-42'));
    expect(p.subject('jane.doe@example.com')).toBe(expected('subject', 'jane.doe@example.com'));
    expect(p.client('sk_test_1234')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(p.keyId).toBe(createHmac('sha256', SECRET).update('key-id').digest('hex').slice(0, 8));
  });

  it('equals createHmac for keys longer than a block, non-ASCII values and messages past the scratch buffer', () => {
    const long = 'k'.repeat(100) + 'ü-secret';
    const q = createPseudonymizer(long);
    const hmacOf = (secret: string, role: string, value: string) =>
      createHmac('sha256', secret).update(`${role}\u0000${value}`).digest().subarray(0, 16).toString('base64url');
    for (const value of ['', 'ä€𝄞 idem', 'x'.repeat(6_000), '€'.repeat(20_000)]) {
      expect(q.idempotency(value || 'e')).toBe(hmacOf(long, 'idempotency', value || 'e'));
      expect(p.idempotency(value || 'e')).toBe(expected('idempotency', value || 'e'));
    }
    expect(q.fingerprint('tools/call', 'create_reservation', { vin: 'ä' })).toBe(hmacOf(long, 'fingerprint', `tools/call\u0000create_reservation\u0000${canonicalParams({ vin: 'ä' })}`));
  });

  it('canonicalParams is JSON with sorted keys for any JSON value (checked on generated values)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const gen = (depth: number): unknown => {
      const r = rand();
      if (depth > 4 || r < 0.3) return [null, true, false, 0, -1.5, 1e21, 'a"\\b', 'é€𝄞', ''][Math.floor(rand() * 9)];
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [['z', 'a', 'B', 'ä', 'a1', 'key'][Math.floor(rand() * 6)] as string, gen(depth + 1)]));
    };
    // No integer-like keys: an object orders those numerically whatever the sort, so the oracle could not show the sort.
    const sorted = (_k: string, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v);
    for (let i = 0; i < 500; i++) {
      const v = gen(0);
      expect(canonicalParams(v)).toBe(JSON.stringify(v, sorted));
    }
  });

  it('separates roles: one raw value gives different pseudonyms as client and as idempotency key', () => {
    expect(p.client('same-value')).not.toBe(p.idempotency('same-value'));
  });

  it('never equals the plain SHA-256 hex (or its prefix) of the raw value', () => {
    for (const raw of ['jane.doe@example.com', '+15555550123', 'sk_test_1234']) {
      const sha = createHash('sha256').update(raw).digest();
      for (const pseudonym of [p.client(raw), p.idempotency(raw), p.subject(raw)]) {
        expect(pseudonym).not.toBe(sha.toString('hex'));
        expect(pseudonym).not.toBe(sha.subarray(0, 16).toString('base64url'));
      }
    }
  });

  it('gives a different pseudonym under a different key', () => {
    expect(createPseudonymizer(`${SECRET}-2`).client('sk_test_1234')).not.toBe(p.client('sk_test_1234'));
  });

  it('returns null for an absent or empty value', () => {
    expect(p.client(null)).toBeNull();
    expect(p.client('')).toBeNull();
    expect(p.subject('   ')).toBeNull();
    expect(p.subject('no contact')).toBeNull();
  });

  it('normalises emails (trim, lower case) and phones (E.164) before hashing', () => {
    expect(p.subject('  Jane.Doe@Example.COM ')).toBe(p.subject('jane.doe@example.com'));
    const e164 = expected('subject', '+15555550123');
    for (const phone of ['+1 555 555 0123', '(555) 555-0123', '555.555.0123', '1-555-555-0123', '001 555 555 0123']) {
      expect(p.subject(phone)).toBe(e164);
    }
    expect(normalizeSubject('+44 20 7946 0958')).toBe('+442079460958');
    expect(normalizeSubject('0049 30 1234567')).toBe('+49301234567');
  });

  it('fingerprints calls independently of key order and whitespace, without the A2A messageId', () => {
    const a = JSON.parse('{"message":{"messageId":"m-1","role":"user","parts":[{"kind":"data","data":{"type":"inventory.search.request","filters":{"make":"Ford","year_min":2020}}}]}}');
    const b = JSON.parse(`{
      "message": { "parts": [ { "data": { "filters": { "year_min": 2020, "make": "Ford" }, "type": "inventory.search.request" }, "kind": "data" } ],
                   "role": "user", "messageId": "m-2" } }`);
    expect(p.fingerprint('SendMessage', 'inventory.search', a)).toBe(p.fingerprint('SendMessage', 'inventory.search', b));
    expect(canonicalParams(a)).toBe(
      '{"message":{"parts":[{"data":{"filters":{"make":"Ford","year_min":2020},"type":"inventory.search.request"},"kind":"data"}],"role":"user"}}',
    );
    expect(p.fingerprint('SendMessage', 'inventory.search', a)).toBe(expected('fingerprint', `SendMessage\u0000inventory.search\u0000${canonicalParams(a)}`));
    // A real change of the request changes the fingerprint; so does the method or skill.
    const c = structuredClone(a);
    c.message.parts[0].data.filters.make = 'Kia';
    expect(p.fingerprint('SendMessage', 'inventory.search', c)).not.toBe(p.fingerprint('SendMessage', 'inventory.search', a));
    expect(p.fingerprint('tools/call', 'inventory.search', a)).not.toBe(p.fingerprint('SendMessage', 'inventory.search', a));
    expect(p.fingerprint('SendMessage', 'inventory.vehicle', a)).not.toBe(p.fingerprint('SendMessage', 'inventory.search', a));
    // messageId is only left out where A2A puts it.
    expect(canonicalParams({ data: { messageId: 'x' } })).toBe('{"data":{"messageId":"x"}}');
  });

  it('canonicalises odd input without throwing (cycles, __proto__ keys, non-JSON values)', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(() => canonicalParams(cyclic)).not.toThrow();
    const proto = JSON.parse('{"__proto__":{"polluted":true},"b":1}');
    expect(canonicalParams(proto)).toBe('{"__proto__":{"polluted":true},"b":1}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(canonicalParams({ f: () => 1, u: undefined, n: Number.NaN, big: 1n })).toBe('{"big":null,"n":null}');
  });

  it('looks up a raw value in a role with the current key', () => {
    expect(p.lookup('client', 'sk_test_1234')).toBe(p.client('sk_test_1234'));
    expect(p.lookup('subject', 'JANE.DOE@example.com')).toBe(p.subject('jane.doe@example.com'));
    expect(() => p.lookup('name' as never, 'x')).toThrow(TypeError);
  });
});

describe('loadPseudonymizer()', () => {
  it('uses AAP_TRIAGE_KEY when set and creates no key file', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const p = loadPseudonymizer({ dbPath: t.db, env: { AAP_TRIAGE_KEY: SECRET }, logger: captureLogger() });
    expect(p.client('sk_test_1234')).toBe(expected('client', 'sk_test_1234'));
    expect(existsSync(`${t.db}.key`)).toBe(false);
  });

  it('rejects a short AAP_TRIAGE_KEY', () => {
    expect(() => loadPseudonymizer({ env: { AAP_TRIAGE_KEY: 'short' }, logger: captureLogger() })).toThrow(PseudonymKeyError);
  });

  it('creates <db>.key beside the database, mode 0600, logs where without the secret, and reuses it', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const logger = captureLogger();
    const first = loadPseudonymizer({ dbPath: t.db, env: {}, logger });
    const keyFile = `${t.db}.key`;
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const secret = readFileSync(keyFile, 'utf8').trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.msg).toContain(`created pseudonym key file at ${keyFile}`);
    expect(JSON.stringify(logger.lines)).not.toContain(secret);
    const second = loadPseudonymizer({ dbPath: t.db, env: {}, logger });
    expect(second.keyId).toBe(first.keyId);
    expect(second.client('x-key')).toBe(first.client('x-key'));
    // The file's text is the secret: moving it to AAP_TRIAGE_KEY keeps every pseudonym.
    expect(loadPseudonymizer({ env: { AAP_TRIAGE_KEY: secret }, logger }).client('x-key')).toBe(first.client('x-key'));
  });

  it('throws kind "missing" when there is no key and create is false', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expect(() => loadPseudonymizer({ dbPath: t.db, env: {}, create: false, logger: captureLogger() })).toThrow(
      expect.objectContaining({ kind: 'missing' }),
    );
  });
});
