import stringWidth from 'string-width';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, renderApp, seeded, settle, type Seeded } from './helpers/render.js';
import { WIDE_SKILL } from './helpers/seed.js';

let s: Seeded;
beforeEach(() => {
  s = seeded();
});
afterEach(() => s.cleanup());

/** Display-cell column where `needle` starts in `line`. */
const cellIndex = (line: string, needle: string) => stringWidth(line.slice(0, line.indexOf(needle)));

describe('layout', () => {
  for (const [columns, rows] of [
    [80, 24],
    [120, 40],
    [60, 14],
  ] as const) {
    it(`never draws a line wider than ${columns} cells or a frame taller than ${rows - 1} lines, in every view`, async () => {
      const ui = renderApp(s, { columns, rows });
      await settle();
      const check = () => {
        const lines = ui.frame().split('\n');
        expect(lines.length).toBeLessThanOrEqual(rows - 1);
        for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
      };
      check();
      await ui.press(KEY.enter);
      check();
      await ui.press(KEY.escape, KEY.tab);
      check();
      await ui.press('d');
      check();
      await ui.press('?');
      check();
      ui.close();
    });
  }

  it('keeps columns aligned when a value has wide characters and emoji', async () => {
    const ui = renderApp(s, { columns: 120, rows: 30 });
    await settle();
    await ui.press('/', 'code:VEHICLE_NOT_FOUND', KEY.enter);
    const lines = ui.frame().split('\n');
    const wide = lines.find((l) => l.includes('在庫'));
    const plain = lines.find((l) => l.includes('inventory.vehicle'));
    expect(wide).toBeDefined();
    expect(plain).toBeDefined();
    expect(wide).toContain(WIDE_SKILL);
    // Same display width, and the columns after the wide skill start at the same cell.
    expect(stringWidth(wide ?? '')).toBe(stringWidth(plain ?? ''));
    for (const col of [' aap ', ' cliAAAAA ']) expect(cellIndex(wide ?? '', col)).toBe(cellIndex(plain ?? '', col));
    ui.close();
  });

  it('cuts a wide value at a character boundary when its column is narrow', async () => {
    // 66 columns: every column up to `att` at its minimum, one spare cell for the skill (11 < 12).
    const ui = renderApp(s, { columns: 66, rows: 30 });
    await settle();
    await ui.press('/', 'code:VEHICLE_NOT_FOUND', KEY.enter);
    const lines = ui.frame().split('\n');
    const wide = lines.find((l) => l.includes('在庫')) ?? '';
    const plain = lines.find((l) => l.includes('inventory')) ?? '';
    expect(wide).toContain('…');
    expect(stringWidth(wide)).toBe(stringWidth(plain));
    expect(cellIndex(wide, ' aap ')).toBe(cellIndex(plain, ' aap '));
    ui.close();
  });
});
