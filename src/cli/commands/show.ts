import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `show <error_id>`: one error, its code's meaning and client action, related errors (the TUI's Detail view). */
export const showCommand: CommandModule = {
  name: 'show',
  register(program: Command, ctx: CommandContext) {
    program
      .command('show')
      .description('one error with its code meaning, recommended client action and related errors (exit 1 if unknown)')
      .argument('<error_id>', 'the error id the client quoted (err_…)')
      .action(async (errorId: string, _opts: unknown, cmd: Command) => (await import('../actions/show.js')).show(ctx, errorId, cmd));
  },
};
