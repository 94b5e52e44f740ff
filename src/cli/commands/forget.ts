import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `forget --email <e> | --phone <p>`: erase a customer's rows (DESIGN §5). */
export const forgetCommand: CommandModule = {
  name: 'forget',
  register(program: Command, ctx: CommandContext) {
    program
      .command('forget')
      .description("delete every error recorded for a customer's email or phone (matched by its pseudonym under the current key)")
      .option('--email <email>', 'the customer email')
      .option('--phone <phone>', 'the customer phone')
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/forget.js')).forget(ctx, cmd));
  },
};
