import type { Command } from 'commander';
import { parseQuery, QuerySyntaxError, type Query, type QueryPseudonymizer } from '../triage/index.js';
import { CliError, EXIT, type CommandContext } from './context.js';

/**
 * Parses the words of a command line as one query: the words joined by spaces, so
 * `search 'code:RATE_LIMITED protocol:dmc12'` (one quoted argument) means exactly what the same
 * words unquoted mean (issue #17), as in the TUI's filter. A value with a space inside needs
 * double quotes the shell passes on (`'skill:"lead submit"'`). @throws QuerySyntaxError, which
 * `main` turns into a usage error naming the token (`toUsage`).
 */
export function queryFromWords(words: readonly string[]): Query {
  return parseQuery(words.join(' '));
}

/**
 * Maps a `QuerySyntaxError` to an exit-2 `CliError` whose hint runs where the user stands
 * (`invocation`: how this process was started, src/cli/invocation.ts; issue 28); anything else
 * passes through.
 */
export function toUsage(error: unknown, invocation: string): unknown {
  if (error instanceof QuerySyntaxError) {
    return new CliError(`bad query token '${error.token}': ${error.reason}`, `see ${invocation} search --help for the query language`, EXIT.USAGE);
  }
  return error;
}

/** The current key's pseudonymiser when the query has client:/subject:/idempotency: terms, else null. */
export function pseudonymizerFor(ctx: CommandContext, cmd: Command, query: Query): QueryPseudonymizer | null {
  if (!query.terms.some((t) => t.field === 'client' || t.field === 'subject' || t.field === 'idempotency')) return null;
  return ctx.pseudonymizer(cmd, false);
}
