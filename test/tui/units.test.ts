import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Key } from 'ink';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { runCommandLine } from '../../src/tui/commands.js';
import { traceLink, traceUrlProblem } from '../../src/triage/trace-link.js';
import { deleteWordBefore } from '../../src/tui/App.js';
import { clampedSelection } from '../../src/tui/hooks/use-follow-selection.js';
import { splitChunk } from '../../src/tui/hooks/use-keys.js';
import { interactiveProblem, isCi } from '../../src/tui/interactive.js';
import { ISSUE_SORT_KEYS, keyToCommand, SORT_KEYS, sortHint } from '../../src/tui/keys.js';
import { cells, fit, truncate, truncateStart, wrapCells } from '../../src/tui/utils/cells.js';
import { histogramGrid, mergeBuckets, sparkline } from '../../src/tui/utils/charts.js';
import { clipboardEscape, copyMessage, copyText } from '../../src/tui/utils/clipboard.js';
import { allocateWidths, visibleSlice } from '../../src/tui/utils/layout.js';
import { writeDraft } from '../../src/tui/utils/write-draft.js';

const key = (over: Partial<Key> = {}): Key => ({ ...splitChunk('x')[0]![1], ...over });

describe('display cells', () => {
  it('measures CJK and emoji as two cells', () => {
    expect(cells('在庫')).toBe(4);
    expect(cells('🚗')).toBe(2);
    expect(cells('abc')).toBe(3);
  });

  it('fits text to an exact width, cutting whole graphemes and marking the cut', () => {
    expect(fit('abc', 5)).toBe('abc  ');
    expect(fit('abc', 5, 'right')).toBe('  abc');
    expect(fit('在庫.🚗search', 6)).toBe('在庫.…');
    expect(fit('在庫.🚗search', 7)).toBe('在庫.… ');
    expect(stringWidth(fit('在庫.🚗search', 6))).toBe(6);
    expect(fit('👨‍👩‍👧 family', 3)).toBe('👨‍👩‍👧…');
    expect(truncate('abcdef', 1)).toBe('…');
    expect(truncateStart('err_0123456789', 6)).toBe('…56789');
  });

  it('wraps at spaces and hard-breaks long words without splitting wide characters', () => {
    expect(wrapCells('one two three', 7)).toEqual(['one two', 'three']);
    expect(wrapCells('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapCells('在庫在庫在', 4)).toEqual(['在庫', '在庫', '在']);
    expect(wrapCells('', 10)).toEqual(['']);
  });
});

describe('layout', () => {
  it('gives every column its minimum, then the spare cells in column order up to each maximum', () => {
    expect(allocateWidths([{ min: 4 }, { min: 3, max: 10 }, { min: 2, max: 5 }], 20)).toEqual([4, 10, 4]);
    expect(allocateWidths([{ min: 4 }, { min: 3, max: 10 }, { min: 2, max: 5 }], 30)).toEqual([4, 10, 5]);
  });

  it('hides trailing columns whole when even the minimums do not fit, never cutting one below its minimum', () => {
    expect(allocateWidths([{ min: 4 }, { min: 4 }, { min: 4 }], 10)).toEqual([4, 4, 0]);
    expect(allocateWidths([{ min: 4 }, { min: 4, max: 6 }, { min: 4 }], 12)).toEqual([4, 6, 0]);
  });

  it('clamps the selection into the rows of the page that exists', () => {
    const page = (offset: number, n: number, total: number) => ({ rows: Array.from({ length: n }, () => ({}) as never), offset, total });
    expect(clampedSelection(page(562, 20, 582), 1337)).toEqual({ top: 562, cursor: 581 });
    expect(clampedSelection(page(0, 20, 582), 5)).toEqual({ top: 0, cursor: 5 });
    expect(clampedSelection(page(0, 0, 0), 9)).toEqual({ top: 0, cursor: 0 });
  });

  it('scrolls the visible slice so the cursor stays on screen', () => {
    expect(visibleSlice(100, 0, 10, 0)).toEqual({ top: 0, end: 10 });
    expect(visibleSlice(100, 10, 10, 0)).toEqual({ top: 1, end: 11 });
    expect(visibleSlice(100, 3, 10, 5)).toEqual({ top: 3, end: 13 });
    expect(visibleSlice(5, 4, 10, 0)).toEqual({ top: 0, end: 5 });
  });
});

describe('charts', () => {
  const b = (terminal: number, retryable: number, unknown = 0) => ({ start: 0, terminal, retryable, unknown });

  it('merges minutes into columns by summing, so counts stay honest', () => {
    const merged = mergeBuckets([b(1, 0), b(2, 1), b(0, 4), b(3, 0), b(1, 1)], 3);
    expect(merged.map((m) => [m.terminal, m.retryable])).toEqual([
      [3, 1],
      [3, 4],
      [1, 1],
    ]);
  });

  it('stacks terminal under retryable, scaled to the tallest column, never hiding a non-zero part', () => {
    const { grid, max } = histogramGrid([b(4, 4), b(0, 2), b(1, 0), b(0, 0)], 4);
    expect(max).toBe(8);
    expect(grid.map((row) => row[0])).toEqual(['retryable', 'retryable', 'terminal', 'terminal']);
    expect(grid.map((row) => row[1])).toEqual(['empty', 'empty', 'empty', 'retryable']);
    expect(grid.map((row) => row[2])).toEqual(['empty', 'empty', 'empty', 'terminal']);
    expect(grid.every((row) => row[3] === 'empty')).toBe(true);
  });

  it('draws a sparkline of peaks, a space for zero', () => {
    expect(sparkline([0, 1, 2, 4, 8], 10)).toBe(' ▁▂▄█');
    expect(sparkline([1, 8, 1, 1], 2)).toBe('█▁');
    expect(sparkline([], 5)).toBe('');
  });
});

describe('keys', () => {
  it('maps the documented keys to commands', () => {
    expect(keyToCommand('?', key())).toBe('help');
    expect(keyToCommand('/', key())).toBe('filter');
    expect(keyToCommand(':', key())).toBe('command');
    expect(keyToCommand('', key({ escape: true }))).toBe('back');
    expect(keyToCommand('q', key())).toBe('quit');
    expect(keyToCommand('j', key())).toBe('down');
    expect(keyToCommand('', key({ upArrow: true }))).toBe('up');
    expect(keyToCommand('G', key({ shift: true }))).toBe('last');
    expect(keyToCommand('', key({ pageDown: true }))).toBe('pageDown');
    expect(keyToCommand('', key({ return: true }))).toBe('open');
    expect(keyToCommand('', key({ tab: true }))).toBe('nextView');
    expect(keyToCommand(' ', key())).toBe('mark');
    expect(keyToCommand('d', key())).toBe('draft');
    expect(keyToCommand('w', key())).toBe('write');
    expect(keyToCommand('r', key())).toBe('refresh');
    expect(keyToCommand('e', key())).toBe('nextTerminal');
    expect(keyToCommand('E', key({ shift: true }))).toBe('prevTerminal');
    expect(keyToCommand('y', key())).toBe('copyErrorId');
    expect(keyToCommand('x', key())).toBeNull();
    expect(keyToCommand('q', key({ ctrl: true }))).toBeNull();
  });

  it('turns control characters inside a chunk into Ctrl+letter keys, never text', () => {
    expect(splitChunk('ab\u0015cd\u0017').map(([i, k]) => [i, k.ctrl])).toEqual([
      ['a', false],
      ['b', false],
      ['u', true],
      ['c', false],
      ['d', false],
      ['w', true],
    ]);
    expect(splitChunk('\u0003')[0]).toEqual(['c', expect.objectContaining({ ctrl: true })]);
    expect(splitChunk('x\u001cy').map(([i]) => i)).toEqual(['x', '', 'y']);
    expect(deleteWordBefore('code:A skill:lead.submit  ')).toBe('code:A ');
    expect(deleteWordBefore('code:A')).toBe('');
  });

  it('maps the sort keys of both lists and spells them as accelerators', () => {
    for (const k of ['T', 'C', 'R', 'S', 'P', 'L', 'A', 'N', 'F']) expect(keyToCommand(k, key({ shift: true }))).toBe('sort');
    expect(sortHint(SORT_KEYS)).toBe('Time Code Retry Skill Proto cLient Att');
    expect(sortHint(ISSUE_SORT_KEYS)).toBe('couNt First Last');
  });

  it('splits keys that arrived together into single keys', () => {
    expect(splitChunk('j\r').map(([i, k]) => [i, k.return])).toEqual([
      ['j', false],
      ['', true],
    ]);
    expect(splitChunk('a\tB').map(([i, k]) => [i, k.tab, k.shift])).toEqual([
      ['a', false, false],
      ['', true, false],
      ['B', false, true],
    ]);
  });
});

describe(': commands', () => {
  const source = { checkQuery: (q: string) => (/^since:(\d+[mhd]|\d{4}-)/.test(q) || /^until:/.test(q) ? null : `bad query token '${q}'`) };

  it('switches views, sets the window and the format, writes and quits', () => {
    expect(runCommandLine(':storms', source)).toEqual({ kind: 'view', view: 'storms' });
    expect(runCommandLine('errors', source)).toEqual({ kind: 'view', view: 'errors' });
    expect(runCommandLine(':since 1h', source)).toEqual({ kind: 'window', window: { since: '1h' } });
    expect(runCommandLine(':until now', source)).toEqual({ kind: 'until', until: undefined });
    expect(runCommandLine(':format markdown', source)).toEqual({ kind: 'format', format: 'md' });
    expect(runCommandLine(':w out/x.eml', source)).toEqual({ kind: 'write', path: 'out/x.eml' });
    expect(runCommandLine(':q', source)).toEqual({ kind: 'quit' });
  });

  it('names what is wrong with a bad command or argument', () => {
    expect(runCommandLine(':since', source)).toMatchObject({ kind: 'error', message: expect.stringContaining('needs a duration') });
    expect(runCommandLine(':since soon', source)).toMatchObject({ kind: 'error', message: "bad query token 'since:soon'" });
    expect(runCommandLine(':format pdf', source)).toMatchObject({ kind: 'error' });
    expect(runCommandLine(':launch', source)).toMatchObject({ kind: 'error', message: expect.stringContaining('unknown command :launch') });
  });
});

describe('interactive terminal check', () => {
  it('treats CI like ink does: set and not 0/false', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '' })).toBe(true);
    expect(isCi({ CI: '0' })).toBe(false);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CONTINUOUS_INTEGRATION: '1' })).toBe(true);
    expect(isCi({})).toBe(false);
  });

  it('needs both ends to be a terminal', () => {
    expect(interactiveProblem({ isTTY: true }, { isTTY: true }, {})).toBeNull();
    expect(interactiveProblem({}, { isTTY: true }, {})).toBe('stdin is not a terminal');
    expect(interactiveProblem({ isTTY: true }, {}, {})).toBe('stdout is not a terminal');
    expect(interactiveProblem({ isTTY: true }, { isTTY: true }, { CI: 'true' })).toBe('CI is set');
  });
});

