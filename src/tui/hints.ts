import type { ViewName } from './App.js';

/**
 * The key hints of each view's bottom line, as `[key, what it does]` pairs, most used first
 * (the line is cut at the terminal's width). The full list is the help view's.
 */
export const HINTS: Readonly<Record<ViewName, readonly (readonly [string, string])[]>> = {
  issues: [
    ['Enter', 'its errors'],
    ['/', 'filter'],
    ['N/F/L', 'sort'],
    ['d', 'draft'],
    ['Tab', 'errors'],
    ['?', 'help'],
    ['q', 'quit'],
  ],
  errors: [
    ['?', 'help'],
    ['/', 'filter'],
    ['Enter', 'detail'],
    ['space', 'mark'],
    ['d', 'draft'],
    ['e/E', 'next/prev terminal'],
    ['Tab', 'storms'],
    [':', 'command'],
    ['y/Y', 'copy id'],
    ['q', 'quit'],
  ],
  detail: [
    ['Esc', 'back'],
    ['y', 'copy error_id'],
    ['Y', 'copy trace_id'],
    ['d', 'draft'],
    ['j/k', 'scroll'],
    ['q', 'quit'],
  ],
  storms: [
    ['Enter', 'its errors'],
    ['d', 'draft'],
    ['j/k', 'move'],
    ['Tab', 'draft view'],
    [':since', '24h'],
    ['?', 'help'],
    ['q', 'quit'],
  ],
  draft: [
    ['w', 'write file'],
    ['f', 'format'],
    ['j/k', 'scroll'],
    ['Esc', 'back'],
    ['?', 'help'],
    ['q', 'quit'],
  ],
  help: [
    ['any key', 'close'],
    ['q', 'quit'],
  ],
};
