/**
 * Every command on the PostgreSQL store (issue #19): `demo --db postgres://…` fills a fresh
 * database, then search, stats, storms, show, trace, draft, doctor, prune and forget read and
 * maintain it with the same `--db`. The URL carries a password (trust authentication ignores
 * it): no command prints it, on stdout or stderr.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';

const SECRET = 'cli-s3cret-pw';
let database: TestDatabase;
let db: string;
const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', AAP_TRIAGE_KEY: 'pg-commands-test-key-0123456789abcdef' };
delete env['AAP_TRIAGE_DB'];

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return cliAt(Date.now, ...args);
}

async function cliAt(now: () => number, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (s: string | Uint8Array) => (out += String(s)) },
    stderr: { write: (s: string | Uint8Array) => (err += String(s)) },
    env,
    now,
  });
  expect(out + err).not.toContain(SECRET);
  return { code, out, err };
}

/** The built CLI in a child process (process warnings go to its real stderr). */
function runBin(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'aap-triage.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    child.stderr.on('data', (c: Buffer) => (err += String(c)));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  const u = new URL(database.url);
  u.password = SECRET;
  db = u.toString();
}, 30_000);
afterAll(async () => {
  await database.drop();
});

describe('the CLI with --db postgres://…', () => {
  it('runs the demo into PostgreSQL and reads it back with every command', async () => {
    const demo = await cli('demo', '--duration', '6s', '--db', db);
    expect(demo.code, demo.err).toBe(0);
    expect(demo.out).toMatch(/Retry storms found: [1-9]/);

    const search = await cli('search', '--db', db, '--since', '1h', '--json', '--limit', '5');
    expect(search.code, search.err).toBe(0);
    const rows = JSON.parse(search.out) as { error_id: string; trace_id: string | null }[];
    expect(rows.length).toBe(5);

    const stats = await cli('stats', '--db', db, '--since', '1h', '--json');
    expect(JSON.parse(stats.out).errors).toBeGreaterThan(5);

    const storms = await cli('storms', '--db', db, '--since', '1h', '--json');
    const episodes = JSON.parse(storms.out) as { id: string }[];
    expect(episodes.length).toBeGreaterThan(0);

    const show = await cli('show', rows[0]!.error_id, '--db', db, '--json');
    expect(JSON.parse(show.out).error.error_id).toBe(rows[0]!.error_id);

    const draft = await cli('draft', rows[0]!.error_id, rows[1]!.error_id, '--db', db);
    expect(draft.code, draft.err).toBe(0);
    expect(draft.out).toContain('Evidence');

    const doctor = await cli('doctor', '--db', db, '--json');
    const checks = JSON.parse(doctor.out) as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === 'database')).toMatchObject({ status: 'ok' });
    expect(checks.find((c) => c.check === 'database')?.detail).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:5432\/aap_test_\w+ \(schema \d+ of \d+, \d+ day partitions?/);

    const stormClient = (JSON.parse(storms.out) as { client: string }[])[0]!.client;
    // `--` first: a pseudonym may start with '-'.
    const label = await cli('clients', 'label', '--db', db, '--contact', 'support@acme.example.com', '--', stormClient, 'Acme Motors');
    expect(label.code, label.err).toBe(0);
    const clients = await cli('clients', '--db', db, '--since', '1h', '--json');
    expect((JSON.parse(clients.out) as { client: string; label: { name: string } | null }[]).find((c) => c.client === stormClient)?.label?.name).toBe('Acme Motors');
    expect((await cli('clients', 'unlabel', '--db', db, '--', stormClient)).code).toBe(0);

    const forget = await cli('forget', '--email', 'nobody@example.com', '--db', db, '--json');
    expect(JSON.parse(forget.out).deleted).toBe(0);

    const dry = await cliAt(() => Date.now() + 7_200_000, 'prune', '--older-than', '1h', '--dry-run', '--db', db, '--json');
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out).would_delete.error_events, dry.out).toBe(JSON.parse(stats.out).errors);
    // Two hours from now, everything the demo wrote is older than an hour.
    const prune = await cliAt(() => Date.now() + 7_200_000, 'prune', '--older-than', '1h', '--db', db, '--json');
    expect(prune.code, prune.err).toBe(0);
    const deleted = JSON.parse(prune.out).deleted as Record<string, number>;
    expect(deleted['error_events'] ?? deleted['errorEvents'], prune.out).toBe(JSON.parse(stats.out).errors);
    const after = await cli('search', '--db', db, '--since', '1h', '--json');
    expect(JSON.parse(after.out)).toEqual([]);
  }, 90_000);

  it('says what to do, without the password, when the server cannot be reached', async () => {
    const u = new URL(db);
    u.port = '1';
    const r = await cli('search', '--db', u.toString());
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^aap-triage: cannot read postgres:\/\/postgres@127\.0\.0\.1:1\/aap_test_\w+ \(ECONNREFUSED/);
  });

  it('says the server cannot be reached when the demo is pointed at one that is down (exit 3)', async () => {
    const u = new URL(db);
    u.port = '1';
    const r = await cli('demo', '--duration', '1s', '--db', u.toString());
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^aap-triage: cannot read postgres:\/\/postgres@127\.0\.0\.1:1\/aap_test_\w+ \(ECONNREFUSED/);
    expect(r.err).not.toContain(SECRET);
  });

  it('calls every URL problem a usage error, in one line naming it, without the password', async () => {
    const cases: [string[], RegExp][] = [
      [['search', '--db', `postgres://postgres:${SECRET}@127.0.0.1:notaport/x`], /^aap-triage: --db postgres:\/\/postgres@127\.0\.0\.1:notaport\/x: the port 'notaport' is not a number/],
      [['search', '--db', `pg://postgres:${SECRET}@127.0.0.1/x`], /^aap-triage: --db pg:\/\/postgres@127\.0\.0\.1\/x: the scheme pg:\/\/ is not a PostgreSQL URL/],
      [['issues', '--db', `postgres://postgres:${SECRET}@127.0.0.1/x?sslmode=on`], /sslmode 'on' is unknown/],
      [['demo', '--duration', '1s', '--db', `pg://postgres:${SECRET}@127.0.0.1/x`], /the scheme pg:\/\/ is not a PostgreSQL URL/],
      [['doctor', '--db', `postgresql://postgres:${SECRET}@127.0.0.1:99999/x`], /the port '99999' is not a number from 1 to 65535/],
      // An unset shell variable: not the current folder read as a store.
      [['search', '--db', ''], /^aap-triage: --db is empty: give a SQLite file path or a postgres:\/\/ URL/],
    ];
    for (const [args, expected] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(expected);
    }
  });

  it('says nothing but its own line for sslmode=require (node-postgres SECURITY WARNING kept off the terminal)', async () => {
    // The test server has no TLS: the connection fails, in one line; node-pg's warning would be
    // a process warning on stderr, so the child's whole stderr is checked.
    const u = new URL(db);
    u.searchParams.set('sslmode', 'require');
    const r = await runBin(['search', '--db', u.toString()]);
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
    expect(r.err).not.toMatch(/SECURITY WARNING|Warning/);
    expect(r.err).not.toContain(SECRET);
  });

  it('doctor --migrate tells to ANALYZE once when it brought a store written before migration 9 across it, and only then', async () => {
    const fresh = await createTestDatabase();
    try {
      const first = await cli('doctor', '--migrate', '--db', fresh.url);
      expect(first.out).toMatch(/^migrated schema from version 0 to \d+$/m);
      expect(first.out).not.toContain('ANALYZE');
      expect(first.out).toMatch(/schema \d+ of \d+, 0 day partitions, /);
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      await c.query('UPDATE aap_triage_schema SET version = 8');
      await c.end();
      const upgraded = await cli('doctor', '--migrate', '--db', fresh.url);
      expect(upgraded.out).toMatch(/^migrated schema from version 8 to \d+\nthen run ANALYZE error_events once on this database/m);
      const again = await cli('doctor', '--migrate', '--db', fresh.url);
      expect(again.out).toMatch(/^schema already at version \d+$/m);
      expect(again.out).not.toContain('ANALYZE');
    } finally {
      await fresh.drop();
    }
  });

  it('repeats the --db given (without its password, with its sslmode) in the hint for an empty database', async () => {
    const empty = await createTestDatabase();
    try {
      const u = new URL(empty.url);
      u.password = SECRET;
      const r = await cli('issues', '--db', u.toString());
      expect(r.code).toBe(3);
      const shown = `postgres://${u.username}@${u.host}${u.pathname}`;
      expect(r.err).toContain(`AAP_TRIAGE_DB=${shown}`);
      // The hint names the program the way this process was started (src/cli/invocation.ts), never npx.
      expect(r.err).toContain(` --db ${shown} doctor --migrate\``);
      expect(r.err).not.toContain('npx');
      // sslmode is how it connects: a hint without it could connect without TLS. Quoted for the shell.
      u.searchParams.set('sslmode', 'disable');
      const withMode = await cli('issues', '--db', u.toString());
      expect(withMode.err).toContain(`AAP_TRIAGE_DB='${shown}?sslmode=disable'`);
      expect(withMode.err).toContain(` --db '${shown}?sslmode=disable' doctor --migrate\``);
      expect(withMode.err).not.toContain(SECRET);
    } finally {
      await empty.drop();
    }
  });
});
