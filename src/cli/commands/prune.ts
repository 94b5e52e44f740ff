import type { Command } from 'commander';
import { DEFAULT_RETENTION_MS } from '../../triage/store.js';
import { DAY_MS, type CommandContext, type CommandModule } from '../context.js';

/** `prune --older-than 90d [--dry-run] [--force]`: retention (DESIGN §5). */
export const pruneCommand: CommandModule = {
  name: 'prune',
  register(program: Command, ctx: CommandContext) {
    program
      .command('prune')
      .description('delete errors, traffic and gap records older than a duration (default 90d); --dry-run shows what would go')
      .option('--older-than <duration>', 'age to keep, e.g. 90d, 30d, 12h (under 1h needs --force)', `${DEFAULT_RETENTION_MS / DAY_MS}d`)
      .option('--dry-run', 'count what would be deleted, delete nothing')
      .option('--force', 'allow an --older-than under one hour')
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/prune.js')).prune(ctx, cmd));
  },
};
