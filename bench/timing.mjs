// The query benchmarks' one timing helper (bench/triage-queries.bench.mjs, bench/pg-store.bench.mjs).

/** Median of a non-empty list of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A duration in ms as "1.23 ms", "45.6 ms" or "1.23 s". */
export const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);

/** Runs `fn(i)` `n` times in a row; wall times in ms: median, min, max, and the last result. */
export async function time(fn, n) {
  const out = [];
  let last;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    last = await fn(i);
    out.push(performance.now() - t);
  }
  return { median: median(out), min: Math.min(...out), max: Math.max(...out), n, last };
}
