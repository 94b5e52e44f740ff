/**
 * The terminal UI in a real terminal (tmux), point by point for issue 17: keys that arrive in
 * one chunk, a list that is never blank while rows exist, sorting by a column (Errors and
 * Issues), client labels, widths at 80 columns, the retry chain around the selected error,
 * trace links, honest copy messages, and the AAP_TRIAGE_EXTENSION_URI in a -32008 storm's draft.
 * Run by hand: `npm run build && npx vitest run test/tui/operator.e2e.test.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/audit/issue-key.js';
import { rebuildIssueHours } from '../../src/audit/issue-hours.js';
import { setClientLabel } from '../../src/audit/labels.js';
import { CLIENT_A, CLIENT_C, MINUTE, seedTuiDb, type SeedFacts } from './helpers/seed.js';
import { haveTmux, killTmuxServer, TmuxSession } from './helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bin/aap-triage.js');
const tmux = haveTmux();

/** The retry chain the fingerprint test opens: 41 attempts of one call, 5 s apart. */
const CHAIN = 41;
const TEMPO = 'https://tempo.example.com/trace/{trace_id}';
/** Generous waits: with the whole suite on two cores a frame can take seconds. */
const WAIT = 30_000;

let dir: string;
let db: string;
let facts: SeedFacts;
let chainIds: string[] = [];
const sessions: TmuxSession[] = [];

/**
 * Adds rows the seed lacks: the longest AAP codes, one long retry chain (fingerprint `fpChain`),
 * and history before the one-hour window: the chain's issue was seen 8 h ago (quiet longer than
 * 6 h: regressed), the consent issue 2 h ago (ongoing).
 */
function addRows(path: string, base: number): string[] {
  const w = new Database(path);
  const st = w.prepare(
    `INSERT INTO error_events (error_id, occurred_at, trace_id, service, protocol, rpc_method, skill, code, retryable, client, fingerprint, attempt, retry_flags, key_id, issue_key)
     VALUES (?, ?, ?, 'dealer-aap', 'aap', 'SendMessage', 'lead.submit', ?, 0, ?, ?, ?, ?, 'k1', ?)`,
  );
  const key = (code: string) => issueKey({ service: 'dealer-aap', protocol: 'aap', rpc_method: 'SendMessage', skill: 'lead.submit', code, violations: [], conformance: [] });
  const insert = { run: (...a: [string, number, null, string, string, string, number, string]) => st.run(...a, key(a[3])) };
  const ids: string[] = [];
  w.transaction(() => {
    insert.run('err_0000000000007000000000000000c0c0', base - 2 * 60 * MINUTE, null, 'CONTACT_CONSENT_REQUIRED', CLIENT_A, 'fpConsent', 1, '[]');
    insert.run('err_0000000000007000000000000000c0c1', base - 40 * MINUTE, null, 'CONTACT_CONSENT_REQUIRED', CLIENT_A, 'fpConsent', 1, '[]');
    insert.run('err_0000000000007000000000000000c0c2', base - 8 * 60 * MINUTE, null, 'IDEMPOTENCY_CONFLICT', CLIENT_A, 'fpOld', 1, '[]');
    for (let i = 0; i < CHAIN; i++) {
      const id = `err_00000000000070000000000000${(0xd000 + i).toString(16)}ab`;
      ids.push(id);
      insert.run(id, base - 50 * MINUTE + i * 5_000, null, 'IDEMPOTENCY_CONFLICT', CLIENT_A, 'fpChain', i + 1, i > 0 ? '["retried_non_retryable"]' : '[]');
    }
  })();
  w.close();
  return ids;
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/tui/index.js')) || !existsSync(join(ROOT, 'dist/cli/commands/tui.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  }
  dir = mkdtempSync(join(tmpdir(), 'aap-tui-op-'));
  db = join(dir, 'audit.db');
  facts = seedTuiDb(db, Date.now());
  chainIds = addRows(db, facts.base);
});

