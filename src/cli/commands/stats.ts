import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `stats [query...]`: counts by code, skill, protocol and retryable, with the error rate from traffic. */
export const statsCommand: CommandModule = {
  name: 'stats',
  register(program: Command, ctx: CommandContext) {
    program
      .command('stats')
      .description('counts by code, skill, protocol and retryable over the window (default 24 h), error rate from traffic')
      .argument('[query...]', 'optional query words to narrow the errors counted')
      .allowUnknownOption(true)
      .action(async (words: string[], _opts: unknown, cmd: Command) => (await import('../actions/stats.js')).stats(ctx, words, cmd));
  },
};
