import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `hash <value>`: the pseudonym of a value under the current key, to find a partner or a customer. */
export const hashCommand: CommandModule = {
  name: 'hash',
  register(program: Command, ctx: CommandContext) {
    program
      .command('hash')
      .description('the pseudonym of a credential, email/phone or idempotency key under the current key (exit 3 without a key)')
      .argument('<value>', "the raw value (it is never stored or logged); '-' reads it from stdin, keeping it out of shell history")
      .option('--as <kind>', 'client | subject | idempotency (default: subject for an email or phone, else client)')
      .action(async (arg: string, _opts: unknown, cmd: Command) => (await import('../actions/hash.js')).hash(ctx, arg, cmd));
  },
};
