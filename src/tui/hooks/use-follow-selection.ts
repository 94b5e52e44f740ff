import { type Dispatch, type SetStateAction, useEffect, useRef } from 'react';
import type { ErrorPage } from '../types.js';

/**
 * Keeps the selected error under the cursor when a refresh brings newer rows in on top (the
 * list shifts down), by moving the cursor and the first shown row by the shift; unless the
 * cursor is on the first row, which follows the newest, as `tail -f` does. A move by the
 * operator (the cursor changed) is left alone. Active only while `active` (the Errors view).
 */
export function useFollowSelection(
  page: ErrorPage,
  cursor: number,
  active: boolean,
  setCursor: Dispatch<SetStateAction<number>>,
  setTop: Dispatch<SetStateAction<number>>,
): void {
  const follow = useRef<{ id: string | undefined; cursor: number; page: ErrorPage | null }>({ id: undefined, cursor: 0, page: null });
  useEffect(() => {
    const f = follow.current;
    const here = page.rows[cursor - page.offset]?.error_id;
    if (active && page !== f.page && cursor === f.cursor && cursor > 0 && f.id && here !== f.id) {
      const j = page.rows.findIndex((r) => r.error_id === f.id);
      if (j >= 0) {
        const delta = page.offset + j - cursor;
        setCursor(cursor + delta);
        setTop((t) => t + delta);
      }
    }
    // After an operator's move the page for the new cursor may still be loading (reads are
    // async): the row under the cursor is unknown then, and nothing is followed until it is.
    follow.current = { id: cursor !== f.cursor ? here : (here ?? f.id), cursor, page };
  }, [page, cursor, active, setCursor, setTop]);
}
