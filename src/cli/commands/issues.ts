import type { Command } from 'commander';
import { ISSUE_SORTS } from '../../triage/issue-sorts.js';
import type { CommandContext, CommandModule } from '../context.js';
import { registerIssueStateCommands } from './issue-states.js';

/** `issues [query...]`: errors grouped into issues (the TUI's Issues view). */
export const issuesCommand: CommandModule = {
  name: 'issues',
  register(program: Command, ctx: CommandContext) {
    const issues = program
      .command('issues')
      .description('errors grouped into issues (service, protocol, skill or method, code, violation shape) over the window (default 24 h)')
      .argument('[query...]', 'optional query words to narrow the errors grouped (reads the rows instead of the hourly summary)')
      .option('--include-probe', 'include the calls of aap-triage probe (left out by default; or the query term origin:probe)')
      .option('--sort <order>', `${ISSUE_SORTS.join(' | ')} (newest first for the times)`, 'count')
      .allowUnknownOption(true)
      .addHelpText(
        'after',
        '\nState: new (first seen in the window), regressed (back after 6 h or more without an error, or\n' +
          'after its resolution by release), ongoing; or as the operator set it: resolved, muted (see\n' +
          'issues resolve|mute|reopen). List one issue\'s errors with: aap-triage search issue:<KEY>.\n' +
          'Exit 0 even when there are none.',
      )
      .action(async (words: string[], _opts: unknown, cmd: Command) => (await import('../actions/issues.js')).issues(ctx, words, cmd));
    registerIssueStateCommands(issues, ctx);
  },
};
