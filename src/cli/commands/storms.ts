import type { Command } from 'commander';
import { STORM_DEFAULTS } from '../../triage/storm-detect.js';
import type { CommandContext, CommandModule } from '../context.js';

/** `storms`: retry-storm episodes over the window (the TUI's Storms view). */
export const stormsCommand: CommandModule = {
  name: 'storms',
  register(program: Command, ctx: CommandContext) {
    program
      .command('storms')
      .description('retry-storm episodes per client over the window (default 24 h), newest first; CAUSE client = a client storm, dealer = retries of retryable dealer faults as the policy allows')
      .option('--include-probe', 'include the calls of aap-triage probe (left out by default; or the query term origin:probe)')
      .option('--retry-ratio <fraction>', `retry ratio over which a minute is stormy (default ${STORM_DEFAULTS.retryRatio})`)
      .option('--min-retries <n>', `retries a minute needed with it (default ${STORM_DEFAULTS.minRetriesPerMinute})`)
      .option('--amplification <x>', `attempts ÷ distinct requests held ${STORM_DEFAULTS.amplificationMinutes} minutes (default ${STORM_DEFAULTS.amplification})`)
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/storms.js')).storms(ctx, cmd));
  },
};
