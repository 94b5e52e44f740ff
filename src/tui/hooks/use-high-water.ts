import { useRef } from 'react';

/**
 * The largest `value` seen since `resetKey` last changed: a width that grows with what has been
 * shown and never shrinks while the same list is shown, so columns do not jump while scrolling.
 *
 * @example const codeWidth = useHighWater(widestCode(page.rows), `${query}|${window}`);
 */
export function useHighWater(value: number, resetKey: string): number {
  const state = useRef<{ key: string; max: number }>({ key: resetKey, max: value });
  if (state.current.key !== resetKey) state.current = { key: resetKey, max: value };
  else if (value > state.current.max) state.current = { key: resetKey, max: value };
  return state.current.max;
}
