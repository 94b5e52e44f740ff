// The command-line points of issue #17, one describe per defect or feature: issues, clients
// and labels, quoted queries, snake_case JSON, drafts, erasure, prune safety, doctor, CLI
// conventions. In-process runs of `main` over a seeded store (test/triage/seed.ts).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import { main } from '../../src/cli/index.js';
import { createPseudonymizer, openAuditSink, readHealthRecords } from '../../src/audit/index.js';
import { makeEvent } from '../audit/helpers.js';
import { createStore, event, HEALTHY_CLIENT, insertEvents, RATE_CLIENT, seededStore, SEED_COUNTS, STORM_CLIENT, T0 } from '../triage/seed.js';

const SECRET = 'test-secret-0123456789abcdef';

const NOW = T0 + 3_600_000;

let store: ReturnType<typeof seededStore>;
beforeAll(() => {
  store = seededStore();
});
afterAll(() => store.cleanup());

/** Runs the CLI in-process, capturing output. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    stderr: { write: (c: string | Uint8Array) => (err += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    env: { AAP_TRIAGE_DB: store.path, ...env },
    now: () => NOW,
  });
  return { code, out, err };
}

/** Asserts the one-line error rule: exactly one line, prefixed, no stack frames. */
function expectOneLineError(err: string, pattern: RegExp): void {
  const lines = err.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^aap-triage: /);
  expect(lines[0]).toMatch(pattern);
}

