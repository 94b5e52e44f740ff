/**
 * The Issues view (issue 17): the view the UI opens on, errors grouped by issue key with
 * count, clients, first/last seen, trend, retryable and state; sort keys; Enter lists an
 * issue's errors and Esc comes back. Real App, real triage functions, a seeded SQLite file.
 */
import { stripVTControlCharacters } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/audit/issue-key.js';
import { openAuditReader, sqliteReader } from '../../src/audit/index.js';
import { filterWindow } from '../../src/tui/source.js';
import { createTriageSource } from '../../src/tui/triage-source.js';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';
import { CLIENT_A, CLIENT_C, MINUTE } from './helpers/seed.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

const HOUR = 60 * MINUTE;
const issueRows = (frame: string) => frame.split('\n').filter((l) => /^[› ][* ](new|regressed|ongoing) /.test(l));

/**
 * Two more issues with a history before the window: IDEMPOTENCY_CONFLICT seen 8 h ago (more than
 * the 6 h quiet period) and again now → regressed; QUOTE_EXPIRED seen 2 h ago and now → ongoing.
 */
function addHistory(path: string, base: number): void {
  const w = new Database(path);
  const insert = w.prepare(
    `INSERT INTO error_events (error_id, occurred_at, service, protocol, rpc_method, skill, code, retryable, client, attempt, retry_flags, key_id, issue_key)
     VALUES (?, ?, 'dealer-aap', 'aap', 'SendMessage', 'lead.submit', ?, 0, ?, 1, '[]', 'k1', ?)`,
  );
  const key = (code: string) => issueKey({ service: 'dealer-aap', protocol: 'aap', rpc_method: 'SendMessage', skill: 'lead.submit', code, violations: [], conformance: [] });
  const rows: [number, string, string][] = [
    [base - 8 * HOUR, 'IDEMPOTENCY_CONFLICT', CLIENT_A],
    [base - 3 * MINUTE, 'IDEMPOTENCY_CONFLICT', CLIENT_A],
    [base - 2 * MINUTE, 'IDEMPOTENCY_CONFLICT', CLIENT_C],
    [base - 2 * HOUR, 'QUOTE_EXPIRED', CLIENT_A],
    [base - 4 * MINUTE, 'QUOTE_EXPIRED', CLIENT_A],
  ];
  rows.forEach(([t, code, client], i) => insert.run(`err_${t.toString(16).padStart(12, '0')}7${(0xe00 + i).toString(16).padStart(19, '0')}`, t, code, client, key(code)));
  w.close();
}

