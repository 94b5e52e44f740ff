/** The bounded maps of the instrumentation's in-flight registries and the retry tracker. */
import { describe, expect, it } from 'vitest';
import { dropOldest, setBounded } from '../../src/instrument/bounded-map.js';

describe('bounded maps', () => {
  it('drops the oldest entry when a set would pass the bound', () => {
    const m = new Map<string, number>();
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) setBounded(m, k, i, 3);
    expect([...m.keys()]).toEqual(['b', 'c', 'd']);
    setBounded(m, 'c', 9, 3); // an existing key is updated in place: nothing is dropped
    expect([...m.entries()]).toEqual([['b', 1], ['c', 9], ['d', 3]]);
  });

  it('drops the n oldest entries, or all of them when it holds fewer', () => {
    const m = new Map([1, 2, 3, 4, 5].map((n) => [n, n] as const));
    dropOldest(m, 2);
    expect([...m.keys()]).toEqual([3, 4, 5]);
    dropOldest(m, 10);
    expect(m.size).toBe(0);
  });
});
