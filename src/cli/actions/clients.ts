import type { Command } from 'commander';
import { AddressError, formatMailbox, parseOneAddress } from '../../triage/index.js';
import { formatUtc, listClients, resolveClient, type ClientRef } from '../../triage/index.js';
import { closestClients, isKnownClient } from '../../triage/clients.js';
import { labelClientInStore, labelNameProblem, unlabelClientInStore } from '../../triage/store.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, toCliError, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { percent, table } from '../format.js';

/** The pseudonym a `clients label|unlabel <client>` argument names, or a one-line usage error. */
async function clientOf(ctx: CommandContext, cmd: Command, value: string): Promise<{ client: string; ref: ClientRef }> {
  const ref = (await resolveClient((await openDb(ctx, cmd)), value, ctx.pseudonymizer(cmd, false), ctx.now()));
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

/** `clients` (src/cli/commands/clients.ts): client pseudonyms with traffic in the window, most calls first, with their labels. */
export async function clients(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
  const list = (await listClients((await openDb(ctx, cmd)), window)).slice(0, ctx.limit(cmd, 1000));
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
}

/** `clients label <client> <name>`: names a client the store knows (any client with --force); exit 2 for a pseudonym it does not. */
export async function label(ctx: CommandContext, value: string, name: string, cmd: Command): Promise<void> {
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
  const db = await openDb(ctx, cmd);
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
}

/** `clients unlabel <client>`: removes a client's label. */
export async function unlabel(ctx: CommandContext, value: string, cmd: Command): Promise<void> {
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
}
