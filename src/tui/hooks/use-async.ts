import { useEffect, useRef, useState, type DependencyList } from 'react';

/**
 * The value `load` resolves to, loaded again whenever `deps` change. Until the first answer it
 * is `initial`; while a newer load runs, the previous answer stays on screen (a live view does
 * not blank between refreshes). An answer that arrives after a newer load started is dropped.
 * `load` handles its own errors (resolve to a value that says what went wrong); a rejection
 * keeps the previous value. With `initialIsAnswer`, `initial` is already the answer for the
 * first `deps` (read before the first frame): the first load is skipped.
 *
 * @example const storms = useAsync(() => source.storms(window), [source, window], []);
 */
export function useAsync<T>(load: () => Promise<T>, deps: DependencyList, initial: T, initialIsAnswer = false): T {
  const [value, setValue] = useState<T>(initial);
  const skipFirst = useRef(initialIsAnswer);
  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    let live = true;
    load().then(
      (next) => {
        if (live) setValue(() => next);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // The caller's deps decide when to reload, as with useMemo.
  }, deps);
  return value;
}
