import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';
import { CLIENT_B, CLIENT_C } from './helpers/seed.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

const stormRows = (frame: string) => frame.split('\n').filter((l) => /^[› ] \d\d-\d\d \d\d:\d\d /.test(l));

describe('Storms view', () => {
  it('lists both seeded storms, newest first, with sparkline, ratio, retries, skills, codes and flags', async () => {
    const ui = renderApp(s, { columns: 160 });
    await settle();
    await ui.press(KEY.tab);
    const f = ui.frame();
    expect(f).toContain('[storms]');
    const rows = stormRows(f);
    expect(rows).toHaveLength(2);
    // Client C: 3 minutes from 01:48, 36 retries of 45 calls (80.0 %); per minute 12 retries → a flat full sparkline.
    expect(rows[0]).toMatch(/^› 11-30 01:48 client +3m cliCCCCC ███ +80\.0% +36 RATE_LIMITED +IRA×36 NB×36 +search_inventory/);
    // Client B: 5 minutes from 01:30, 75 retries of 100 calls (75.0 %).
    expect(rows[1]).toMatch(/^ {2}11-30 01:30 client +5m cliBBBBB █████ +75\.0% +75 SCHEMA_VALIDATION_FAILED +RNR×75 +lead\.submit/);
    expect(f).toContain('storms 1–2 of 2');
    ui.close();
  });

  it('opens the errors of the selected storm with Enter and goes back with Esc', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(KEY.tab, 'j', KEY.enter);
    let f = ui.frame();
    expect(f).toContain('[errors]');
    expect(f).toContain(`/ client:${CLIENT_B} skill:lead.submit`);
    expect(f).toContain('of 100');
    expect(f).toContain('storm cliBBBBB 01:30:00–01:35:00 UTC');
    const rows = f.split('\n').filter((l) => /^[› ][* ](\d\d-\d\d )?\d\d:\d\d:\d\d /.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r).toMatch(/SCHEMA_VALIDATION_FAILED +no +lead\.submit +aap +cliBBBBB/);
    await ui.press(KEY.escape);
    await settle(50);
    f = ui.frame();
    expect(f).toContain('[storms]');
    // Back on the storms, the filter and window of before the drill-down are restored.
    // storms → draft → issues → errors.
    await ui.press(KEY.tab, KEY.tab, KEY.tab);
    expect(ui.frame()).toContain(`of ${s.facts.total}`);
    ui.close();
  });

  it('drafts the selected storm with d', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(KEY.tab, 'd');
    await settle(50);
    const f = ui.frame();
    expect(f).toContain('[draft]');
    expect(f).toMatch(/draft: storm storm-20261130T0148Z-[0-9a-f]{8}/);
    expect(f).toContain('Subject: [aap-triage] Retry storm from client');
    expect(f).toContain(CLIENT_C.slice(0, 12));
    ui.close();
  });

  it('widens the window with :since', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(KEY.tab, ':', 'since 20m', KEY.enter);
    const f = ui.frame();
    expect(f).toContain('since 20m');
    // Only client C's storm (12–10 minutes ago) is inside the last 20 minutes.
    expect(stormRows(f)).toHaveLength(1);
    expect(f).toContain('cliCCCCC');
    ui.close();
  });

  it('names the duration column "length" and keeps whole skill names at 120 columns, the sparkline as wide as the longest storm', async () => {
    const ui = renderApp(s, { columns: 120 });
    await settle();
    await ui.press(KEY.tab);
    const f = ui.frame();
    const header = f.split('\n').find((l) => l.includes('client') && l.includes('skills')) ?? '';
    expect(header).toMatch(/^ {2}start +cause +length client +shape +ratio retries codes +flags +skills$/);
    expect(header).not.toMatch(/\bfor\b/);
    // The longest series is client B's 5 minutes: the sparkline column is 5 cells wide, not 20.
    expect(header).toContain('shape  ratio');
    const rows = stormRows(f);
    expect(rows[0]).toMatch(/cliCCCCC ███ {4}80\.0% .* search_inventory$/);
    expect(rows[1]).toMatch(/cliBBBBB █████ {2}75\.0% .* lead\.submit$/);
    ui.close();
  });

  it('explains each retry-flag abbreviation in words on the ? screen', async () => {
    const ui = renderApp(s, { columns: 120, rows: 30 });
    await settle();
    await ui.press(KEY.tab, '?');
    const f = ui.frame();
    expect(f).toMatch(/flags +RNR retried after a non-retryable answer \(retryable=false before\)/);
    expect(f).toMatch(/ +IRA ignored retry_after \(came before the server's retry_after_ms\)/);
    expect(f).toMatch(/ +NB +no backoff \(came sooner than capped exponential backoff allows\)/);
    ui.close();
  });
});
