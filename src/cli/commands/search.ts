import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `search [query...]`: errors matching a query, newest first (the TUI's Errors view). */
export const searchCommand: CommandModule = {
  name: 'search',
  register(program: Command, ctx: CommandContext) {
    program
      .command('search')
      .description('errors matching a query, newest first (default window: the last 24 h)')
      .argument('[query...]', 'query words, e.g. code:RATE_LIMITED skill:lead.submit since:1h -protocol:a2a')
      .option('--offset <n>', 'skip the first n rows (paging)', '0')
      .option('--include-probe', 'include the calls of aap-triage probe (left out by default; or the query term origin:probe)')
      .option('--histogram', 'print errors per minute (retryable / terminal) instead of rows')
      .allowUnknownOption(true)
      .addHelpText(
        'after',
        '\nQuery fields: code skill|tool method protocol service retryable attempt flag trace client subject\n' +
          'idempotency fingerprint id http jsonrpc issue origin since until. Bare words match code, skill or method.\n' +
          '-field:value excludes; field:A,B matches any; attempt:>2; values in double or single quotes.\n' +
          'Calls of aap-triage probe are left out unless --include-probe or origin:probe|any. Exit 0 even when nothing matches.',
      )
      .action(async (words: string[], _opts: unknown, cmd: Command) => (await import('../actions/search.js')).search(ctx, words, cmd));
  },
};