describe('Issues view', () => {
  it('says it is loading until the store answers, never a false "no issues" (issue 28)', async () => {
    const ui = renderApp(s, { view: 'issues', columns: 120, rows: 30 });
    const first = stripVTControlCharacters(ui.frames()[0] ?? '');
    expect(first).toContain('loading… (reading the audit store)');
    expect(first).not.toMatch(/no issues|regressed: back after/);
    await settle();
    expect(ui.frame()).toMatch(/issues 1–\d+ of \d+/);
    ui.close();
  });

  it('shows a first page read before it mounted in its first frame, as the store answers it (runTui, issue 28 "first data frame")', async () => {
    const db = openAuditReader(s.path);
    const source = createTriageSource(sqliteReader(db));
    const window = { since: '1h' };
    const page = await source.issues('', filterWindow(source, window, '', s.now), 'count');
    db.close();
    const ui = renderApp(s, { view: 'issues', window, columns: 120, rows: 30, firstIssues: { at: s.now, page } });
    const first = stripVTControlCharacters(ui.frames()[0] ?? '');
    expect(first).not.toContain('loading…');
    expect(first).toMatch(new RegExp(`issues 1–\\d+ of ${page.total}`));
    await settle();
    expect(issueRows(ui.frame())).toEqual(issueRows(first));
    ui.close();
  });

  it('groups the errors into issues, busiest first, with count, clients, first/last seen, trend, retryable and state', async () => {
    addHistory(s.path, s.facts.base);
    const ui = renderApp(s, { view: 'issues', columns: 160, rows: 30 });
    await settle();
    const f = ui.frame();
    expect(f).toContain('[issues]');
    expect(f).toMatch(/ state +count↓ +clients +code +retry +where +last +first +trend +issue/);
    const rows = issueRows(f);
    expect(rows.map((r) => r.split(/\s+/).slice(1, 5))).toEqual([
      ['new', '100', '1', 'SCHEMA_VALIDATION_FAILED'],
      ['new', '45', '1', 'RATE_LIMITED'],
      ['new', '5', '1', 'VEHICLE_NOT_FOUND'],
      ['regressed', '2', '2', 'IDEMPOTENCY_CONFLICT'],
      ['ongoing', '1', '1', 'QUOTE_EXPIRED'],
      ['new', '1', '1', 'VEHICLE_NOT_FOUND'],
    ]);
    // Client B's storm: first and last seen in the window, UTC; retryable=false; a trend drawn.
    expect(rows[0]).toMatch(/SCHEMA_VALIDATION_FAILED +no +lead\.submit · \S+ \(aap\) +01:34:47 01:30:00 +[▁▂▃▄▅▆▇█ ]*█/);
    expect(rows[1]).toMatch(/RATE_LIMITED +yes +search_inventory · /);
    expect(f).toContain('issues 1–6 of 6 · sort: couNt First Last · trend 3m/cell · regressed: back after 6h00m quiet');
    ui.close();
  });

  it('sorts by count, first seen and last seen with N, F and L', async () => {
    addHistory(s.path, s.facts.base);
    const ui = renderApp(s, { view: 'issues', columns: 160, rows: 30 });
    await settle();
    const codes = () => issueRows(ui.frame()).map((r) => r.split(/\s+/)[4]);
    await ui.press('L');
    expect(ui.frame()).toMatch(/ last↓ /);
    expect(codes()).toEqual(['VEHICLE_NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'QUOTE_EXPIRED', 'RATE_LIMITED', 'VEHICLE_NOT_FOUND', 'SCHEMA_VALIDATION_FAILED']);
    await ui.press('F');
    expect(ui.frame()).toMatch(/ first↓ /);
    expect(codes()).toEqual(['IDEMPOTENCY_CONFLICT', 'QUOTE_EXPIRED', 'RATE_LIMITED', 'VEHICLE_NOT_FOUND', 'SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND']);
    await ui.press('N');
    expect(codes()[0]).toBe('SCHEMA_VALIDATION_FAILED');
    ui.close();
  });

  it('lists the issue’s errors on Enter and comes back on Esc', async () => {
    const ui = renderApp(s, { view: 'issues', columns: 120, rows: 30 });
    await settle();
    await ui.press('j', KEY.enter);
    let f = ui.frame();
    expect(f).toContain('[errors]');
    expect(f).toMatch(/\/ issue:[0-9a-f]{16}/);
    expect(f).toMatch(/rows 1–\d+ of 45 · issue [0-9a-f]{16} RATE_LIMITED · search_inventory · dealer-dmc12 \(dmc12\)/);
    await ui.press(KEY.escape);
    f = ui.frame();
    expect(f).toContain('[issues]');
    expect(issueRows(f).find((r) => r.startsWith('›'))).toContain('RATE_LIMITED');
    ui.close();
  });

  it('filters the errors it groups and drafts an issue with d', async () => {
    const ui = renderApp(s, { view: 'issues', columns: 120, rows: 30 });
    await settle();
    await ui.press('/', 'protocol:aap', KEY.enter);
    let f = ui.frame();
    expect(f).toContain('[issues]');
    expect(issueRows(f)).toHaveLength(3);
    expect(f).not.toContain('RATE_LIMITED');
    await ui.press('d');
    f = ui.frame();
    expect(f).toMatch(/draft: issue [0-9a-f]{16} SCHEMA_VALIDATION_FAILED/);
    expect(f).toContain('Subject:');
    ui.close();
  });
});
