import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAuditReader, sqliteReader } from '../../src/audit/index.js';
import { draftIncident } from '../../src/triage/draft.js';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

/** Polls until `check` passes (the .eml is built asynchronously). */
async function until(check: () => boolean, ms = 3000): Promise<void> {
  for (let t = 0; t < ms && !check(); t += 20) await settle(20);
}

describe('Draft view', () => {
  it('shows the incident email of the selected storm, scrollable', async () => {
    const ui = renderApp(s, { columns: 120, rows: 24 });
    await settle();
    await ui.press(KEY.tab, 'j', 'd');
    let f = ui.frame();
    expect(f).toMatch(/draft: storm storm-20261130T0130Z-[0-9a-f]{8} · format text/);
    expect(f).toContain('Subject: [aap-triage] Retry storm from client cliBBBBB on lead.submit: SCHEMA_VALIDATION_FAILED');
    expect(f).toMatch(/lines 1–\d+ of \d+/);
    const total = Number(/lines 1–\d+ of (\d+)/.exec(f)?.[1]);
    expect(total).toBeGreaterThan(20);
    await ui.press('G');
    f = ui.frame();
    expect(f).toMatch(new RegExp(`lines \\d+–${total} of ${total}`));
    await ui.press('g');
    expect(ui.frame()).toContain('Subject:');
    ui.close();
  });

  it('writes the draft as text, Markdown and .eml and shows where', async () => {
    const ui = renderApp(s, { columns: 200, rows: 30 });
    await settle();
    await ui.press(KEY.tab, 'j', 'd', 'w');
    await until(() => ui.frame().includes('written: '));
    const txtPath = /written: (\S+\.txt)/.exec(ui.frame())?.[1] ?? '';
    expect(txtPath.startsWith(s.dir)).toBe(true);
    // Named after the bare storm id (which starts with `storm-` already) and the UTC time of the clock.
    expect(txtPath.slice(s.dir.length + 1)).toMatch(/^incident-storm-20261130T0130Z-[0-9a-f]{8}-20261130T020030Z\.txt$/);
    expect(ui.frame()).toContain(`wrote ${txtPath}`);

    // The file holds exactly what triage drafts for that storm (same clock).
    const stormId = /draft: storm (storm-\S+)/.exec(ui.frame())?.[1] ?? '';
    const db = openAuditReader(s.path);
    const expected = (await draftIncident(sqliteReader(db), { kind: 'storm', id: stormId }, { now: s.now }));
    db.close();
    expect(readFileSync(txtPath, 'utf8')).toBe(expected?.text.endsWith('\n') ? expected.text : `${expected?.text}\n`);

    await ui.press('f', 'w');
    await until(() => /written: \S+\.md/.test(ui.frame()));
    const mdPath = /written: (\S+\.md)/.exec(ui.frame())?.[1] ?? '';
    expect(readFileSync(mdPath, 'utf8')).toContain(expected?.markdown.split('\n')[0] ?? '#');

    await ui.press('f');
    await until(() => ui.frame().includes('From: '));
    expect(ui.frame()).toContain('To: partner-oncall@example.invalid');
    await ui.press('w');
    await until(() => /written: \S+\.eml/.test(ui.frame()));
    const emlPath = /written: (\S+\.eml)/.exec(ui.frame())?.[1] ?? '';
    const mail = await simpleParser(readFileSync(emlPath));
    expect(mail.subject).toBe(expected?.subject);
    expect(mail.text).toContain('SCHEMA_VALIDATION_FAILED');
    expect(readdirSync(s.dir).filter((n) => n.startsWith('incident-')).sort()).toEqual(
      [txtPath, mdPath, emlPath].map((p) => p.slice(s.dir.length + 1)).sort(),
    );
    ui.close();
  });

  it('writes to a path given with :w', async () => {
    const ui = renderApp(s, { columns: 200 });
    await settle();
    await ui.press(KEY.tab, 'd', ':', 'w mine.txt', KEY.enter);
    await until(() => ui.frame().includes('written: '));
    expect(ui.frame()).toContain(`written: ${join(s.dir, 'mine.txt')}`);
    expect(readFileSync(join(s.dir, 'mine.txt'), 'utf8')).toContain('Subject: [aap-triage] Retry storm');
    ui.close();
  });

  it('says there is nothing to draft when no storm is highlighted and nothing is marked', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(':', 'draft', KEY.enter);
    expect(ui.frame()).toContain('[draft]');
    expect(ui.frame()).toContain('Nothing to draft yet');
    expect(ui.frame()).toContain('nothing drafted yet: d on a storm or on marked errors');
    ui.close();
  });

  it('says there is nothing to draft on Tab from a Storms view without storms', async () => {
    // The last 3 minutes hold errors of client A only: no storm to highlight.
    const ui = renderApp(s, { window: { since: '3m' } });
    await settle();
    await ui.press(KEY.tab);
    expect(ui.frame()).toContain('no retry storms in the window');
    await ui.press(KEY.tab);
    expect(ui.frame()).toContain('[draft]');
    expect(ui.frame()).toContain('Nothing to draft yet');
    ui.close();
  });

  it('drafts the highlighted storm on Tab from the Storms view, as d does', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(KEY.tab, 'j', KEY.tab);
    const f = ui.frame();
    expect(f).toContain('[draft]');
    expect(f).not.toContain('Nothing to draft yet');
    expect(f).toMatch(/draft: storm storm-20261130T0130Z-[0-9a-f]{8} · format text/);
    expect(f).toContain('Subject: [aap-triage] Retry storm from client cliBBBBB on lead.submit');
    ui.close();
  });

  it('drafts the marked errors on :draft when no storm is highlighted', async () => {
    const ui = renderApp(s);
    await settle();
    await ui.press(' ', ' ', ':', 'draft', KEY.enter);
    const f = ui.frame();
    expect(f).toContain('[draft]');
    expect(f).toContain('draft: 2 marked errors · format text');
    expect(f).toContain('Subject: [aap-triage]');
    ui.close();
  });
});