afterAll(() => {
  for (const s of sessions) s.kill();
  killTmuxServer();
  rmSync(dir, { recursive: true, force: true });
});

/** The total the Errors view shows for the default window. */
const total = () => facts.total + 1 + CHAIN;

/** A shell command line running the CLI with CI and any display unset (no clipboard tool is tried). */
const cli = (args: string, env = '') => `env -u CI -u CONTINUOUS_INTEGRATION -u DISPLAY -u WAYLAND_DISPLAY ${env} node ${CLI} ${args}`;

/** Starts the UI in tmux (on `db`, else the shared store) and, unless `issues`, goes on (Tab) from the Issues view it opens on to the Errors view. */
async function open(name: string, args = '', opts: { columns?: number; rows?: number; env?: string; issues?: boolean; db?: string } = {}): Promise<TmuxSession> {
  const { columns = 120, rows = 36, env = '' } = opts;
  const t = TmuxSession.start(`${name}-${process.pid}`, `sh -c '${cli(`tui --db ${opts.db ?? db} ${args}`, env)}; echo "EXIT=$?"; sleep 60'`, {
    cwd: dir,
    columns,
    rows,
  });
  sessions.push(t);
  await t.waitFor(/issues \d+–\d+ of \d+/, 30_000);
  await t.waitForRawMode();
  if (opts.issues) return t;
  t.keys('Tab');
  // Rows, not just the view: reads are async, and a key sent before the first page has no row.
  await t.waitFor(/rows [1-9]\d*–\d+ of [1-9]\d*/, WAIT);
  return t;
}

/** Table rows of a screen (cursor/mark cells, then a time). */
const tableRows = (screen: string) => screen.split('\n').filter((l) => /^[› ][* ](\d\d-\d\d )?\d\d:\d\d:\d\d /.test(l));
const filterLine = (screen: string) => screen.split('\n').find((l) => l.startsWith('/ ')) ?? '';

