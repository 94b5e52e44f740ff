/**
 * The memory of recent error_ids (issue 15: a reused id gives two rows and a flag): bounded,
 * oldest forgotten first, also after the ring has wrapped many times.
 */
import { describe, expect, it } from 'vitest';
import { ErrorIdMemory } from '../../src/instrument/exchange/error-id-memory.js';

const id = (n: number): string => `err_${n.toString(16).padStart(32, '0')}`;

describe('ErrorIdMemory', () => {
  it('knows an id it holds and forgets the oldest beyond its bound', () => {
    const m = new ErrorIdMemory(3);
    expect([1, 2, 3].map((n) => m.seen(id(n)))).toEqual([false, false, false]);
    expect(m.seen(id(2))).toBe(true);
    expect(m.seen(id(4))).toBe(false); // forgets 1
    expect(m.seen(id(1))).toBe(false); // forgets 2
    expect(m.seen(id(3))).toBe(true);
    expect(m.seen(id(2))).toBe(false);
  });

  it('holds exactly the last `max` new ids after wrapping many times', () => {
    const max = 1_000;
    const m = new ErrorIdMemory(max);
    for (let n = 0; n < 25_500; n++) m.seen(id(n));
    // The last 1 000 are held (seen again: true), the one before them is not.
    expect(m.seen(id(25_499))).toBe(true);
    expect(m.seen(id(24_500))).toBe(true);
    expect(m.seen(id(24_499))).toBe(false);
  });
});
