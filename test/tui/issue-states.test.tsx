/**
 * The Issues view's operator keys (issue 29): `c` resolves the selected issue now, `m` mutes it
 * (dimmed, still counted), `o` opens it again; each stored with the operator and the time.
 * Real App, real triage functions, a seeded SQLite file.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyToCommand } from '../../src/tui/keys.js';
import { renderApp, seeded, settle, type Seeded } from './helpers/render.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

const stored = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT issue_key, state, resolved_mode, set_by, set_at FROM issue_states').all();
  } finally {
    db.close();
  }
};
const selectedRow = (frame: string) => frame.split('\n').find((l) => l.startsWith('›')) ?? '';

describe('Issues view: resolve, mute, reopen', () => {
  it('maps c, m and o to the three actions', () => {
    const key = { shift: false, ctrl: false, meta: false } as never;
    expect([keyToCommand('c', key), keyToCommand('m', key), keyToCommand('o', key)]).toEqual(['resolveIssue', 'muteIssue', 'reopenIssue']);
  });

  it('stores each with the operator and the time, and the state column follows', async () => {
    const ui = renderApp(s, { view: 'issues', columns: 160, rows: 30, sourceOptions: { issueStates: { target: s.path, operator: 'oncall-alice' } } });
    await settle();
    const key = /([0-9a-f]{16})\s*$/.exec(selectedRow(ui.frame()))![1]!;
    await ui.press('c');
    await settle();
    expect(ui.frame()).toContain(`issue ${key}: resolved now by oncall-alice`);
    expect(selectedRow(ui.frame())).toMatch(/^›\s+resolved /);
    expect(stored(s.path)).toEqual([{ issue_key: key, state: 'resolved', resolved_mode: 'now', set_by: 'oncall-alice', set_at: s.now }]);
    await ui.press('m');
    await settle();
    expect(selectedRow(ui.frame())).toMatch(/^›\s+muted /);
    await ui.press('o');
    await settle();
    expect(ui.frame()).toContain(`issue ${key}: open by oncall-alice`);
    expect(selectedRow(ui.frame())).not.toMatch(/resolved|muted/);
    expect(stored(s.path)).toEqual([{ issue_key: key, state: 'open', resolved_mode: null, set_by: 'oncall-alice', set_at: s.now }]);
    ui.close();
  });

  it('says why not when no operator is named', async () => {
    const ui = renderApp(s, { view: 'issues', columns: 160, rows: 30, sourceOptions: { issueStates: { target: s.path, operator: null } } });
    await settle();
    await ui.press('c');
    expect(ui.frame()).toContain('no operator name: set AAP_TRIAGE_OPERATOR');
    expect(stored(s.path)).toEqual([]);
    ui.close();
  });
});
