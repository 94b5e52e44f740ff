import type { Command } from 'commander';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

const KINDS = ['client', 'subject', 'idempotency'] as const;

/** `hash <value>`: the pseudonym of a value under the current key, to find a partner or a customer. */
export const hashCommand: CommandModule = {
  name: 'hash',
  register(program: Command, ctx: CommandContext) {
    program
      .command('hash')
      .description('the pseudonym of a credential, email/phone or idempotency key under the current key (exit 3 without a key)')
      .argument('<value>', 'the raw value (it is never stored or logged)')
      .option('--as <kind>', 'client | subject | idempotency', 'client')
      .action((value: string, _opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const kind = String(g['as']);
        if (!(KINDS as readonly string[]).includes(kind)) throw new CliError(`--as must be client, subject or idempotency, got '${kind}'`, null, EXIT.USAGE);
        const p = ctx.pseudonymizer(cmd, true);
        const pseudonym = p?.lookup(kind as (typeof KINDS)[number], value) ?? null;
        if (pseudonym === null) {
          throw new CliError(`'${kind}' value normalises to nothing`, kind === 'subject' ? 'give an email address or a phone number' : 'give a non-empty value', EXIT.USAGE);
        }
        if (g.json) ctx.json({ kind, pseudonym, key_id: p?.keyId ?? null });
        else ctx.out(pseudonym);
      });
  },
};
