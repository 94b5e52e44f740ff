import type { Command } from 'commander';
import { EXTENSION_URI_ENV } from '../../triage/extension-uri.js';
import { DEFAULT_FROM } from '../../incident/address.js';
import type { CommandContext, CommandModule } from '../context.js';

/** commander's collector for a repeatable option. */
const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `draft`: the incident email for a storm, a query or error ids (the TUI's Draft view). */
export const draftCommand: CommandModule = {
  name: 'draft',
  register(program: Command, ctx: CommandContext) {
    program
      .command('draft')
      .description('draft the incident email for a storm (--storm), a query (--query) or error ids; exit 1 if nothing matches')
      .argument('[error_ids...]', 'error ids (err_…) to report')
      .option('--storm <id>', 'a storm id from `aap-triage storms`')
      .option('--query <q>', 'a query, as for search (window: --since/--until, default 24 h)')
      .option('--format <format>', 'text | md | eml', 'text')
      .option('--to <address>', "To address of the .eml, one per --to (repeat it for more); default: the client's label contact", collect, [])
      .option('--from <address>', `From address of the .eml (default "${DEFAULT_FROM}")`)
      .option('--out <file>', 'write the draft to this new file (mode 0600) instead of stdout; never follows a symlink')
      .option('--force', 'let --out replace an existing file (the path itself, never a symlink\'s target)')
      .option('--next-update <minutes>', 'when the next update is promised, minutes from now', '60')
      .option('--extension-uri <uri>', `the AAP extension URI your agent card requires, named in the -32008 advice (default: ${EXTENSION_URI_ENV})`)
      .action(async (ids: string[], _opts: unknown, cmd: Command) => (await import('../actions/draft.js')).draft(ctx, ids, cmd));
  },
};
