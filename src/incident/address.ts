/**
 * One email address as an operator types it for `draft --to`, `--from` and a client label's
 * `--contact` (issue #17 "Drafts": recipient addresses are validated). Parsed with nodemailer's
 * RFC 5322 address parser, the one the .eml builder uses, so what passes here is what the
 * message header will hold.
 */
import { createRequire } from 'node:module';
import type addressparserFn from 'nodemailer/lib/addressparser';

let parser: typeof addressparserFn | undefined;
/**
 * nodemailer's parser, `require`d (synchronous) on first use: `aap-triage/client` reaches this
 * module, and a buyer that never checks an address loads no mail module (issue 13).
 */
function addressparser(...args: Parameters<typeof addressparserFn>): ReturnType<typeof addressparserFn> {
  parser ??= createRequire(import.meta.url)('nodemailer/lib/addressparser') as typeof addressparserFn;
  return parser(...args);
}

/** From address of an incident .eml when none is given (`draft --from`, the terminal UI's drafts). */
export const DEFAULT_FROM = 'aap-triage <aap-triage@localhost>';

/** Why {@link parseOneAddress} refused a value. */
export class AddressError extends Error {
  override readonly name = 'AddressError';
}

/** A single mailbox: display name (may be '') and `local@domain`. */
export interface Mailbox {
  name: string;
  address: string;
}

// local@domain, the everyday subset (no quoted local parts, no IP literals): what a partner's
// support address looks like, and nothing a header injection can hide in. A one-label domain
// (`aap-triage@localhost`, the default From) is allowed.
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Parses exactly one address (`jo@example.com` or `Partner On-call <oncall@example.com>`).
 * @throws {AddressError} for control characters (CR, LF — header injection), an empty value, a
 *   group, a second address in the same value, or an address that is not `local@domain.tld`.
 *   The message names the problem and never echoes the value.
 */
export function parseOneAddress(value: string): Mailbox {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new AddressError('holds a line break or another control character');
  if (value.trim() === '') throw new AddressError('is empty');
  const parsed = addressparser(value, { flatten: false });
  if (parsed.length !== 1) throw new AddressError('holds more than one address: give one address per option');
  const [only] = parsed;
  if (!only || 'group' in only) throw new AddressError('is a group, not one address');
  if (!ADDRESS.test(only.address)) throw new AddressError('is not an address like name@example.com');
  return { name: only.name, address: only.address };
}

/** The mailbox as a header value: `Name <address>` or the bare address. */
export function formatMailbox(m: Mailbox): string {
  return m.name ? `${m.name.replace(/[<>"]/g, '')} <${m.address}>` : m.address;
}