describe('aap-triage issues', () => {
  it('groups the seed into issues, largest first, with state and a key that search finds', async () => {
    const r = await run(['issues', '--json', '--since', '2h']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const list = JSON.parse(r.out) as { total: number; issues: { key: string; code: string; count: number; state: string; clients: number }[] };
    expect(list.issues.reduce((a, i) => a + i.count, 0)).toBe(SEED_COUNTS.total);
    expect(list.issues[0]).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', count: 80, state: 'new', clients: 1 });
    const rate = list.issues.find((i) => i.code === 'RATE_LIMITED')!;
    // Two clients, one service, one skill: one issue of 72 errors.
    expect(rate).toMatchObject({ count: SEED_COUNTS.rate + SEED_COUNTS.healthy, clients: 2 });
    const s = await run(['search', '--json', '--limit', '1000', '--since', '2h', `issue:${rate.key}`]);
    expect(JSON.parse(s.out)).toHaveLength(rate.count);
  });

  it('prints a table with the keys and a hint to list one issue', async () => {
    const r = await run(['issues', '--since', '2h', '--sort', 'last_seen']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY +STATE +ERRORS +CLIENTS +RETRYABLE +FIRST SEEN \(UTC\) +LAST SEEN \(UTC\) +TREND +ISSUE$/);
    expect(lines[1]).toMatch(/^[0-9a-f]{16} +new +1 +1 +false .*-32601 · /);
    expect(lines.at(-1)).toMatch(/issues; list one's errors with: aap-triage --since 2h search issue:<KEY>$/);
  });

  it('refuses an unknown --sort with one line and exit 2', async () => {
    const r = await run(['issues', '--sort', 'size']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /--sort must be one of count, last_seen, first_seen, got 'size'/);
  });
});

describe('aap-triage clients', () => {
  it('lists the client pseudonyms with their traffic, most calls first', async () => {
    const r = await run(['clients', '--json', '--since', '2h']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as { client: string; requests: number; errors: number; retries: number; label: unknown; display: string }[];
    expect(list.map((c) => [c.client, c.requests, c.errors, c.retries])).toEqual([
      [HEALTHY_CLIENT, 3000, 150, 150],
      [RATE_CLIENT, 90, 42, 36],
      [STORM_CLIENT, 80, 80, 60],
    ]);
    expect(list[0]).toMatchObject({ label: null, display: HEALTHY_CLIENT.slice(0, 8) });
  });

  it('labels a client by the prefix the views show; the label shows in clients, search, show and storms', async () => {
    const shown = STORM_CLIENT.slice(0, 8);
    const l = await run(['clients', 'label', shown, 'Acme Motors', '--contact', 'Acme On-call <oncall@acme.example.com>']);
    expect(l.code).toBe(0);
    expect(l.out).toBe(`labelled client ${STORM_CLIENT} "Acme Motors" <Acme On-call <oncall@acme.example.com>>\n`);
    const c = await run(['clients', '--since', '2h']);
    expect(c.out).toMatch(new RegExp(`^Acme Motors \\(${shown}\\) +${STORM_CLIENT} +Acme Motors +Acme On-call <oncall@acme.example.com> +80 +80 +60 `, 'm'));
    const s = await run(['search', '--since', '2h', '--limit', '1', `client:${shown}`]);
    expect(s.out).toContain(`Acme Motors (${shown})`);
    expect(s.out).toMatch(/rows 1–1 of 80 /);
    const st = await run(['storms', '--since', '2h']);
    expect(st.out).toContain(`Acme Motors (${shown})`);
    const sj = JSON.parse((await run(['storms', '--json', '--since', '2h'])).out) as { client: string; client_label: { name: string } | null }[];
    expect(sj.find((x) => x.client === STORM_CLIENT)!.client_label).toMatchObject({ name: 'Acme Motors', contact: 'Acme On-call <oncall@acme.example.com>' });
    const id = (JSON.parse((await run(['search', '--json', '--since', '2h', '--limit', '1', `client:${shown}`])).out) as { error_id: string }[])[0]!.error_id;
    const show = await run(['show', id]);
    expect(show.out).toMatch(/^client_label +Acme Motors <Acme On-call <oncall@acme.example.com>>$/m);
  });

  it('labels by API key with the pseudonymisation key, and refuses an unknown value without it', async () => {
    // A partner whose first call is still to come: the store does not know it, so --force.
    const unknown = await run(['clients', 'label', 'sk_live_partner_7777', 'Beta Cars', '--json'], { AAP_TRIAGE_KEY: SECRET });
    expect(unknown.code).toBe(2);
    const withKey = await run(['clients', 'label', 'sk_live_partner_7777', 'Beta Cars', '--json', '--force'], { AAP_TRIAGE_KEY: SECRET });
    expect(withKey.code).toBe(0);
    expect(JSON.parse(withKey.out)).toMatchObject({ client: createPseudonymizer(SECRET).client('sk_live_partner_7777'), name: 'Beta Cars', contact: null, matched_by: 'credential' });
    const noKey = await run(['clients', 'label', 'sk_live_partner_7777', 'Beta Cars'], { AAP_TRIAGE_KEY: '' });
    expect(noKey.code).toBe(2);
    expectOneLineError(noKey.err, /neither a known client pseudonym .* nor, without the pseudonymisation key, usable as an API key/);
  });

  it.each([
    ['a line break', 'oncall@acme.example.com\r\nBcc: spy@example.com', /--contact holds a line break/],
    ['two addresses', 'a@acme.example.com, b@acme.example.com', /--contact holds more than one address/],
    ['no domain', 'oncall', /--contact is not an address like name@example.com/],
  ])('refuses a contact with %s in one line, exit 2', async (_what, contact, pattern) => {
    const r = await run(['clients', 'label', STORM_CLIENT, 'Acme', '--contact', contact]);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, pattern);
  });

  it.each([
    // One letter off a real client's displayed prefix, and a value too short to be a prefix (read as an API key).
    ['a typo of a known prefix', () => `${STORM_CLIENT.slice(0, 7)}X`],
    ['a two-letter value', () => 'zz'],
    ['a whole pseudonym nobody is', () => 'nobodyAAAAAAAAAAAAAAAA'],
  ])('refuses %s in one line, exit 2, naming the closest known prefixes; --force labels it anyway (issue 28)', async (_what, value) => {
    const r = await run(['clients', 'label', value(), 'Typo Co'], { AAP_TRIAGE_KEY: SECRET });
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /names no client with traffic, errors or a label in this store \(closest known: [\w-]{8}(, [\w-]{8}){0,2}\) — .*--force/);
    if (value().startsWith(STORM_CLIENT.slice(0, 7))) expect(r.err).toContain(`closest known: ${STORM_CLIENT.slice(0, 8)}`);
    expect(JSON.parse((await run(['clients', 'label', value(), 'Typo Co', '--json', '--force'], { AAP_TRIAGE_KEY: SECRET })).out)).toMatchObject({ name: 'Typo Co' });
    await run(['clients', 'unlabel', value()], { AAP_TRIAGE_KEY: SECRET });
  });

  it('says which clients an ambiguous prefix starts', async () => {
    const db = new Database(store.path);
    db.prepare("INSERT INTO client_labels (client, name, contact, updated_at) VALUES ('rateClientZZZZZZZZZZZZ', 'Other', NULL, 0)").run();
    db.close();
    const r = await run(['clients', 'label', 'rateClient', 'X']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /'rateClient' starts 2 client pseudonyms/);
    const u = await run(['clients', 'unlabel', 'rateClientZZZZZZZZZZZZ']);
    expect(u.out).toBe('removed the label of client rateClientZZZZZZZZZZZZ\n');
  });
});

describe('queries and JSON', () => {
  it('a quoted query means what the same words unquoted mean', async () => {
    const quoted = await run(['search', '--json', '--since', '2h', '--limit', '1000', 'code:RATE_LIMITED skill:inventory.search']);
    const words = await run(['search', '--json', '--since', '2h', '--limit', '1000', 'code:RATE_LIMITED', 'skill:inventory.search']);
    expect(quoted.code).toBe(0);
    expect(JSON.parse(quoted.out)).toHaveLength(SEED_COUNTS.rate + SEED_COUNTS.healthy);
    expect(quoted.out).toBe(words.out);
    const none = await run(['search', '--since', '2h', 'code:RATE_LIMITED protocol:dmc12']);
    expect(none.err).toMatch(/^no errors match /);
  });

  it.each([
    [['storms', '--json', '--since', '2h']],
    [['stats', '--json', '--since', '2h']],
    [['show', '--json', 'err_dmc12stray000000000000000000001']],
    [['draft', '--json', '--query', 'code:RATE_LIMITED', '--since', '2h']],
    [['search', '--json', '--histogram', '--since', '2h']],
    [['issues', '--json', '--since', '2h']],
    [['clients', '--json', '--since', '2h']],
    [['prune', '--json', '--dry-run']],
  ])('%j prints only snake_case keys', async (args) => {
    const r = await run(args);
    expect(r.code).toBe(0);
    const keys = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          keys.add(k);
          walk(x);
        }
    };
    walk(JSON.parse(r.out));
    expect([...keys].filter((k) => /[a-z][A-Z]/.test(k))).toEqual([]);
  });

  it('refuses demo --json with one line and exit 2', async () => {
    const r = await run(['demo', '--json']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /demo has no --json output — run it, then ask its store: aap-triage --db .\/aap-triage-demo.db issues --json/);
  });
});