describe.skipIf(!tmux)('issue 17 in tmux', { timeout: 180_000 }, () => {
  it('opens on the Issues view: states, counts, whole codes at 80 columns; Enter lists an issue’s errors, Esc comes back', async () => {
    const t = await open('issues', '', { columns: 80, rows: 24, issues: true });
    let screen = t.screen();
    expect(screen).toContain('[issues]');
    expect(screen).toMatch(/ state +count↓ +clients +code +retry +where/);
    const rows = screen.split('\n').filter((l) => /^[› ][* ](new|regressed|ongoing) /.test(l));
    const cols = rows.map((r) => r.split(/\s+/).slice(1, 5));
    expect(cols.slice(0, 4)).toEqual([
      ['new', '100', '1', 'SCHEMA_VALIDATION_FAILED'],
      ['new', '45', '1', 'RATE_LIMITED'],
      ['regressed', String(CHAIN), '1', 'IDEMPOTENCY_CONFLICT'],
      ['new', '5', '1', 'VEHICLE_NOT_FOUND'],
    ]);
    // The two issues of one error each, in either order.
    expect(cols.slice(4).map((c) => c.join(' ')).sort()).toEqual(['new 1 1 VEHICLE_NOT_FOUND', 'ongoing 1 1 CONTACT_CONSENT_REQUIRED']);
    for (const line of screen.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(screen.trimEnd().split('\n').pop()).toMatch(/q quit\s*$/);
    t.keys('j', 'j');
    await t.waitFor(/^› regressed/m, WAIT);
    t.keys('Enter');
    screen = await t.waitFor(`of ${CHAIN}`, WAIT);
    expect(screen).toContain('[errors]');
    expect(tableRows(screen).every((r) => r.includes('IDEMPOTENCY_CONFLICT'))).toBe(true);
    t.keys('Escape');
    screen = await t.waitFor('[issues]', WAIT);
    expect(screen).toMatch(/^› regressed/m);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('sorts the Issues view by count (N), first seen (F) and last seen (L), newest first, with the sorted column marked in the header', async () => {
    const t = await open('issuesort', '', { issues: true });
    /** Each issue row as `code count`, top to bottom (VEHICLE_NOT_FOUND is two issues: two skills). */
    const order = (screen: string) =>
      screen
        .split('\n')
        .filter((l) => /^[› ][* ](new|regressed|ongoing) /.test(l))
        .map((l) => {
          const [, , count, , code] = l.split(/\s+/);
          return `${code} ${count}`;
        });
    let screen = t.screen();
    expect(screen).toContain('sort: couNt First Last');
    expect(screen).toMatch(/ count↓ /);
    t.keys('F');
    // The header changes at once; the rows follow when the store answers.
    screen = await t.waitFor((s) => / first↓ /.test(s) && order(s)[0] === 'RATE_LIMITED 45', WAIT);
    expect(screen).not.toMatch(/ count↓ /);
    // First seen in the window, newest first: the rate storm 12 min ago … client A's first error 55 min ago.
    expect(order(screen)).toEqual(['RATE_LIMITED 45', 'VEHICLE_NOT_FOUND 1', 'SCHEMA_VALIDATION_FAILED 100', 'CONTACT_CONSENT_REQUIRED 1', `IDEMPOTENCY_CONFLICT ${CHAIN}`, 'VEHICLE_NOT_FOUND 5']);
    t.keys('L');
    screen = await t.waitFor((s) => / last↓ /.test(s) && order(s)[0] === 'VEHICLE_NOT_FOUND 5', WAIT);
    expect(screen).not.toMatch(/ first↓ /);
    // Last seen, newest first: client A's error 1 min ago … the retry chain that ended 46 min ago.
    expect(order(screen)).toEqual(['VEHICLE_NOT_FOUND 5', 'RATE_LIMITED 45', 'VEHICLE_NOT_FOUND 1', 'SCHEMA_VALIDATION_FAILED 100', 'CONTACT_CONSENT_REQUIRED 1', `IDEMPOTENCY_CONFLICT ${CHAIN}`]);
    t.keys('N');
    screen = await t.waitFor((s) => / count↓ /.test(s) && order(s)[0] === 'SCHEMA_VALIDATION_FAILED 100', WAIT);
    expect(order(screen).slice(0, 4)).toEqual(['SCHEMA_VALIDATION_FAILED 100', 'RATE_LIMITED 45', `IDEMPOTENCY_CONFLICT ${CHAIN}`, 'VEHICLE_NOT_FOUND 5']);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('shows a client’s label beside its pseudonym in the Errors and Detail views', async () => {
    // A store of its own: a label widens the client column, which the other tests' layouts do not expect.
    const labelled = join(dir, 'labelled.db');
    const seeded = seedTuiDb(labelled, Date.now());
    setClientLabel(labelled, { client: CLIENT_A, name: 'Acme Motors', contact: 'support@acme.example.com' });
    const t = await open('labels', '', { db: labelled, columns: 140, rows: 36 });
    let screen = t.screen();
    const short = CLIENT_A.slice(0, 8);
    // The newest row is client A's; client C (unlabelled, its storm 12–10 min ago) shows its pseudonym alone.
    expect(tableRows(screen)[0]).toContain(`Acme Motors (${short})`);
    expect(tableRows(screen).some((r) => r.includes(` ${CLIENT_C.slice(0, 8)} `) && !r.includes('Acme'))).toBe(true);
    t.keys('Enter');
    screen = await t.waitFor(new RegExp(`^error_id +${seeded.newestId}`, 'm'), WAIT);
    expect(screen).toMatch(new RegExp(`^client +${CLIENT_A} \\(Acme Motors\\)`, 'm'));
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('handles Ctrl+U, Ctrl+W and arrow keys that arrive in one chunk with printable keys, one at a time', async () => {
    const t = await open('chunk');
    t.keys('/');
    await t.waitFor('█', WAIT);
    // One literal string: tmux writes it to the terminal in one go, so the UI reads one chunk.
    t.type('skill:nope\u0015code:VEHICLE\u0017code:RATE_LIMITED\r');
    let screen = await t.waitFor(/rows 1–\d+ of 45/, WAIT);
    // Exactly the text typed after the last Ctrl+W: no invisible characters, no leftovers.
    expect(filterLine(screen).trimEnd()).toBe('/ code:RATE_LIMITED');
    expect([...filterLine(screen)].some((c) => (c.codePointAt(0) ?? 0) < 0x20)).toBe(false);
    // j, j, ↓ (an escape sequence) and k in one chunk: three down, one up.
    t.type('jj\u001b[Bk');
    screen = await t.waitFor((s) => tableRows(s)[2]?.startsWith('›') ?? false, WAIT);
    expect(tableRows(screen).filter((r) => r.startsWith('›'))).toHaveLength(1);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('is never blank while rows exist: :until that removes the shown rows moves to the last page', async () => {
    const t = await open('clamp');
    t.keys('G');
    let screen = await t.waitFor(new RegExp(`rows \\d+–${total()} of ${total()}`), WAIT);
    t.keys(':');
    t.type('until 25m');
    t.keys('Enter');
    // Left: client A's rows at 35, 40 (the consent row), 45, 50 (the chain) and 55 min, and B's storm (30–26 min).
    const left = 3 + 1 + CHAIN + 100;
    screen = await t.waitFor(new RegExp(`rows \\d+–${left} of ${left}`), WAIT);
    const rows = tableRows(screen);
    expect(rows.length, screen).toBeGreaterThan(10);
    expect(rows.filter((r) => r.startsWith('›')), screen).toHaveLength(1);
    const [, first, last] = /rows (\d+)–(\d+) of/.exec(screen) ?? [];
    expect(Number(last) - Number(first) + 1).toBe(rows.length);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('sorts by a column with one key each, shows the order in the header, and reverses on the same key', async () => {
    const t = await open('sort');
    let screen = t.screen();
    expect(screen).toMatch(/ time↓ /);
    expect(screen).toContain('sort: Time Code Retry Skill Proto cLient Att');
    // The header changes at once; the rows follow when the store answers (reads are async).
    t.keys('C');
    screen = await t.waitFor(/ code↑ [\s\S]*\n› [^\n]*CONTACT_CONSENT_REQUIRED/, WAIT);
    expect(tableRows(screen)[0]).toContain('CONTACT_CONSENT_REQUIRED');
    expect(tableRows(screen)[0]?.startsWith('›')).toBe(true);
    t.keys('C');
    screen = await t.waitFor(/ code↓ [\s\S]*\n› [^\n]*VEHICLE_NOT_FOUND/, WAIT);
    expect(tableRows(screen)[0]).toContain('VEHICLE_NOT_FOUND');
    t.keys('A');
    screen = await t.waitFor(new RegExp(` att↓ [\\s\\S]*\\n› [^\\n]* ${CHAIN} `), WAIT);
    // The chain's last attempt is the highest of the store.
    expect(tableRows(screen)[0]).toMatch(new RegExp(` ${CHAIN} `));
    t.keys('T');
    screen = await t.waitFor(/ time↓ /, WAIT);
    t.keys('?');
    screen = await t.waitFor('sort Errors by time, code, retry, skill, proto, client, att', WAIT);
    // q closes the help and does nothing else (issue 28); the next q quits.
    t.keys('q');
    await t.waitFor(/ time↓ /, WAIT);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('keeps the longest codes whole at 80 columns, every line within 80 cells, and q quit on the hint line', async () => {
    const t = await open('narrow', '', { columns: 80, rows: 24 });
    t.keys('/');
    t.type('code:CONTACT_CONSENT_REQUIRED,SCHEMA_VALIDATION_FAILED');
    t.keys('Enter');
    const screen = await t.waitFor(/rows 1–\d+ of 101/, WAIT);
    const rows = tableRows(screen);
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect(r).toMatch(/ (CONTACT_CONSENT_REQUIRED|SCHEMA_VALIDATION_FAILED) /);
    // The consent row is older than the storm: it is on the last page, with its code whole.
    expect(rows.some((r) => r.includes('CONTACT_CONSENT_REQUIRED'))).toBe(false);
    for (const line of screen.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    const lines = screen.trimEnd().split('\n');
    expect(lines[lines.length - 1]).toMatch(/q quit\s*$/);
    t.keys('G');
    const end = await t.waitFor(/rows \d+–101 of 101/, WAIT);
    expect(end).toMatch(/ CONTACT_CONSENT_REQUIRED +no /);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('lists the retry chain around the selected error with the true count', async () => {
    const t = await open('fingerprint', '', { columns: 120, rows: 50 });
    t.keys('/');
    // Attempt 21 of 41: the middle of the chain.
    t.type('fingerprint:fpChain attempt:21');
    t.keys('Enter');
    await t.waitFor(/rows 1–1 of 1 /, WAIT);
    t.keys('Enter');
    await t.waitFor(chainIds[20] ?? 'never', WAIT);
    // The chain is the end of the detail view.
    t.keys('G');
    const screen = await t.waitFor(/attempt 31 /, WAIT);
    expect(screen).toContain(`same fingerprint: ${CHAIN - 1} within ±10m, the 10 before and 10 after this one`);
    const chain = screen.split('\n').filter((l) => /IDEMPOTENCY_CONFLICT +retry=no +attempt \d+/.test(l) || l.includes('this error'));
    const attempts = chain.map((l) => (l.includes('this error') ? 'this' : Number(/attempt (\d+)/.exec(l)?.[1])));
    expect(attempts).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 'this', 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('shows the AAP_TRIAGE_TRACE_URL link in the detail view and in the draft', async () => {
    const t = await open('trace', '', { columns: 120, rows: 40, env: `AAP_TRIAGE_TRACE_URL=${TEMPO}` });
    t.keys('Enter');
    let screen = await t.waitFor('trace: https://', WAIT);
    const traceId = /^trace_id +([0-9a-f]{32})/m.exec(screen)?.[1] ?? '';
    expect(traceId).toHaveLength(32);
    expect(screen).toContain(`trace: https://tempo.example.com/trace/${traceId}`);
    t.keys('d');
    screen = await t.waitFor('Subject:', WAIT);
    t.keys('w');
    screen = await t.waitFor('written: ', WAIT);
    const written = /written: (\S+\.txt)/.exec(screen)?.[1] ?? '';
    // The evidence line of that error ends with the link.
    expect(readFileSync(written, 'utf8')).toMatch(new RegExp(`trace_id=${traceId} .* https://tempo\\.example\\.com/trace/${traceId}$`, 'm'));
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('refuses an AAP_TRIAGE_TRACE_URL without {trace_id} with one line and exit 2', async () => {
    const t = TmuxSession.start(`badtrace-${process.pid}`, `sh -c '${cli(`tui --db ${db}`, 'AAP_TRIAGE_TRACE_URL=https://tempo.example.com/trace/')}; echo "EXIT=$?"; sleep 60'`, {
      cwd: dir,
      columns: 120,
      rows: 20,
    });
    sessions.push(t);
    const screen = await t.waitFor('EXIT=', WAIT);
    expect(screen).toContain('EXIT=2');
    expect(screen).toContain("aap-triage: AAP_TRIAGE_TRACE_URL must contain {trace_id}; got 'https://tempo.example.com/trace/'");
    expect(screen).not.toMatch(/\s+at \S+ \(/);
  });

  it('names AAP_TRIAGE_EXTENSION_URI in the -32008 advice of a storm’s draft', async () => {
    // A store of its own with a -32008 storm, 8–4 min ago (the newest storm): client D retries
    // calls refused for a missing A2A-Extensions header, 20 a minute, 15 of them retries.
    const path = join(dir, 'extension.db');
    const seeded = seedTuiDb(path, Date.now());
    const clientD = `cli${'D'.repeat(19)}`;
    const w = new Database(path);
    const key = issueKey({ service: 'dealer-aap', protocol: 'a2a', rpc_method: 'SendMessage', skill: 'inventory.search', code: 'EXTENSION_SUPPORT_REQUIRED', violations: [], conformance: [] });
    const st = w.prepare(
      `INSERT INTO error_events (error_id, occurred_at, trace_id, service, protocol, protocol_version, rpc_method, skill, code, jsonrpc_code, retryable, client, fingerprint, attempt, retry_flags, key_id, issue_key)
       VALUES (?, ?, NULL, 'dealer-aap', 'a2a', '1.0', 'SendMessage', 'inventory.search', 'EXTENSION_SUPPORT_REQUIRED', -32008, 0, ?, ?, ?, ?, 'k1', ?)`,
    );
    const traffic = w.prepare(`INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES (?, 'dealer', 'inventory.search', ?, 20, 20, 15)`);
    w.transaction(() => {
      for (let m = 8; m >= 4; m--) {
        const minute = seeded.base - m * MINUTE;
        for (let k = 0; k < 20; k++) {
          const attempt = (k % 4) + 1;
          st.run(`err_00000000000070000000000000e${m}${k.toString(16).padStart(2, '0')}`, minute + k * 2_500, clientD, `fpD${m}-${Math.floor(k / 4)}`, attempt, attempt > 1 ? '["retried_non_retryable"]' : '[]', key);
        }
        traffic.run(minute, clientD);
      }
      rebuildIssueHours(w);
    })();
    w.close();
    const uri = 'https://aap.example.com/extensions/aap/v1';
    const t = TmuxSession.start(`extension-${process.pid}`, `sh -c '${cli(`tui --db ${path} --storms`, `AAP_TRIAGE_EXTENSION_URI=${uri}`)}; echo "EXIT=$?"; sleep 60'`, {
      cwd: dir,
      columns: 200,
      rows: 50,
    });
    sessions.push(t);
    let screen = await t.waitFor(/storms 1–3 of 3/, WAIT);
    await t.waitForRawMode();
    expect(screen).toMatch(/^› .*cliDDDDD/m);
    t.keys('d');
    screen = await t.waitFor('Subject:', WAIT);
    expect(screen).toContain('EXTENSION_SUPPORT_REQUIRED');
    screen = await t.waitFor('Activate the AAP extension', WAIT);
    expect(screen.replace(/\s+/g, ' ')).toContain(`send the A2A-Extensions header naming the AAP extension URI ${uri} on every call`);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });

  it('refuses an AAP_TRIAGE_EXTENSION_URI that is not an absolute http(s) URI with one line and exit 2', async () => {
    const t = TmuxSession.start(`badext-${process.pid}`, `sh -c '${cli(`tui --db ${db}`, 'AAP_TRIAGE_EXTENSION_URI=aap-v1')}; echo "EXIT=$?"; sleep 60'`, { cwd: dir, columns: 120, rows: 20 });
    sessions.push(t);
    const screen = await t.waitFor('EXIT=', WAIT);
    expect(screen).toContain('EXIT=2');
    expect(screen).toContain("aap-triage: AAP_TRIAGE_EXTENSION_URI 'aap-v1' is not an absolute http(s) URI");
    expect(screen).not.toMatch(/\s+at \S+ \(/);
  });

  it('says the id was sent to the terminal clipboard (OSC 52), and the terminal took it', async () => {
    const t = await open('copy');
    // tmux takes OSC 52 into its paste buffer with set-clipboard on: the terminal end of the copy.
    t.tmux(['set-option', '-g', 'set-clipboard', 'on']);
    t.keys('y');
    const screen = await t.waitFor('sent to terminal clipboard (OSC 52): ', WAIT);
    expect(screen).toContain(`sent to terminal clipboard (OSC 52): ${facts.newestId}`);
    expect(screen).not.toContain('copied');
    expect(t.tmux(['show-buffer'])).toBe(facts.newestId);
    t.keys('q');
    await t.waitFor('EXIT=0', WAIT);
  });
});
