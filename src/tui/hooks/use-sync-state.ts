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

/**
 * `useReducer` with the same promise as {@link useSyncState}: the ref holds the state after
 * every action at once, so a key handled before the previous key's render sees its effect.
 * The dispatcher is stable.
 *
 * @example const [nav, dispatch, navRef] = useSyncReducer(navigate, () => initialNav('issues', '', { since: '1h' }));
 */
export function useSyncReducer<S, A>(reducer: (state: S, action: A) => S, init: () => S): [S, (action: A) => void, { readonly current: S }] {
  const [value, setValue] = useState(init);
  const ref = useRef(value);
  const dispatch = useCallback(
    (action: A) => {
      ref.current = reducer(ref.current, action);
      setValue(ref.current);
    },
    [reducer],
  );
  return [value, dispatch, ref];
}