describe('prune safety', () => {
  let copy: ReturnType<typeof seededStore>;
  beforeAll(() => {
    copy = seededStore();
  });
  afterAll(() => copy.cleanup());
  const rows = (): number => {
    const db = new Database(copy.path, { readonly: true });
    const n = db.prepare('SELECT count(*) FROM error_events').pluck().get() as number;
    db.close();
    return n;
  };

  it('refuses --older-than 1m (a minute, not a month) without --force, deleting nothing', async () => {
    const r = await run(['prune', '--db', copy.path, '--older-than', '1m']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /--older-than 1m would delete everything older than 1 minute — check with aap-triage --db \S+ prune --older-than 1m --dry-run, then add --force/);
    expect(rows()).toBe(SEED_COUNTS.total);
  });

  it('--dry-run shows what would go and deletes nothing', async () => {
    const r = await run(['prune', '--db', copy.path, '--older-than', '30m', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      'dry run: would delete 152 errors (2026-11-30 10:00:00Z to 2026-11-30 10:29:30Z), 38 traffic rows, 0 gap records older than 30m (before 2026-11-30 10:30:00Z); 3 errors would stay\n',
    );
    const j = JSON.parse((await run(['prune', '--db', copy.path, '--older-than', '30m', '--dry-run', '--json'])).out) as Record<string, unknown>;
    expect(j).toMatchObject({ dry_run: true, older_than_ms: 1_800_000, would_delete: { error_events: 152, traffic: 38, gaps: 0 }, kept_errors: 3 });
    expect(rows()).toBe(SEED_COUNTS.total);
  });

  it('deletes with --force, and the issues summary follows', async () => {
    const r = await run(['prune', '--db', copy.path, '--older-than', '30m', '--force']);
    expect(r.out).toBe('deleted 152 errors, 38 traffic rows, 0 gap records older than 30m\n');
    expect(rows()).toBe(3);
    const db = new Database(copy.path, { readonly: true });
    expect(db.prepare('SELECT sum(errors) FROM issue_hours').pluck().get()).toBe(3);
    db.close();
  });
});

describe('drafts', () => {
  // A buyer whose refused calls (SCHEMA_VALIDATION_FAILED, retryable=false) are retried and then
  // rate-limited (RATE_LIMITED, retryable=true, retry_after 30 s) — the retries carry the
  // RATE_LIMITED code, the answers they should not have retried the other one; RATE_LIMITED
  // also comes back from the DMC-12 dealer (one code, two protocols); a second buyer never
  // activates the extension (-32008) nor sends the version (-32009).
  const BUYER = 'buyerAAAAAAAAAAAAAAAAA';
  const LEGACY = 'legacyBBBBBBBBBBBBBBBB';
  let dir: string;
  let path: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'aap-drafts-'));
    path = join(dir, 'audit.db');
    const db = createStore(path);
    const events: ErrorEvent[] = [];
    for (let chain = 0; chain < 6; chain++) {
      const t = T0 + chain * 20_000;
      const base = { client: BUYER, skill: 'lead.submit', fingerprint: `fpChain${chain}`.padEnd(22, 'x'), trace_id: `${chain}`.padStart(32, 'a') };
      events.push(
        event({ ...base, occurred_at: t, code: 'SCHEMA_VALIDATION_FAILED', retryable: false, jsonrpc_code: -32602 }),
        event({ ...base, occurred_at: t + 100, attempt: 2, code: 'RATE_LIMITED', retryable: true, retry_after_ms: 30_000, retry_flags: ['retried_non_retryable', 'no_backoff'] }),
        event({ ...base, occurred_at: t + 200, attempt: 3, code: 'RATE_LIMITED', retryable: true, retry_after_ms: 30_000, retry_flags: ['ignored_retry_after', 'no_backoff'] }),
      );
      events.push(event({ occurred_at: t + 300, client: BUYER, service: 'mm-dmc12', protocol: 'dmc12', rpc_method: 'tools/call', skill: 'create_reservation', code: 'RATE_LIMITED', retryable: true, jsonrpc_code: null }));
      events.push(
        event({ occurred_at: t + 400, client: LEGACY, protocol: 'a2a', protocol_version: '1.0', skill: 'inventory.search', code: 'EXTENSION_SUPPORT_REQUIRED', retryable: false, jsonrpc_code: -32008 }),
        event({ occurred_at: t + 500, client: LEGACY, protocol: 'a2a', protocol_version: '1.0', skill: 'inventory.search', code: 'VERSION_NOT_SUPPORTED', retryable: false, jsonrpc_code: -32009 }),
      );
    }
    insertEvents(db, events);
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const draft = async (args: string[], env: Record<string, string> = {}) => run(['draft', '--db', path, '--since', '2026-11-30T09:00:00Z', ...args], env);

  it('names, in "stop retrying", the non-retryable codes that were retried, not the codes of the retries', async () => {
    const r = await draft(['--json', '--query', `client:${BUYER}`]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.out) as { subject: string; facts: { actions: { text: string; codes: string[] }[] } };
    const byStart = (start: string) => d.facts.actions.find((a) => a.text.startsWith(start));
    expect(byStart('Stop retrying')).toEqual({
      codes: ['SCHEMA_VALIDATION_FAILED'],
      text: 'Stop retrying answers marked retryable=false (SCHEMA_VALIDATION_FAILED); fix the request instead (see each code above).',
    });
    expect(byStart('Wait at least')!.codes).toEqual(['RATE_LIMITED']);
    expect(byStart('Back off')!.text).toMatch(/stop after 5 attempts \(SCHEMA_VALIDATION_FAILED, RATE_LIMITED\)\.$/);
    // Every action but the closing one names its codes.
    expect(d.facts.actions.slice(0, -1).every((a) => a.codes.length > 0 && a.codes.every((c) => a.text.includes(c)))).toBe(true);
  });

  it('names each code once in the subject, whatever the protocols', async () => {
    const r = await draft(['--query', `client:${BUYER}`]);
    const subject = r.out.split('\n')[0]!;
    expect(subject).toBe('Subject: [aap-triage] 24 errors RATE_LIMITED, SCHEMA_VALIDATION_FAILED on lead.submit, create_reservation (2026-11-30 10:00Z to 2026-11-30 10:01Z)');
  });

  it('asks a buyer that never activates the extension to send A2A-Extensions with the URI, and A2A-Version', async () => {
    const uri = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
    const r = await draft(['--query', `client:${LEGACY}`, '--extension-uri', uri]);
    expect(r.out).toContain(`1. Activate the AAP extension (EXTENSION_SUPPORT_REQUIRED, -32008): send the A2A-Extensions header naming the AAP extension URI ${uri} on every call; retrying without it fails the same way.`);
    expect(r.out).toContain('2. Send the A2A-Version header with a version we serve (1.0) on every call (VERSION_NOT_SUPPORTED, -32009); an absent header reads as 0.3.');
    expect(r.out).toContain('Should: Resend with the named URI in the A2A-Extensions header');
    const bad = await draft(['--query', `client:${LEGACY}`, '--extension-uri', 'not a uri']);
    expect(bad.code).toBe(2);
    expectOneLineError(bad.err, /--extension-uri 'not a uri' is not an absolute http\(s\) URI/);
  });

  it('names the URI of AAP_TRIAGE_EXTENSION_URI when --extension-uri is absent; the option wins; a bad value exits 2', async () => {
    const env = 'https://aap.example.com/extensions/aap/v1';
    const r = await draft(['--query', `client:${LEGACY}`], { AAP_TRIAGE_EXTENSION_URI: env });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`send the A2A-Extensions header naming the AAP extension URI ${env} on every call`);
    const flag = 'https://aap.example.com/extensions/aap/v2';
    const both = await draft(['--query', `client:${LEGACY}`, '--extension-uri', flag], { AAP_TRIAGE_EXTENSION_URI: env });
    expect(both.out).toContain(`naming the AAP extension URI ${flag} on every call`);
    expect(both.out).not.toContain(env);
    const bad = await draft(['--query', `client:${LEGACY}`], { AAP_TRIAGE_EXTENSION_URI: 'aap v1' });
    expect(bad.code).toBe(2);
    expectOneLineError(bad.err, /AAP_TRIAGE_EXTENSION_URI 'aap v1' is not an absolute http\(s\) URI/);
  });

  it('links each evidence trace id with AAP_TRIAGE_TRACE_URL', async () => {
    const r = await draft(['--query', `client:${BUYER}`], { AAP_TRIAGE_TRACE_URL: 'https://tempo.example.com/trace/{trace_id}' });
    expect(r.out).toMatch(/trace_id=a{31}0 .* https:\/\/tempo\.example\.com\/trace\/a{31}0$/m);
  });

  it.each([
    ['a CR/LF', 'oncall@example.com\r\nBcc: spy@example.com', /--to holds a line break or another control character/],
    ['a second address', 'oncall@example.com, other@example.com', /--to holds more than one address: give one address per option/],
  ])('refuses --to with %s in one line and exit 2', async (_what, to, pattern) => {
    const r = await draft(['--query', `client:${BUYER}`, '--format', 'eml', '--to', to]);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, pattern);
    expect(r.out).toBe('');
  });

  it.each([
    ['no {trace_id}', 'https://tempo.example.com/trace/', /must contain \{trace_id\}/],
    ['not http(s)', 'javascript:alert({trace_id})', /must be an http\(s\) URL/],
  ])('refuses an AAP_TRIAGE_TRACE_URL with %s in one line and exit 2', async (_what, url, pattern) => {
    const r = await draft(['--query', `client:${BUYER}`], { AAP_TRIAGE_TRACE_URL: url });
    expect(r.code).toBe(2);
    expectOneLineError(r.err, pattern);
    expect(r.out).toBe('');
  });

  it('addresses a storm draft to the partner contact of its label; --to repeats for more recipients', async () => {
    await run(['clients', 'label', STORM_CLIENT, 'Acme Motors', '--contact', 'oncall@acme.example.com']);
    const storms = JSON.parse((await run(['storms', '--json', '--since', '2h'])).out) as { id: string; client: string }[];
    const id = storms.find((s) => s.client === STORM_CLIENT)!.id;
    const eml = await run(['draft', '--storm', id, '--format', 'eml']);
    expect(eml.code).toBe(0);
    const mail = await simpleParser(eml.out);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((v) => v.address) : []).toEqual(['oncall@acme.example.com']);
    expect(mail.subject).toBe(`[aap-triage] Retry storm from Acme Motors (client ${STORM_CLIENT.slice(0, 8)}) on lead.submit: SCHEMA_VALIDATION_FAILED (80 errors, 2026-11-30 10:00Z)`);
    expect(mail.text).toContain(`Acme Motors (client ${STORM_CLIENT.slice(0, 8)})`);
    const two = await run(['draft', '--storm', id, '--format', 'eml', '--to', 'a@example.com', '--to', 'B <b@example.com>']);
    const m2 = await simpleParser(two.out);
    expect(m2.to && !Array.isArray(m2.to) ? m2.to.value.map((v) => v.address) : []).toEqual(['a@example.com', 'b@example.com']);
  });
});

