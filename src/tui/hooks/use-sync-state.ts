import { useCallback, useRef, useState } from 'react';

/**
 * `useState` plus a ref that holds the newest value at once, before React renders it. Key
 * handlers read the ref, so a key that arrives before the previous key's render has committed
 * (a paste, tmux send-keys, a loaded machine) still sees what the previous key typed.
 *
 * @example const [input, setInput, inputRef] = useSyncState('');
 */
export function useSyncState<T>(initial: T): [T, (next: T | ((prev: T) => T)) => void, { readonly current: T }] {
  const [value, setValue] = useState(initial);
  const ref = useRef(initial);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    ref.current = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next;
    setValue(ref.current);
  }, []);
  return [value, set, ref];
}
