import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/**
 * `tail [query...]`: the last rows, then new rows as they land, until Ctrl-C. Each poll pages
 * until it has caught up, so no row is ever skipped however fast the writers are (issue 16).
 */
export const tailCommand: CommandModule = {
  name: 'tail',
  register(program: Command, ctx: CommandContext) {
    program
      .command('tail')
      .description('follow new errors as they land (Ctrl-C stops, exit 0); --json prints JSON lines')
      .argument('[query...]', 'query words, as for search')
      .option('--interval <ms>', 'poll interval in milliseconds', '1000')
      .option('--lines <n>', 'rows to print before following', '10')
      .allowUnknownOption(true)
      .action(async (words: string[], _opts: unknown, cmd: Command) => (await import('../actions/tail.js')).tail(ctx, words, cmd));
  },
};
