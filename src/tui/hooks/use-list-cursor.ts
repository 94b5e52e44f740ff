import { useCallback } from 'react';
import type { Move } from '../keys.js';
import type { NavAction } from '../navigation.js';
import { type DataContext, type ListCursor, type ViewData, type ViewDef, type ViewName, VIEW_NAMES, VIEWS } from '../registry.js';
import type { ErrorPage } from '../types.js';
import { visibleSlice } from '../utils/layout.js';
import { clampedSelection, useClampSelection, useFollowSelection } from './use-follow-selection.js';

/**
 * Where `how` moves a cursor on a list of `count` entries showing `rows` at once: one entry,
 * the first or last, or a page (`rows - 1`, one row of context kept). Pure; inside the list.
 */
export function listMove(how: Move, cursor: number, count: number, rows: number): number {
  const page = Math.max(1, rows - 1);
  const last = Math.max(0, count - 1);
  const next = { down: cursor + 1, up: cursor - 1, first: 0, last, pageDown: cursor + page, pageUp: cursor - page }[how];
  return Math.max(0, Math.min(last, next));
}

/** One view's cursor as shown, and how to move it. */
export interface ListHandle {
  /** The cursor and first shown row, inside the list as it is now. */
  readonly at: ListCursor;
  /** Puts the cursor on entry `cursor` (clamped), scrolling as little as needed. */
  readonly moveTo: (cursor: number) => void;
  readonly move: (how: Move) => void;
}

const NO_LIST: ReturnType<NonNullable<ViewDef<unknown>['list']>> = { count: 0, rows: 1 };
const NO_PAGE: ErrorPage = { rows: [], total: 0, offset: 0 };

/**
 * The list cursor of one view (issue 27: the one implementation of list navigation, for the
 * Issues, Errors and Storms lists and the scrolled Detail and Draft): the cursor stays inside
 * the list, the shown slice follows it. A list read a page at a time (the Errors) keeps the
 * selected row under the cursor as newer rows arrive and moves onto the rows that exist when
 * the set shrinks (use-follow-selection.ts); its `top` is the state, since it decides which
 * page is read.
 */
export function useListCursor(view: ViewName, c: DataContext, data: unknown, dispatch: (a: NavAction) => void): ListHandle {
  const def = VIEWS[view] as ViewDef<unknown>;
  const list = def.list?.(data, c) ?? NO_LIST;
  const state = c.cursors[view] ?? { cursor: 0, top: 0 };
  const active = c.view === view;
  const set = useCallback((at: ListCursor) => dispatch({ type: 'cursor', view, at }), [dispatch, view]);
  const { page } = list;
  useFollowSelection(page ?? NO_PAGE, state.cursor, state.top, active && page !== undefined, set);
  // Only a page read for the rows now asked for: one still loading for an earlier `top` would pull the operator back.
  useClampSelection(page ?? NO_PAGE, state.cursor, state.top, active && page !== undefined && list.forTop === state.top, set);
  let at: ListCursor;
  if (page) {
    // The frame already shows the clamped cursor; the effect above makes it the state.
    at = { cursor: active ? clampedSelection(page, state.cursor).cursor : state.cursor, top: state.top };
  } else {
    // Clamped in the frame, so a shorter list after a refresh or a new filter is never blank.
    const cursor = Math.min(state.cursor, Math.max(0, list.count - 1));
    at = { cursor, top: visibleSlice(list.count, cursor, list.rows, state.top).top };
  }
  const moveTo = (cursor: number) => {
    const next = Math.max(0, Math.min(cursor, Math.max(0, list.count - 1)));
    set({ cursor: next, top: visibleSlice(list.count, next, list.rows, at.top).top });
  };
  return { at, moveTo, move: (how) => moveTo(listMove(how, at.cursor, list.count, list.rows)) };
}

/** {@link useListCursor} for every view of the registry (a constant: the hooks keep their order). */
export function useListCursors(c: DataContext, data: ViewData, dispatch: (a: NavAction) => void): Record<ViewName, ListHandle> {
  const handles: Partial<Record<ViewName, ListHandle>> = {};
  for (const view of VIEW_NAMES) handles[view] = useListCursor(view, c, data[view], dispatch);
  return handles as Record<ViewName, ListHandle>;
}
