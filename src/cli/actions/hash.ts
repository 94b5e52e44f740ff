import type { Command } from 'commander';
import { looksLikeSubject } from '../../triage/index.js';
import { CliError, EXIT, type CommandContext } from '../context.js';

const KINDS = ['client', 'subject', 'idempotency'] as const;
type Kind = (typeof KINDS)[number];

/** Longest value `hash -` reads from stdin, bytes: a credential, email or phone is far shorter. */
const STDIN_MAX_BYTES = 64 * 1024;

/** Reads the whole of `stdin` as UTF-8 and drops one final line break (as `echo` or a here-string adds). */
async function readValue(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    size += b.length;
    if (size > STDIN_MAX_BYTES) throw new CliError(`the value on stdin is longer than ${STDIN_MAX_BYTES} bytes`, 'pipe in only the one value', EXIT.USAGE);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/**
 * The role a value is hashed in: `--as` when given, else `subject` when it looks like an email
 * or phone (`looksLikeSubject`), else `client`.
 */
export function hashRole(value: string, as: string | undefined): { kind: Kind; guessed: boolean } {
  if (as !== undefined) {
    if (!(KINDS as readonly string[]).includes(as)) throw new CliError(`--as must be client, subject or idempotency, got '${as}'`, null, EXIT.USAGE);
    return { kind: as as Kind, guessed: false };
  }
  return { kind: looksLikeSubject(value) ? 'subject' : 'client', guessed: true };
}

/** `hash <value>` (src/cli/commands/hash.ts): the pseudonym of a value under the current key; `-` reads it from stdin. */
export async function hash(ctx: CommandContext, arg: string, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const as = g['as'] as string | undefined;
  if (as !== undefined) hashRole('', as); // a bad --as is a usage error before anything is read
  const value = arg === '-' ? await readValue(ctx.io.stdin ?? process.stdin) : arg;
  const { kind, guessed } = hashRole(value, as);
  const p = ctx.pseudonymizer(cmd, true);
  const pseudonym = p?.lookup(kind, value) ?? null;
  if (pseudonym === null) {
    throw new CliError(`'${kind}' value normalises to nothing`, kind === 'subject' ? 'give an email address or a phone number' : 'give a non-empty value', EXIT.USAGE);
  }
  if (g.json) {
    ctx.json({ kind, pseudonym, key_id: p?.keyId ?? null });
    return;
  }
  ctx.note(
    guessed
      ? `aap-triage: hashed as ${kind} (${kind === 'subject' ? 'it looks like an email or phone' : 'it does not look like an email or phone'}; --as to choose)`
      : `aap-triage: hashed as ${kind}`,
  );
  ctx.out(pseudonym);
}
