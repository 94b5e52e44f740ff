import { type Key, useInput } from 'ink';
import { useCallback, useEffect, useRef } from 'react';

const PLAIN: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Milliseconds after which a key that started no render counts as handled (a key that changes
 * nothing causes no render, so no commit would ever hand over the next one).
 */
const NO_COMMIT_MS = 200;
/** Times NO_COMMIT_MS a started render is waited for before the next key goes anyway (5 s). */
const MAX_WAITS = 25;

/** Whether `text` holds a C0 or C1 control character (or DEL): such a key is never text. */
const hasControl = (text: string): boolean => Array.from(text).some((c) => (c.codePointAt(0) ?? 0) < 0x20 || ((c.codePointAt(0) ?? 0) >= 0x7f && (c.codePointAt(0) ?? 0) < 0xa0));

const isPrintable = ([input, key]: [string, Key]): boolean =>
  input.length > 0 &&
  !hasControl(input) && !key.ctrl && !key.meta && !key.return && !key.tab && !key.backspace && !key.escape;

/**
 * The keys of a multi-character chunk without escape sequences (ink already cuts those out of a
 * chunk into events of their own), each as ink would have reported it alone: Enter, Tab and
 * Backspace by name, any other C0 control character as Ctrl+letter (`\x15` is Ctrl+U, `\x17`
 * Ctrl+W), so a control key that arrived with other keys never becomes text.
 */
export function splitChunk(input: string): [string, Key][] {
  return Array.from(input, (c): [string, Key] => {
    if (c === '\r' || c === '\n') return ['', { ...PLAIN, return: true }];
    if (c === '\t') return ['', { ...PLAIN, tab: true }];
    if (c === '\u007f' || c === '\b') return ['', { ...PLAIN, backspace: true }];
    const code = c.codePointAt(0) ?? 0;
    // Ctrl+A..Ctrl+Z are 0x01..0x1a; ink names them by their letter with ctrl set.
    if (code >= 0x01 && code <= 0x1a) return [String.fromCharCode(code + 0x60), { ...PLAIN, ctrl: true }];
    // Any other control character (NUL, 0x1c..0x1f, C1) is no key at all.
    if (code < 0x20 || (code >= 0x80 && code < 0xa0)) return ['', { ...PLAIN }];
    return [c, { ...PLAIN, shift: /[A-Z]/.test(c) }];
  });
}

/**
 * `useInput` with a handler that always sees the state left by the previous key.
 *
 * - ink re-subscribes its input listener in a passive effect, which React may run after the next
 *   key has already arrived; a fast typist, a paste or `tmux send-keys` would then hit a handler
 *   one keystroke stale. Here the listener is subscribed once and calls the handler of the last
 *   render through a ref.
 * - Keys that arrive in one read (`j` and Enter together) reach ink as one string. They are
 *   split and handed over one at a time, each after the commit of the state the previous one
 *   set (React renders ink's updates in a later task, not synchronously).
 *
 * - `isTyping()` true (a prompt is open): consecutive printable keys are handed over as one
 *   string, so a pasted filter costs one render, not one per character.
 *
 * @example useKeys((input, key) => { if (input === 'q') exit(); }, () => modeRef.current !== 'normal');
 */
export function useKeys(handler: (input: string, key: Key) => void, isTyping: () => boolean = () => false): void {
  const latest = useRef(handler);
  latest.current = handler;
  const isTypingRef = useRef(isTyping);
  isTypingRef.current = isTyping;
  // Renders started so far, and the number of this one: a commit proves the previous key's state
  // is in place only if its render started after that key was handed over (React may yield in
  // the middle of a render, and a render already under way when the key came does not hold it).
  const renders = useRef(0);
  const thisRender = ++renders.current;
  const queue = useRef<[string, Key][]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** The render count when the last key was handed over, or null when no key is in flight. */
  const handedAt = useRef<number | null>(null);
  const drain = useCallback(() => {
    clearTimeout(timer.current);
    handedAt.current = null;
    const next = queue.current.shift();
    if (!next) return;
    // While a prompt is open, a run of printable keys is handed over as one piece of text.
    if (isPrintable(next) && isTypingRef.current()) {
      while (queue.current[0] && isPrintable(queue.current[0])) next[0] += queue.current.shift()?.[0] ?? '';
    }
    handedAt.current = renders.current;
    latest.current(next[0], next[1]);
    let waits = 0;
    const arm = () => {
      timer.current = setTimeout(() => {
        if (handedAt.current === null) return;
        // No render since the key: it changed nothing, go on. A render under way: wait for its
        // commit, but not for ever (a render React threw away and never redid).
        if (renders.current === handedAt.current || ++waits >= MAX_WAITS) drain();
        else arm();
      }, NO_COMMIT_MS);
    };
    arm();
  }, []);
  // After a commit of a render that began after the last key was handed over, that key's state
  // is in place: hand over the next key.
  useEffect(() => {
    if (handedAt.current !== null && thisRender > handedAt.current) drain();
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  const stable = useCallback(
    (input: string, key: Key) => {
      // A chunk of several keys, or a lone control character ink did not name (ink reports
      // Ctrl+letter itself only when it arrives alone).
      const chunk = (input.length > 1 || hasControl(input)) && !key.ctrl && !key.meta && !input.includes('\u001b');
      const keys = chunk ? splitChunk(input) : [[input, key] as [string, Key]];
      queue.current.push(...keys);
      if (handedAt.current === null) drain();
    },
    [drain],
  );
  useInput(stable);
}
