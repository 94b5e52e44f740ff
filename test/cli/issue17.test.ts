// The command-line points of issue #17, one describe per defect or feature: issues, clients
// and labels, quoted queries, snake_case JSON, drafts, erasure, prune safety, doctor, CLI
// conventions. In-process runs of `main` over a seeded store (test/triage/seed.ts).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { createPseudonymizer } from '../../src/audit/index.js';
import { HEALTHY_CLIENT, RATE_CLIENT, seededStore, SEED_COUNTS, STORM_CLIENT, T0 } from '../triage/seed.js';

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
    expect(lines.at(-1)).toMatch(/issues; list one's errors with: npx aap-triage --since 2h search issue:<KEY>$/);
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
    const withKey = await run(['clients', 'label', 'sk_live_partner_7777', 'Beta Cars', '--json'], { AAP_TRIAGE_KEY: SECRET });
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
    expectOneLineError(r.err, /demo has no --json output — run it, then ask its store: npx aap-triage --db .\/aap-triage-demo.db issues --json/);
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
    expectOneLineError(r.err, /--older-than 1m would delete everything older than 1 minutes — check with npx aap-triage --db \S+ prune --older-than 1m --dry-run, then add --force/);
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