describe('clipboard and files', () => {
  it('says sent (not copied) for OSC 52, copied only when a tool confirmed it, and why when neither worked', () => {
    const written: string[] = [];
    const tty = { isTTY: true, write: (c: string) => written.push(c) };
    expect(copyText('err_1', { stdout: tty, env: {}, platform: 'linux' })).toEqual({ kind: 'sent' });
    expect(written).toEqual(['\u001b]52;c;ZXJyXzE=\u0007']);
    const none = copyText('err_1', { stdout: { write: () => true }, env: {}, platform: 'linux' });
    expect(none).toEqual({ kind: 'failed', reason: 'no terminal for OSC 52 and no clipboard tool (pbcopy, wl-copy, xclip, xsel)' });
    expect(copyMessage('error_id', 'err_1', { kind: 'sent' }).text).toBe('sent to terminal clipboard (OSC 52): err_1');
    expect(copyMessage('error_id', 'err_1', { kind: 'copied', via: 'xclip' })).toEqual({ text: 'copied error_id (xclip): err_1', kind: 'ok' });
    expect(copyMessage('error_id', 'err_1', none).kind).toBe('problem');
  });

  it('fills the trace-link template and refuses one without {trace_id} or not http(s)', () => {
    expect(traceLink('https://tempo.example.com/trace/{trace_id}', 'ab12')).toBe('https://tempo.example.com/trace/ab12');
    expect(traceLink('https://t.example.com/{trace_id}?q={trace_id}', 'a b')).toBe('https://t.example.com/a%20b?q=a%20b');
    expect(traceLink(null, 'ab12')).toBeNull();
    expect(traceLink('https://tempo.example.com/trace/{trace_id}', null)).toBeNull();
    expect(traceUrlProblem('https://tempo.example.com/trace/{trace_id}')).toBeNull();
    expect(traceUrlProblem('https://tempo.example.com/trace/')).toMatch(/must contain \{trace_id\}/);
    expect(traceUrlProblem('javascript:alert({trace_id})')).toMatch(/http\(s\)/);
    expect(traceUrlProblem('not a url {trace_id}')).toMatch(/http\(s\) URL/);
  });

  it('builds the OSC 52 escape with the base64 of the value', () => {
    expect(clipboardEscape('err_1')).toBe('\u001b]52;c;ZXJyXzE=\u0007');
  });

  it('writes a draft once under a made-up name, mode 0600, and refuses to overwrite it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aap-tui-draft-'));
    try {
      const now = Date.UTC(2026, 10, 30, 2, 3, 4);
      const file = writeDraft('Subject: x', 'md', { dir, stem: 'storm-1/2', now });
      expect(file).toBe(join(dir, 'incident-storm-1-2-20261130T020304Z.md'));
      expect(readFileSync(file, 'utf8')).toBe('Subject: x\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(() => writeDraft('again', 'md', { dir, stem: 'storm-1/2', now })).toThrow(/EEXIST/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never overwrites an explicit path and never follows a symlink there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aap-tui-draft-'));
    try {
      const now = Date.UTC(2026, 10, 30, 2, 3, 4);
      writeFileSync(join(dir, 'kept.md'), 'operator notes\n');
      expect(() => writeDraft('draft', 'md', { dir, path: 'kept.md', stem: 's', now })).toThrow(/EEXIST/);
      expect(readFileSync(join(dir, 'kept.md'), 'utf8')).toBe('operator notes\n');
      const victim = join(dir, 'victim.txt');
      writeFileSync(victim, 'not yours\n');
      symlinkSync(victim, join(dir, 'link.md'));
      expect(() => writeDraft('draft', 'md', { dir, path: join(dir, 'link.md'), stem: 's', now })).toThrow(/EEXIST/);
      symlinkSync(join(dir, 'nowhere.txt'), join(dir, 'dangling.md'));
      expect(() => writeDraft('draft', 'md', { dir, path: 'dangling.md', stem: 's', now })).toThrow(/EEXIST/);
      expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
      expect(() => statSync(join(dir, 'nowhere.txt'))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
