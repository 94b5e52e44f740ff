import type { ErrorProtocol } from '../protocol/error-event.js';
import { lookupCode } from '../protocol/index.js';
import type { CodeInfo } from '../protocol/types.js';

/**
 * The code-table entry for a stored (protocol, code) pair. A numeric code falls back to the
 * JSON-RPC table, and for AAP (a profile of A2A) to the A2A table. Not for DMC-12: its -32001 is
 * an auth failure (spec/dmc12-errors.txt "Auth failures are different"), not A2A's TaskNotFound,
 * so an unknown DMC-12 numeric code stays unknown rather than borrowing a wrong meaning.
 */
export function codeInfoFor(protocol: string, code: string): CodeInfo | undefined {
  const families: ErrorProtocol[] = ['aap', 'a2a', 'dmc12', 'jsonrpc'];
  const own = families.includes(protocol as ErrorProtocol) ? lookupCode(protocol as ErrorProtocol, code) : undefined;
  if (own) return own;
  // AAP is a profile of A2A: an A2A reason (EXTENSION_SUPPORT_REQUIRED) stored under aap is A2A's.
  if (protocol === 'aap' && !/^-\d+$/.test(code)) return lookupCode('a2a', code);
  if (/^-\d+$/.test(code)) return lookupCode('jsonrpc', code) ?? (protocol === 'aap' ? lookupCode('a2a', code) : undefined);
  return undefined;
}
