import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import stringWidth from 'string-width';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';
import { CLIENT_A, CLIENT_B, CLIENT_C, seedTuiDb } from './helpers/seed.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

/** The table rows of a frame (lines starting with the cursor/mark gutter and a time). */
const tableRows = (frame: string) => frame.split('\n').filter((l) => /^[› ][* ](\d\d-\d\d )?\d\d:\d\d:\d\d /.test(l));

describe('Errors view', () => {
  it('lists the newest errors first with every column and the row count', async () => {
    const ui = renderApp(s, { columns: 140, rows: 30 });
    await settle();
    const f = ui.frame();
    const rows = tableRows(f);
    // 30 rows → a 29-line frame: title, status, hints (3) + filter, legend, 4 chart rows, header, footer (8) → 18 rows.
    expect(rows).toHaveLength(18);
    expect(rows[0]).toMatch(/^› 01:59:07 VEHICLE_NOT_FOUND +no +inventory\.vehicle +aap +cliAAAAA +1 +/);
    expect(rows[0]).toContain(s.facts.newestId);
    expect(rows[2]).toMatch(/01:50:42 RATE_LIMITED +yes +search_inventory +dmc12 +cliCCCCC +4 IRA,NB/);
    expect(f).toContain('time');
    for (const h of ['code', 'retry', 'skill', 'proto', 'client', 'att', 'flags', 'error_id']) expect(f).toContain(h);
    expect(f).toContain(`rows 1–18 of ${s.facts.total}`);
    ui.close();
  });

  it('filters with the query language and shows only matching rows', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press('/', 'code:RATE_LIMITED', KEY.enter);
    const f = ui.frame();
    expect(f).toContain('/ code:RATE_LIMITED');
    expect(f).toContain(`rows 1–`);
    expect(f).toContain(`of ${s.facts.byCode['RATE_LIMITED']}`);
    const rows = tableRows(f);
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect(r).toContain('RATE_LIMITED');
    // Esc on the Errors view with a filter clears it.
    await ui.press(KEY.escape);
    await settle(80);
    expect(ui.frame()).toContain(`of ${s.facts.total}`);
    ui.close();
  });

  it('keeps the filter bar open and names the bad token for a bad query', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press('/', 'colour:red', KEY.enter);
    const f = ui.frame();
    expect(f).toContain("bad query token 'colour:red'");
    expect(f).toContain(`of ${s.facts.total}`);
    await ui.press(KEY.escape);
    await settle(80);
    expect(ui.frame()).not.toContain('bad query token');
    ui.close();
  });

  it('moves with j/k, G/g and PgDn/PgUp and pages the footer', async () => {
    const ui = renderApp(s, { rows: 24 });
    await settle();
    // 24 rows → a 23-line frame → 12 table rows.
    expect(ui.frame()).toContain(`rows 1–12 of ${s.facts.total}`);
    await ui.press('G');
    expect(ui.frame()).toContain(`rows ${s.facts.total - 11}–${s.facts.total} of ${s.facts.total}`);
    expect(tableRows(ui.frame()).at(-1)).toMatch(/^› /);
    await ui.press('g');
    expect(ui.frame()).toContain(`rows 1–12 of ${s.facts.total}`);
    await ui.press('j', 'j', KEY.down);
    expect(tableRows(ui.frame())[3]).toMatch(/^› /);
    await ui.press('k');
    expect(tableRows(ui.frame())[2]).toMatch(/^› /);
    // PgDn moves the cursor (row 3) down 11 rows to row 14; the page scrolls to keep it last.
    await ui.press(KEY.pageDown);
    expect(ui.frame()).toContain(`rows 3–14 of ${s.facts.total}`);
    await ui.press(KEY.pageUp);
    expect(tableRows(ui.frame())[0]).toMatch(/^› /);
    expect(ui.frame()).toContain(`rows 3–14 of ${s.facts.total}`);
    ui.close();
  });

  it('takes Ctrl+U and Ctrl+W inside one chunk of typed text as keys, leaving no invisible character in the filter', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press('/');
    await ui.press('skill:nope\u0015code:VEHICLE\u0017code:RATE_LIMITED\r');
    const bar = ui.frame().split('\n').find((l) => l.startsWith('/ ')) ?? '';
    expect(bar.trimEnd()).toBe('/ code:RATE_LIMITED');
    expect(ui.frame()).toMatch(/rows 1–\d+ of 45/);
    ui.close();
  });

  it('moves once per key when twenty keys arrive in one chunk, each seeing the state the previous one left', async () => {
    const ui = renderApp(s, { columns: 120, rows: 50 });
    await settle();
    await ui.press('j'.repeat(20));
    expect(tableRows(ui.frame()).findIndex((r) => r.startsWith('›'))).toBe(20);
    await ui.press('k'.repeat(5) + 'j');
    expect(tableRows(ui.frame()).findIndex((r) => r.startsWith('›'))).toBe(16);
    ui.close();
  });

  it('shows a client’s label with its pseudonym prefix in the Errors, Detail and Storms views', async () => {
    const w = new Database(s.path);
    w.prepare(`INSERT INTO client_labels (client, name, contact, updated_at) VALUES (?, 'Acme Motors', 'support@acme.example.com', 0)`).run(CLIENT_A);
    w.prepare(`INSERT INTO client_labels (client, name, contact, updated_at) VALUES (?, 'Beta Leads', NULL, 0)`).run(CLIENT_B);
    w.close();
    const ui = renderApp(s, { columns: 160, rows: 40 });
    await settle();
    expect(tableRows(ui.frame())[0]).toContain('Acme Motors (cliAAAAA)');
    await ui.press(KEY.enter);
    expect(ui.frame()).toMatch(new RegExp(`^client +${CLIENT_A} \\(Acme Motors\\)`, 'm'));
    await ui.press(KEY.escape, KEY.tab);
    expect(ui.frame()).toContain('Beta Leads (cliBBBBB)');
    ui.close();
  });

  it('jumps to the next and previous retryable=false error with e and E', async () => {
    const ui = renderApp(s, { rows: 40 });
    await settle();
    // Row 0 and 1 are VEHICLE_NOT_FOUND (terminal), then 45 RATE_LIMITED (retryable), then client A's 20-min-ago error.
    await ui.press('e');
    expect(tableRows(ui.frame())[1]).toMatch(/^› .*VEHICLE_NOT_FOUND/);
    await ui.press('e');
    const f = ui.frame();
    expect(f).toContain('rows');
    const selected = tableRows(f).find((r) => r.startsWith('›')) ?? '';
    expect(selected).toMatch(/no +/);
    expect(selected).not.toContain('RATE_LIMITED');
    expect(selected).toContain(s.facts.wideId.slice(-12));
    // Back to row 2 (index 1): the page scrolls up so that it is the first visible row.
    await ui.press('E');
    expect(tableRows(ui.frame())[0]).toMatch(/^› .*VEHICLE_NOT_FOUND/);
    expect(ui.frame()).toMatch(/rows 2–\d+ of /);
    ui.close();
  });

  it('marks rows with space and drafts the marked errors with d', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(' ', ' ');
    const rows = tableRows(ui.frame());
    expect(rows[0]).toMatch(/^ \*/);
    expect(rows[1]).toMatch(/^ \*/);
    expect(ui.frame()).toContain('2 marked');
    await ui.press('d');
    await settle(50);
    const f = ui.frame();
    expect(f).toContain('[draft]');
    expect(f).toContain('draft: 2 marked errors');
    expect(f).toContain('Subject:');
    ui.close();
  });

  it('draws the per-minute histogram with terminal and retryable errors told apart', async () => {
    const ui = renderApp(s, { rows: 30 });
    await settle();
    const f = ui.frame();
    // Seeded: 6 + 100 terminal (VEHICLE_NOT_FOUND, SCHEMA_VALIDATION_FAILED), 45 retryable (RATE_LIMITED).
    expect(f).toContain('█ terminal 106');
    expect(f).toContain('░ retryable 45');
    expect(f).toContain('peak 20');
    ui.close();
  });

  it('narrows to a client with a pseudonym filter', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press('/', `client:${CLIENT_C}`, KEY.enter);
    expect(ui.frame()).toContain('rows 1–');
    expect(ui.frame()).toContain('of 45');
    ui.close();
  });

  it('refreshes live: a row written while the view is open appears, selected when the cursor is on row 1', async () => {
    const ui = renderApp(s, { refreshMs: 200 });
    await settle();
    expect(ui.frame()).toContain(`of ${s.facts.total}`);
    const w = new Database(s.path);
    w.prepare(
      `INSERT INTO error_events (error_id, occurred_at, service, protocol, rpc_method, skill, code, retryable, client, attempt)
       VALUES ('err_ffffffffffffffffffffffffffffffff', ?, 'dealer-aap', 'aap', 'SendMessage', 'lead.submit', 'IDEMPOTENCY_CONFLICT', 0, NULL, 1)`,
    ).run(s.now - 1000);
    w.close();
    for (let t = 0; t < 3000 && !ui.frame().includes(`of ${s.facts.total + 1}`); t += 50) await settle(50);
    expect(ui.frame()).toContain(`of ${s.facts.total + 1}`);
    expect(ui.frame()).toMatch(/^› 02:00:29 IDEMPOTENCY_CONFLICT +no +lead\.submit/m);
    ui.close();
  });

  it('shows the date in the time column only for windows longer than a day', async () => {
    const ui = renderApp(s);
    await settle();
    expect(tableRows(ui.frame())[0]).toMatch(/^› 01:59:07 /);
    await ui.press(':', 'since 2d', KEY.enter);
    expect(ui.frame()).toContain('since 2d');
    expect(tableRows(ui.frame())[0]).toMatch(/^› 11-30 01:59:07 /);
    ui.close();
  });

  it('keeps the selected error under the cursor when newer rows arrive above it', async () => {
    const ui = renderApp(s, { refreshMs: 200 });
    await settle();
    await ui.press('j', 'j', 'j');
    const before = tableRows(ui.frame()).find((r) => r.startsWith('›')) ?? '';
    expect(before).toContain('RATE_LIMITED');
    const w = new Database(s.path);
    const insert = w.prepare(
      `INSERT INTO error_events (error_id, occurred_at, service, protocol, rpc_method, skill, code, retryable, attempt)
       VALUES (?, ?, 'dealer-aap', 'aap', 'SendMessage', 'lead.submit', 'IDEMPOTENCY_CONFLICT', 0, 1)`,
    );
    insert.run('err_fffffffffffffffffffffffffffffff1', s.now - 2000);
    insert.run('err_fffffffffffffffffffffffffffffff2', s.now - 1000);
    w.close();
    for (let t = 0; t < 3000 && !ui.frame().includes(`of ${s.facts.total + 2}`); t += 50) await settle(50);
    await settle(100);
    expect(ui.frame()).toContain(`of ${s.facts.total + 2}`);
    // The same row (the code column may have grown for the new, longer code, leaving less of the id).
    const words = (r: string | undefined) => (r ?? '').split(/\s+/).map((w) => (w.startsWith('…') ? w.slice(-16) : w));
    expect(words(tableRows(ui.frame()).find((r) => r.startsWith('›')))).toEqual(words(before));
    expect(ui.frame()).toContain(`rows 3–`);
    ui.close();
  });
});

