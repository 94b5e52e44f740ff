import type { Command } from 'commander';
import { AddressError, formatMailbox, parseOneAddress } from '../../triage/index.js';
import { formatUtc, listClients, resolveClient, type ClientRef } from '../../triage/index.js';
import { closestClients, isKnownClient } from '../../triage/clients.js';
import { labelClientInStore, labelNameProblem, unlabelClientInStore } from '../../triage/store.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, toCliError, type CommandContext, type CommandModule } from '../context.js';
import { percent, table } from '../format.js';

/** The pseudonym a `clients label|unlabel <client>` argument names, or a one-line usage error. */
async function clientOf(ctx: CommandContext, cmd: Command, value: string): Promise<{ client: string; ref: ClientRef }> {
  const ref = (await resolveClient((await ctx.openDb(cmd)), value, ctx.pseudonymizer(cmd, false), ctx.now()));
  if (ref.kind === 'ambiguous') {
    throw new CliError(`'${value}' starts ${ref.matches.length} client pseudonyms (${ref.matches.map((m) => m.slice(0, 10)).join(', ')}…)`, 'give more characters of the one you mean', EXIT.USAGE);
  }
  if (ref.kind === 'unknown') {
    throw new CliError(
      `'${value}' is neither a known client pseudonym (or its first 6+ characters) nor, without the pseudonymisation key, usable as an API key`,
      `see ${ctx.commandLine(cmd, 'clients')}, or set AAP_TRIAGE_KEY / --key-file to label by API key`,
      EXIT.USAGE,
    );
  }
  return { client: ref.client, ref };
}

/** `clients`: client pseudonyms with traffic; `clients label|unlabel`: name them. */
export const clientsCommand: CommandModule = {
  name: 'clients',
  register(program: Command, ctx: CommandContext) {
    const clients = program
      .command('clients')
      .description('client pseudonyms with their traffic over the window (default 24 h), most calls first, with their labels')
      .action(async (_opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
        const list = (await listClients((await ctx.openDb(cmd)), window)).slice(0, ctx.limit(cmd, 1000));
        if (g.json) {
          ctx.json(list);
          return;
        }
        if (list.length === 0) {
          ctx.note(`no client traffic between ${formatUtc(window.since)} and ${formatUtc(window.until)} (UTC)`);
          return;
        }
        ctx.out(
          table(
            ['CLIENT', 'PSEUDONYM', 'NAME', 'CONTACT', 'CALLS', 'ERRORS', 'RETRIES', 'ERROR RATE', 'RETRY RATIO', 'LAST SEEN (UTC)'],
            list.map((c) => [
              c.display,
              c.client || '-',
              c.label?.name ?? '-',
              c.label?.contact ?? '-',
              String(c.requests),
              String(c.errors),
              String(c.retries),
              percent(c.error_rate),
              percent(c.retry_ratio),
              formatUtc(c.last_seen),
            ]),
          ),
        );
        ctx.out(`${list.length} client${list.length === 1 ? '' : 's'}; name one with: ${ctx.commandLine(cmd, 'clients label <PSEUDONYM> "<name>" --contact <email>', { window: false })}`);
      });
    clients
      .command('label')
      .description("name a client (business data: a partner's name and support address); drafts about it go to --contact")
      .argument('<client>', 'the API key (needs the pseudonymisation key), the pseudonym, or its first 6+ characters as the views show it')
      .argument('<name>', 'the partner name, e.g. "Acme Motors"')
      .option('--contact <email>', "the partner's support address, one address (drafts of its storms are addressed to it)")
      .option('--force', 'label a pseudonym the store does not know yet (no traffic, errors or label): a partner before its first call')
      .action(async (value: string, name: string, _opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const problem = labelNameProblem(name);
        if (problem) throw new CliError(`the name ${problem}`, 'give a short printable name, e.g. "Acme Motors"', EXIT.USAGE);
        let contact: string | null = null;
        if (g['contact'] !== undefined) {
          try {
            contact = formatMailbox(parseOneAddress(String(g['contact'])));
          } catch (error) {
            if (error instanceof AddressError) throw new CliError(`--contact ${error.message}`, 'e.g. --contact partner-oncall@example.com', EXIT.USAGE);
            throw error;
          }
        }
        const { client, ref } = await clientOf(ctx, cmd, value);
        // A typo would label a client nobody is (and drafts would greet it): refuse what the
        // store does not know, with the nearest it does, unless --force (a partner still to call).
        const db = await ctx.openDb(cmd);
        if (g['force'] !== true && !(await isKnownClient(db, client, ctx.now()))) {
          const near = await closestClients(db, value, 3, ctx.now());
          throw new CliError(
            `'${value}' names no client with traffic, errors or a label in this store${near.length ? ` (closest known: ${near.join(', ')})` : ''}`,
            'check the pseudonym in `clients`, or add --force to label a client before its first call',
            EXIT.USAGE,
          );
        }
        const path = ctx.storePath(cmd);
        ctx.close(); // the label is written on a read-write connection of its own
        let label;
        try {
          label = await labelClientInStore(path, { client, name, contact, now: ctx.now() });
        } catch (error) {
          throw toCliError(error);
        }
        if (g.json) ctx.json({ ...label, matched_by: ref.kind });
        else ctx.out(`labelled client ${client} "${label.name}"${label.contact ? ` <${label.contact}>` : ''}${ref.kind === 'credential' ? ' (from the API key, under the current key)' : ''}`);
      });
    clients
      .command('unlabel')
      .description('remove the label of a client')
      .argument('<client>', 'the API key, the pseudonym or its first 6+ characters')
      .action(async (value: string, _opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const { client } = await clientOf(ctx, cmd, value);
        const path = ctx.storePath(cmd);
        ctx.close();
        let removed: boolean;
        try {
          removed = await unlabelClientInStore(path, client);
        } catch (error) {
          throw toCliError(error);
        }
        if (g.json) ctx.json({ client, removed });
        else ctx.out(removed ? `removed the label of client ${client}` : `client ${client} had no label`);
      });
  },
};
