/**
 * The demo's progress bar (src/demo/progress.ts): redrawn in place with `\r` on a terminal,
 * silent on anything else so pipes and CI logs get no control characters.
 */
import { describe, expect, it } from 'vitest';
import { createProgressBar } from '../../src/demo/progress.js';

/** A stream that records every chunk; `isTTY` and `columns` as a terminal (or not) reports them. */
function fakeStream(isTTY: boolean, columns = 80): { chunks: string[]; write(chunk: string): boolean; isTTY: boolean; columns: number } {
  const chunks: string[] = [];
  return { chunks, isTTY, columns, write: (chunk: string) => (chunks.push(chunk), true) };
}

describe('createProgressBar', () => {
  it('draws one \\r-led frame per update on a terminal, with the bar filled to the fraction and the percentage', () => {
    const tty = fakeStream(true, 80);
    const bar = createProgressBar(tty, 'traffic');
    bar.update(0, 'starting');
    bar.update(0.5, '10 calls');
    bar.update(1, '20 calls');
    expect(tty.chunks).toHaveLength(3);
    for (const frame of tty.chunks) expect(frame.startsWith('\r')).toBe(true);
    // 80 columns: the bar gets what label, status, brackets, percentage and spacing leave (80 − 7 − 8 − 12 = 53).
    const width = 80 - 'traffic'.length - '10 calls'.length - 12;
    expect(tty.chunks[1]).toBe(`\rtraffic [${'#'.repeat(Math.round(width / 2))}${'-'.repeat(width - Math.round(width / 2))}]  50% 10 calls\x1b[K`);
    // 'starting' and '20 calls' are 8 characters as well, so the same width.
    expect(tty.chunks[0]).toBe(`\rtraffic [${'-'.repeat(width)}]   0% starting\x1b[K`);
    expect(tty.chunks[2]).toBe(`\rtraffic [${'#'.repeat(width)}] 100% 20 calls\x1b[K`);
  });

  it('ends the line once on done and draws nothing after it', () => {
    const tty = fakeStream(true);
    const bar = createProgressBar(tty, 'traffic');
    bar.update(0.25, 'x');
    bar.done();
    bar.done();
    bar.update(0.75, 'y');
    expect(tty.chunks.slice(1)).toEqual(['\n']);
  });

  it('writes nothing at all on a stream that is not a terminal', () => {
    const pipe = fakeStream(false);
    const bar = createProgressBar(pipe, 'traffic');
    bar.update(0.5, '10 calls');
    bar.update(1, '20 calls');
    bar.done();
    expect(pipe.chunks).toEqual([]);
    const noFlag = { chunks: [] as string[], write(c: string) { this.chunks.push(c); return true; } };
    createProgressBar(noFlag, 'traffic').update(0.5, 'x');
    expect(noFlag.chunks).toEqual([]);
  });
});
