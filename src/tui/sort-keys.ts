import type { ErrorSortKey, IssueSortKey } from './types.js';

/**
 * The sort keys of the Errors view, one per column (k9s style: Shift + a letter of the column);
 * pressing the key of the sorted column again reverses the order. The keymap (keys.ts), the
 * footer and the help list them from here.
 */
export const SORT_KEYS: Readonly<Record<string, { readonly by: ErrorSortKey; readonly column: string }>> = {
  T: { by: 'time', column: 'time' },
  C: { by: 'code', column: 'code' },
  R: { by: 'retryable', column: 'retry' },
  S: { by: 'skill', column: 'skill' },
  P: { by: 'protocol', column: 'proto' },
  L: { by: 'client', column: 'client' },
  A: { by: 'attempt', column: 'att' },
};

/**
 * The sort keys of the Issues view, one per sortable column (the orders `listIssues` offers):
 * most errors, most recently first seen, most recently seen first.
 */
export const ISSUE_SORT_KEYS: Readonly<Record<string, { readonly by: IssueSortKey; readonly column: string }>> = {
  N: { by: 'count', column: 'count' },
  F: { by: 'first_seen', column: 'first' },
  L: { by: 'last_seen', column: 'last' },
};

/**
 * A sort-key table as one short hint: each column name with its key letter in upper case and
 * the rest in lower case (`Time Code Retry Skill Proto cLient Att`), like a menu accelerator.
 */
export function sortHint(keys: Readonly<Record<string, { readonly column: string }>>): string {
  return Object.entries(keys)
    .map(([k, { column }]) => {
      const i = column.toLowerCase().indexOf(k.toLowerCase());
      return i < 0 ? `${k}:${column}` : column.slice(0, i).toLowerCase() + k + column.slice(i + 1).toLowerCase();
    })
    .join(' ');
}