describe('status line and gap records', () => {
  const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');

  it('names the newest gap in the window as "N errors not recorded between t1 and t2 (reason)", with "+k more"', async () => {
    // The seed's one gap: 7 errors, 20 to 19 minutes before the last seeded minute.
    const one = `! 7 errors not recorded between ${utc(s.facts.base - 20 * 60_000)} and ${utc(s.facts.base - 19 * 60_000)} (queue-overflow)`;
    let ui = renderApp(s, { columns: 240 });
    await settle();
    expect(ui.frame()).toContain(one);
    expect(ui.frame()).not.toContain('more');
    ui.close();

    const db = new Database(s.path);
    db.prepare(`INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('dealer-aap', ?, ?, 1, 'write-failed')`).run(
      s.facts.base - 5 * 60_000,
      s.facts.base - 4 * 60_000,
    );
    db.close();
    ui = renderApp(s, { columns: 240 });
    await settle();
    expect(ui.frame()).toContain(`! 1 error not recorded between ${utc(s.facts.base - 5 * 60_000)} and ${utc(s.facts.base - 4 * 60_000)} (write-failed) +1 more`);
    ui.close();

    // A window that holds neither gap still says that errors were lost elsewhere.
    ui = renderApp(s, { columns: 240, window: { since: '3m' } });
    await settle();
    expect(ui.frame()).toContain('! 2 gap records outside the window: 8 errors not recorded');
    ui.close();
  });

  it('shows the whole gap sentence at 120 columns when the database path is long, before the shortened path', async () => {
    // A real store deep in a folder tree: the path alone is wider than the terminal.
    const deep = join(s.dir, 'var', 'lib', 'dealer-servers', 'production-eu-west-1', 'aap-triage', 'audit-stores', 'dealer-aap-primary');
    mkdirSync(deep, { recursive: true });
    const path = join(deep, 'audit-store-of-the-dealer-server.db');
    seedTuiDb(path, s.now);
    expect(path.length).toBeGreaterThan(120);
    const one = `! 7 errors not recorded between ${utc(s.facts.base - 20 * 60_000)} and ${utc(s.facts.base - 19 * 60_000)} (queue-overflow)`;
    const ui = renderApp({ ...s, path }, { columns: 120, dbLabel: path });
    await settle();
    const status = ui.frame().split('\n').find((l) => l.includes('errors not recorded')) ?? '';
    expect(status.startsWith(one)).toBe(true);
    expect(stringWidth(status)).toBeLessThanOrEqual(120);
    // The path is cut from its start to 12 cells (the end of the file name stays), then the line's end.
    expect(status).toMatch(/^! 7 errors [^·]+ · db …r-server\.db · sinc…$/);
    expect(status).not.toContain(deep);
    ui.close();
  });
});
