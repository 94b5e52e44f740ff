/**
 * The keymap is the one list of keys (issue 27): key handling, hint lines, the `?` screen and
 * docs/tui.md's key table all come from it, so none of them can drift from the others.
 */
import { readFileSync } from 'node:fs';
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { runCommandLine } from '../../src/tui/commands.js';
import { splitChunk } from '../../src/tui/hooks/use-keys.js';
import { helpLines, hintsFor, KEYMAP, keyTableMarkdown, keyToCommand, rowFor } from '../../src/tui/keys.js';
import { TAB_VIEWS, VIEW_NAMES } from '../../src/tui/registry.js';

const plain = splitChunk('x')[0]![1];
/** The ink key event of a key named as the keymap names it (built here, not by the keymap). */
function event(name: string): [string, Key] {
  const special: Record<string, Partial<Key>> = {
    Esc: { escape: true },
    Enter: { return: true },
    Tab: { tab: true },
    '↓': { downArrow: true },
    '↑': { upArrow: true },
    PgDn: { pageDown: true },
    PgUp: { pageUp: true },
    Home: { home: true },
    End: { end: true },
  };
  if (special[name]) return ['', { ...plain, ...special[name] }];
  if (name === 'space') return [' ', plain];
  if (name.startsWith('Ctrl+')) return [name.slice(5).toLowerCase(), { ...plain, ctrl: true }];
  return [name, { ...plain, shift: /[A-Z]/.test(name) }];
}

describe('keymap', () => {
  it('docs/tui.md lists exactly the keymap (regenerate the table between the keymap markers from this test’s expected value)', () => {
    const doc = readFileSync(new URL('../../docs/tui.md', import.meta.url), 'utf8');
    const table = /<!-- keymap:begin[^\n]*-->\n([\s\S]*?)\n<!-- keymap:end -->/.exec(doc)?.[1];
    expect(table).toBe(keyTableMarkdown());
  });

  it('handles every key it lists, with the row’s command, including Ctrl+F, Ctrl+B, Home and End', () => {
    for (const row of KEYMAP) for (const k of [...row.keys, ...(row.also ?? [])]) expect(keyToCommand(...event(k)), k).toBe(row.command);
    expect(keyToCommand(...event('Ctrl+F'))).toBe('pageDown');
    expect(keyToCommand(...event('Ctrl+B'))).toBe('pageUp');
    expect(keyToCommand(...event('Home'))).toBe('first');
    expect(keyToCommand(...event('End'))).toBe('last');
  });

  it('binds no key twice on one view', () => {
    for (const view of VIEW_NAMES) {
      const keys = KEYMAP.filter((r) => r.views.includes(view)).flatMap((r) => [...r.keys, ...(r.also ?? [])]);
      expect(new Set(keys).size, view).toBe(keys.length);
    }
  });

  it('shows every key on the ? screen in at most 16 lines (with the 4 legend lines: the body of 80 × 24)', () => {
    const lines = helpLines();
    expect(lines.length).toBeLessThanOrEqual(16);
    const shown = lines.flatMap(([keys]) => keys.split(' '));
    for (const row of KEYMAP) for (const k of [...row.keys, ...(row.also ?? [])]) expect(shown).toContain(k);
    expect(lines.every(([, text]) => text.length > 0)).toBe(true);
  });

  it('hints, on each view, keys that act there, q quit last', () => {
    for (const view of VIEW_NAMES) {
      if (view === 'help') continue;
      const hints = hintsFor(view);
      expect(hints[hints.length - 1], view).toEqual(['q', 'quit']);
      for (const [keys] of hints) {
        const first = keys.length === 1 || keys.startsWith(':') ? (keys[0] ?? '') : (keys.split('/')[0] ?? '');
        const command = keyToCommand(...event(first));
        expect(command, `${view} ${keys}`).not.toBeNull();
        expect(rowFor(command!, view), `${view} ${keys}`).toBeDefined();
      }
    }
  });

  it('keeps the hint lines of the views as they were before the keymap', () => {
    expect(hintsFor('errors')).toEqual([
      ['?', 'help'],
      ['/', 'filter'],
      ['Enter', 'detail'],
      ['space', 'mark'],
      ['d', 'draft'],
      ['e/E', 'next/prev terminal'],
      ['Tab', 'storms'],
      [':', 'command'],
      ['y/Y', 'copy id'],
      ['q', 'quit'],
    ]);
    expect(hintsFor('issues')).toEqual([
      ['Enter', 'its errors'],
      ['/', 'filter'],
      ['N/F/L', 'sort'],
      ['d', 'draft'],
      ['Tab', 'errors'],
      ['?', 'help'],
      ['q', 'quit'],
    ]);
    expect(hintsFor('detail')).toEqual([
      ['Esc', 'back'],
      ['y', 'copy error_id'],
      ['Y', 'copy trace_id'],
      ['d', 'draft'],
      ['j/k', 'scroll'],
      ['q', 'quit'],
    ]);
    expect(hintsFor('storms')).toEqual([
      ['Enter', 'its errors'],
      ['d', 'draft'],
      ['j/k', 'move'],
      ['Tab', 'draft view'],
      [':since', '24h'],
      ['?', 'help'],
      ['q', 'quit'],
    ]);
    expect(hintsFor('draft')).toEqual([
      ['w', 'write file'],
      ['f', 'format'],
      ['j/k', 'scroll'],
      ['Esc', 'back'],
      ['?', 'help'],
      ['q', 'quit'],
    ]);
    // On the help any key only closes it (issue 28), q too: no `q quit` there.
    expect(hintsFor('help')).toEqual([['any key', 'close']]);
  });
});

describe('view registry', () => {
  it('makes the tabs, in Tab order, and a : command of each tab view', () => {
    expect(TAB_VIEWS).toEqual(['issues', 'errors', 'storms', 'draft']);
    const source = { checkQuery: () => null };
    for (const view of TAB_VIEWS) expect(runCommandLine(`:${view}`, source)).toEqual({ kind: 'view', view });
    expect(runCommandLine(':detail', source)).toMatchObject({ kind: 'error' });
    expect(helpLines().find(([k]) => k === ':')?.[1]).toContain(':issues :errors :storms :draft ');
  });
});
