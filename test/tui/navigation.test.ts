/** The navigation reducer and the list cursor's moves, as plain values (issue 27). */
import { describe, expect, it } from 'vitest';
import { listMove } from '../../src/tui/hooks/use-list-cursor.js';
import { currentView, initialNav, navigate, type NavAction, type NavState } from '../../src/tui/navigation.js';

const start = (view: 'issues' | 'errors' | 'storms' = 'errors', query = '') => initialNav(view, query, { since: '1h' });
const run = (s: NavState, ...actions: NavAction[]) => actions.reduce(navigate, s);
const at = (cursor: number, top = 0) => ({ cursor, top });

describe('navigation reducer', () => {
  it('opens on the view asked for, with nothing chosen', () => {
    const s = start('issues', 'code:X');
    expect(currentView(s)).toBe('issues');
    expect(s).toMatchObject({ query: 'code:X', scope: null, marks: new Set(), draft: null, format: 'text', prompt: { mode: 'normal' } });
  });

  it('drills into an issue’s errors and comes back on Esc with the filter, window and scope it left', () => {
    const s0 = run(start('storms', 'skill:lead.submit'), { type: 'cursor', view: 'errors', at: at(7, 3) });
    const s1 = navigate(s0, { type: 'drill', query: 'client:cliB', window: { since: '2026-11-30T02:00:00Z', until: '2026-11-30T02:05:00Z' }, scope: 'storm st-1' });
    expect(currentView(s1)).toBe('errors');
    expect(s1).toMatchObject({ query: 'client:cliB', scope: 'storm st-1', window: { until: '2026-11-30T02:05:00Z' }, cursors: { errors: at(0) } });
    const s2 = navigate(s1, { type: 'back' });
    expect(currentView(s2)).toBe('storms');
    expect(s2).toMatchObject({ query: 'skill:lead.submit', window: { since: '1h' }, scope: null });
  });

  it('on Esc at the bottom of the stack: Errors from elsewhere, then clears the marks, then the filter', () => {
    const s0 = run(start('storms', 'code:X'), { type: 'mark', id: 'e1' });
    const s1 = navigate(s0, { type: 'back' });
    expect(currentView(s1)).toBe('errors');
    const s2 = navigate(s1, { type: 'back' });
    expect(s2.marks.size).toBe(0);
    expect(s2.message).toEqual({ text: 'marks cleared', kind: 'info' });
    const s3 = navigate(s2, { type: 'back' });
    expect(s3.query).toBe('');
    expect(navigate(s3, { type: 'back' })).toBe(s3);
  });

  it('toggles marks, and puts the lists it changes back at the top', () => {
    const s = run(start(), { type: 'mark', id: 'a' }, { type: 'mark', id: 'b' }, { type: 'mark', id: 'a' });
    expect([...s.marks]).toEqual(['b']);
    const moved = run(s, { type: 'cursor', view: 'errors', at: at(9, 4) }, { type: 'cursor', view: 'storms', at: at(2) }, { type: 'cursor', view: 'issues', at: at(5) });
    expect(navigate(moved, { type: 'filter', query: 'code:Y' }).cursors).toEqual({ errors: at(0), storms: at(2), issues: at(5) });
    expect(navigate(moved, { type: 'window', window: { since: '24h' } }).cursors).toEqual({ errors: at(0), storms: at(0), issues: at(5) });
    expect(navigate(moved, { type: 'window', window: { since: '1h', until: 'now' }, keepCursors: true }).cursors).toEqual(moved.cursors);
    expect(navigate(moved, { type: 'sortIssues', by: 'last_seen' })).toMatchObject({ issueSort: 'last_seen', cursors: { issues: at(0), errors: at(9, 4) } });
    expect(navigate(moved, { type: 'sortErrors', sort: { by: 'code', descending: false } })).toMatchObject({ cursors: { errors: at(0) } });
  });

  it('opens the detail scrolled to the top, and the help closes back to the view below', () => {
    const s = run(start(), { type: 'cursor', view: 'detail', at: at(12) }, { type: 'openDetail', id: 'err_1' });
    expect(currentView(s)).toBe('detail');
    expect(s).toMatchObject({ detailId: 'err_1', cursors: { detail: at(0) } });
    const help = navigate(s, { type: 'push', view: 'help' });
    expect(currentView(navigate(help, { type: 'closeHelp' }))).toBe('detail');
    expect(currentView(navigate(navigate(start(), { type: 'goTo', view: 'help' }), { type: 'closeHelp' }))).toBe('errors');
  });

  it('chooses a draft (pushed or alone), cycles the format text → md → eml, and records the file written', () => {
    const choice = { target: { kind: 'storm', id: 'storm-1' } as const, title: 'storm storm-1', stem: 'storm-1' };
    const pushed = navigate(start('storms'), { type: 'draft', choice, show: 'push' });
    expect(pushed.stack.map((e) => e.view)).toEqual(['storms', 'draft']);
    const alone = navigate(start('storms'), { type: 'draft', choice, show: 'goTo' });
    expect(alone.stack.map((e) => e.view)).toEqual(['draft']);
    const formats = [1, 2, 3].map((n) => run(alone, ...Array.from({ length: n }, (): NavAction => ({ type: 'format' }))).format);
    expect(formats).toEqual(['md', 'eml', 'text']);
    expect(navigate(alone, { type: 'format', format: 'eml' }).format).toBe('eml');
    expect(navigate(alone, { type: 'written', file: '/tmp/x.txt' })).toMatchObject({ written: '/tmp/x.txt', message: { text: 'wrote /tmp/x.txt', kind: 'ok' } });
    expect(navigate(navigate(alone, { type: 'written', file: '/x' }), { type: 'draft', choice }).written).toBeNull();
  });

  it('bumps the re-read counter on refresh and keeps the prompt’s fields apart', () => {
    expect(navigate(start(), { type: 'refresh' }).nonce).toBe(1);
    const typing = navigate(start(), { type: 'prompt', prompt: { mode: 'filter', input: 'code:', error: null } });
    expect(navigate(typing, { type: 'prompt', prompt: { error: 'bad token' } }).prompt).toEqual({ mode: 'filter', input: 'code:', error: 'bad token' });
  });
});

describe('list cursor moves', () => {
  it('moves by one, to the ends and by a page of rows - 1, never off the list', () => {
    expect(listMove('down', 0, 10, 4)).toBe(1);
    expect(listMove('up', 0, 10, 4)).toBe(0);
    expect(listMove('last', 3, 10, 4)).toBe(9);
    expect(listMove('first', 7, 10, 4)).toBe(0);
    expect(listMove('pageDown', 2, 10, 4)).toBe(5);
    expect(listMove('pageDown', 8, 10, 4)).toBe(9);
    expect(listMove('pageUp', 2, 10, 4)).toBe(0);
    expect(listMove('down', 0, 0, 4)).toBe(0);
    expect(listMove('pageDown', 0, 10, 1)).toBe(1);
  });
});
