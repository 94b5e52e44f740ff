import { useCallback, useEffect, useState } from 'react';

/** State of the refresh clock. */
export interface Refresh {
  /** Increments on every refresh; a dependency for data that must be re-read. */
  readonly tick: number;
  /** Epoch milliseconds of the last refresh: the "now" windows are resolved against. */
  readonly at: number;
  /** Refresh immediately (the `r` key). */
  readonly now: () => void;
}

/**
 * A refresh clock ticking every `intervalMs` milliseconds (0 disables the timer; `now()` still
 * works). Data hooks recompute on each tick; when the result is unchanged ink writes nothing,
 * so a live view does not flicker. `startAt` is the first `at` (default `clock()`): the time the
 * first data was read for, when it was read before the first frame.
 */
export function useRefresh(intervalMs: number, clock: () => number = Date.now, startAt?: number): Refresh {
  const [state, setState] = useState(() => ({ tick: 0, at: startAt ?? clock() }));
  const now = useCallback(() => setState((s) => ({ tick: s.tick + 1, at: clock() })), [clock]);
  useEffect(() => {
    if (intervalMs <= 0) return;
    const timer = setInterval(now, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, now]);
  return { tick: state.tick, at: state.at, now };
}
