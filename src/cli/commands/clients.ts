import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `clients`: client pseudonyms with traffic; `clients label|unlabel`: name them. */
export const clientsCommand: CommandModule = {
  name: 'clients',
  register(program: Command, ctx: CommandContext) {
    const clients = program
      .command('clients')
      .description('client pseudonyms with their traffic over the window (default 24 h), most calls first, with their labels')
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/clients.js')).clients(ctx, cmd));
    clients
      .command('label')
      .description("name a client (business data: a partner's name and support address); drafts about it go to --contact")
      .argument('<client>', 'the API key (needs the pseudonymisation key), the pseudonym, or its first 6+ characters as the views show it')
      .argument('<name>', 'the partner name, e.g. "Acme Motors"')
      .option('--contact <email>', "the partner's support address, one address (drafts of its storms are addressed to it)")
      .option('--force', 'label a pseudonym the store does not know yet (no traffic, errors or label): a partner before its first call')
      .action(async (value: string, name: string, _opts: unknown, cmd: Command) => (await import('../actions/clients.js')).label(ctx, value, name, cmd));
    clients
      .command('unlabel')
      .description('remove the label of a client')
      .argument('<client>', 'the API key, the pseudonym or its first 6+ characters')
      .action(async (value: string, _opts: unknown, cmd: Command) => (await import('../actions/clients.js')).unlabel(ctx, value, cmd));
  },
};
