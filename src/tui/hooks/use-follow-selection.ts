import { useEffect, useRef } from 'react';
import type { ErrorPage } from '../types.js';

/**
 * Keeps the selected error under the cursor when a refresh brings newer rows in on top (the
 * list shifts down), by moving the cursor and the first shown row by the shift; unless the
 * cursor is on the first row, which follows the newest, as `tail -f` does. A move by the
 * operator (the cursor changed) is left alone. Active only while `active` (the Errors view).
 */
export function useFollowSelection(page: ErrorPage, cursor: number, top: number, active: boolean, set: (at: { cursor: number; top: number }) => void): void {
  const follow = useRef<{ id: string | undefined; cursor: number; page: ErrorPage | null }>({ id: undefined, cursor: 0, page: null });
  useEffect(() => {
    const f = follow.current;
    const here = page.rows[cursor - page.offset]?.error_id;
    if (active && page !== f.page && cursor === f.cursor && cursor > 0 && f.id && here !== f.id) {
      const j = page.rows.findIndex((r) => r.error_id === f.id);
      if (j >= 0) {
        const delta = page.offset + j - cursor;
        set({ cursor: cursor + delta, top: top + delta });
      }
    }
    // After an operator's move the page for the new cursor may still be loading (reads are
    // async): the row under the cursor is unknown then, and nothing is followed until it is.
    follow.current = { id: cursor !== f.cursor ? here : (here ?? f.id), cursor, page };
  }, [page, cursor, top, active, set]);
}

/**
 * Keeps the first shown row and the cursor inside the rows that exist when the row set changes
 * under them (`:until`, `:since`, a refresh after a prune): the page's own offset becomes the
 * first shown row, and a cursor past the last row, or off the page, moves onto it. Without this
 * the list went blank (`rows 1338–1337 of 582`) until a key was pressed.
 */
export function useClampSelection(page: ErrorPage, cursor: number, top: number, active: boolean, set: (at: { cursor: number; top: number }) => void): void {
  useEffect(() => {
    if (!active) return;
    const next = clampedSelection(page, cursor);
    // Only a page that is not where `top` asked (it was re-read at the end) or a cursor off it;
    // otherwise leave both to the operator and to useFollowSelection.
    if (next.top !== top || next.cursor !== cursor) set(next);
  }, [page, cursor, top, active, set]);
}

/**
 * Where the cursor and the first shown row belong on `page` (pure): top is the page's offset,
 * the cursor stays if it is on a row of the page, else it goes to the nearest row of the page.
 */
export function clampedSelection(page: ErrorPage, cursor: number): { top: number; cursor: number } {
  if (page.total <= 0 || page.rows.length === 0) return { top: 0, cursor: 0 };
  const first = page.offset;
  const last = page.offset + page.rows.length - 1;
  return { top: first, cursor: Math.max(first, Math.min(cursor, last)) };
}