describe('doctor with two writing services', () => {
  it('shows one named health line per running service and process, and a gone writer once, marked gone, removing its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aap-doctor-'));
    const path = join(dir, 'audit.db');
    const sinks: ReturnType<typeof openAuditSink>[] = [];
    try {
      for (const service of ['dealer-aap', 'dealer-dmc12']) {
        const sink = openAuditSink({ path, service, logger: { info() {}, warn() {}, error() {} }, handleSignals: false });
        sinks.push(sink);
        sink.write(makeEvent(service.length, { service }));
        await sink.flush();
      }
      // Health files are rewritten at most once a second: wait for the reports that count the rows.
      for (let i = 0; i < 60 && readHealthRecords(path).filter((h) => h.written === 1).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      // A third writer that has gone away degraded (its process no longer exists).
      const oldFile = `${path}.health.dealer-old.999999.json`;
      writeFileSync(
        oldFile,
        JSON.stringify({ state: 'degraded', reason: 'disk full', written: 3, dropped: 1, failed: 0, queueSize: 0, path, service: 'dealer-old', pid: 999999, updatedAt: NOW }),
        { mode: 0o600 },
      );
      const r = await run(['doctor', '--db', path], { AAP_TRIAGE_KEY: SECRET });
      expect(r.code).toBe(0);
      const writers = r.out.split('\n').filter((l) => / writer /.test(l));
      expect(writers).toHaveLength(3);
      expect(writers).toContainEqual(expect.stringMatching(new RegExp(`^OK +writer dealer-aap pid ${process.pid} ok \\(running, written 1, dropped 0, failed 0, at `)));
      expect(writers).toContainEqual(expect.stringMatching(new RegExp(`^OK +writer dealer-dmc12 pid ${process.pid} ok \\(running, written 1, `)));
      expect(writers).toContainEqual(expect.stringMatching(/^WARN +writer dealer-old pid 999999 gone, last report: degraded: disk full \(no longer running; record removed, written 3, dropped 1, /));
      expect(existsSync(oldFile)).toBe(false);
      // Shown once: the next doctor lists the running writers only.
      const j = JSON.parse((await run(['doctor', '--json', '--db', path], { AAP_TRIAGE_KEY: SECRET })).out) as { check: string }[];
      expect(j.filter((c) => c.check.startsWith('writer ')).map((c) => c.check).sort()).toEqual([`writer dealer-aap pid ${process.pid}`, `writer dealer-dmc12 pid ${process.pid}`]);
      // A clean shutdown removes the writer's own file: nothing is left to report.
      for (const sink of sinks.splice(0)) await sink.close();
      const after = JSON.parse((await run(['doctor', '--json', '--db', path], { AAP_TRIAGE_KEY: SECRET })).out) as { check: string; status: string }[];
      expect(after.filter((c) => c.check.startsWith('writer'))).toEqual([expect.objectContaining({ check: 'writer', status: 'skip' })]);
    } finally {
      for (const sink of sinks) await sink.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('upgrading a store from before issues', () => {
  it('doctor --migrate keys the older rows into issues', async () => {
    const copy = seededStore();
    try {
      const db = new Database(copy.path);
      // As schema version 2 left it: what migration 3 adds, taken away.
      db.exec(`DROP INDEX error_events_issue_time;
        DROP TABLE issue_hours; DROP TABLE issue_client_ids; DROP TABLE client_labels;
        ALTER TABLE error_events DROP COLUMN issue_key; ALTER TABLE error_events DROP COLUMN subject_alt;
        DROP INDEX error_events_origin_time; ALTER TABLE error_events DROP COLUMN origin;
        ALTER TABLE error_events DROP COLUMN service_version; DROP TABLE issue_states; DROP TABLE issue_hour_versions;`);
      db.pragma('user_version = 2');
      db.close();
      const m = await run(['doctor', '--migrate', '--db', copy.path], { AAP_TRIAGE_KEY: SECRET });
      expect(m.out).toMatch(/^migrated schema from version 2 to \d+$/m);
      const list = JSON.parse((await run(['issues', '--json', '--db', copy.path, '--since', '2026-11-30T00:00:00Z', '--until', '2026-11-30T12:00:00Z'])).out) as {
        source: string;
        issues: { count: number }[];
      };
      expect(list.source).toBe('summary');
      expect(list.issues.reduce((a, i) => a + i.count, 0)).toBe(SEED_COUNTS.total);
    } finally {
      copy.cleanup();
    }
  });
});
