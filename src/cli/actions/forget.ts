import type { Command } from 'commander';
import { forgetInStore, type ForgetResult } from '../../triage/store.js';
import { CliError, EXIT, toCliError, type CommandContext } from '../context.js';

/**
 * The one-line warning about rows written under other keys: they may hold the same customer
 * but cannot be matched with the current key.
 */
export function otherKeyWarning(rows: number, keyIds: readonly string[]): string {
  const ids = keyIds.length ? ` (key id${keyIds.length === 1 ? '' : 's'} ${keyIds.join(', ')})` : ' (no key id)';
  const how = keyIds.length
    ? `rerun forget with --key-file set to the key file whose key id is ${keyIds.join(' / ')} (or AAP_TRIAGE_KEY set to that secret)`
    : 'they cannot be matched by any key';
  return `aap-triage: warning: ${rows} row${rows === 1 ? '' : 's'} with a customer written under another key${ids} could not be checked — ${how}`;
}

/** `forget --email | --phone` (src/cli/commands/forget.ts): erases a customer's rows under the current key. */
export async function forget(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const email = g['email'] as string | undefined;
  const phone = g['phone'] as string | undefined;
  if ((email === undefined) === (phone === undefined)) throw new CliError('forget needs exactly one of --email or --phone', `e.g. ${ctx.commandLine(cmd, 'forget --email jo@example.com', { window: false })}`, EXIT.USAGE);
  const value = String(email ?? phone);
  const storePath = ctx.storePath(cmd);
  const p = ctx.pseudonymizer(cmd, true);
  if (!p) throw new CliError('no pseudonym key', 'set AAP_TRIAGE_KEY or --key-file', EXIT.ENV);
  let result: ForgetResult;
  try {
    result = await forgetInStore(storePath, p, value);
  } catch (error) {
    if (error instanceof TypeError) throw new CliError(`the ${email !== undefined ? 'email' : 'phone'} given normalises to nothing`, 'give a full email address or phone number', EXIT.USAGE);
    throw toCliError(error);
  }
  const { deleted, otherKeyRows, otherKeyIds } = result;
  if (otherKeyRows > 0) ctx.note(otherKeyWarning(otherKeyRows, otherKeyIds));
  if (g.json) ctx.json({ deleted, key_id: p.keyId, unchecked: { rows: otherKeyRows, key_ids: otherKeyIds } });
  else ctx.out(`deleted ${deleted} error${deleted === 1 ? '' : 's'} recorded for that ${email !== undefined ? 'email' : 'phone'} (key ${p.keyId})`);
}
