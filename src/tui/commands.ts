import { TAB_VIEWS, type ViewName } from './registry.js';
import type { TuiSource } from './source.js';
import type { DraftFormat, WindowSpec } from './types.js';

/** What a `:` command line asks for. */
export type CommandResult =
  /** One of the registry's tab views. */
  | { kind: 'view'; view: ViewName }
  | { kind: 'window'; window: WindowSpec }
  /** `until` undefined: back to "now". */
  | { kind: 'until'; until: string | undefined }
  | { kind: 'format'; format: DraftFormat }
  | { kind: 'write'; path?: string }
  | { kind: 'quit' }
  | { kind: 'error'; message: string };

const FORMAT_ALIASES: Readonly<Record<string, DraftFormat>> = { text: 'text', txt: 'text', md: 'md', markdown: 'md', eml: 'eml' };

/**
 * Parses a `:` command (`:<view>` for each tab view of the registry, `:since 1h`, `:until <time>|now`,
 * `:format md`, `:w [path]`, `:q`). Time arguments are checked with the same parser as the
 * query language (`since:` terms), through `source.checkQuery`, so both accept the same text.
 * Pure apart from that check.
 */
export function runCommandLine(line: string, source: Pick<TuiSource, 'checkQuery'>): CommandResult {
  const [name = '', ...args] = line.trim().replace(/^:/, '').split(/\s+/);
  const arg = args.join(' ');
  const view = TAB_VIEWS.find((v) => v === name);
  if (view) return { kind: 'view', view };
  switch (name) {
    case 'since':
    case 'until': {
      if (!arg) return { kind: 'error', message: `:${name} needs a duration (15m, 1h, 7d) or an RFC 3339 time` };
      if (name === 'until' && arg === 'now') return { kind: 'until', until: undefined };
      const problem = source.checkQuery(`${name}:${arg}`);
      if (problem) return { kind: 'error', message: problem };
      return name === 'since' ? { kind: 'window', window: { since: arg } } : { kind: 'until', until: arg };
    }
    case 'format': {
      const f = FORMAT_ALIASES[arg.toLowerCase()];
      return f ? { kind: 'format', format: f } : { kind: 'error', message: ':format takes text, md or eml' };
    }
    case 'w':
    case 'write':
      return arg ? { kind: 'write', path: arg } : { kind: 'write' };
    case 'q':
    case 'quit':
      return { kind: 'quit' };
    default:
      return { kind: 'error', message: `unknown command :${name} (try ${TAB_VIEWS.map((v) => `:${v}`).join(' ')} :since 1h :format md :w <path> :q)` };
  }
}
