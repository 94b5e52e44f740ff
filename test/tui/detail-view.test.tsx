import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_EVENT_COLUMNS } from '../../src/audit/schema.js';
import { lookupCode } from '../../src/protocol/index.js';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

describe('Detail view', () => {
  it('shows every column, the code meaning and the recommended client action', async () => {
    const ui = renderApp(s, { columns: 160, rows: 50 });
    await settle();
    await ui.press(KEY.enter);
    const f = ui.frame();
    expect(f).toContain('› detail');
    expect(f).toContain(`VEHICLE_NOT_FOUND  retryable=no  ${s.facts.newestId}`);
    const info = lookupCode('aap', 'VEHICLE_NOT_FOUND');
    expect(info).toBeDefined();
    expect(f).toContain(`meaning: ${info?.meaning}`);
    expect(f).toContain(`client should: ${info?.clientAction}`);
    for (const col of ERROR_EVENT_COLUMNS) expect(f).toMatch(new RegExp(`^${col} +`, 'm'));
    expect(f).toMatch(/^error_id +err_/m);
    expect(f).toMatch(/^occurred_at +11-30 01:59:07 UTC/m);
    expect(f).toContain('same trace (0)');
    ui.close();
  });

  it('lists related errors of the same trace and the same fingerprint', async () => {
    const ui = renderApp(s, { columns: 160, rows: 60 });
    await settle();
    // Client B's first minute: rows 0..3 share trace bbbb… and fingerprint fpB0 (attempts 1–4).
    await ui.press('/', `trace:${s.facts.traceOfB}`, KEY.enter, 'G', KEY.enter);
    const f = ui.frame();
    expect(f).toContain('SCHEMA_VALIDATION_FAILED  retryable=no');
    expect(f).toContain('same trace (3)');
    expect(f).toContain('same fingerprint: 3 within ±10m, all shown');
    expect(f.match(/SCHEMA_VALIDATION_FAILED +retry=no +attempt [234]/g)).toHaveLength(6);
    ui.close();
  });

  it('says the copy failed, and shows the id, when there is no terminal for OSC 52 and no clipboard tool', async () => {
    // ink-testing-library's stdout is not a TTY, and an empty env offers no clipboard tool.
    const ui = renderApp(s, { columns: 160, rows: 50, env: {} });
    await settle();
    await ui.press(KEY.enter, 'y');
    expect(ui.frame()).toContain(`could not copy error_id: no terminal for OSC 52 and no clipboard tool (pbcopy, wl-copy, xclip, xsel) — copy it from here: ${s.facts.newestId}`);
    expect(ui.frame()).not.toContain('copied');
    expect(ui.frames().some((fr) => fr.includes('\u001b]52;'))).toBe(false);
    await ui.press('Y');
    expect(ui.frame()).toMatch(/could not copy trace_id: .* copy it from here: [0-9a-f]{32}/);
    await ui.press(KEY.escape);
    await settle(50);
    expect(ui.frame()).toContain('[errors]');
    ui.close();
  });
});
