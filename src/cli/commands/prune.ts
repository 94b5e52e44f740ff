import type { Command } from 'commander';
import { DEFAULT_RETENTION_MS, pruneStore } from '../../triage/store.js';
import { parseDuration } from '../../triage/index.js';
import { CliError, DAY_MS, EXIT, toCliError, type CommandContext, type CommandModule } from '../context.js';

/** `prune --older-than 90d`: retention (DESIGN §5). */
export const pruneCommand: CommandModule = {
  name: 'prune',
  register(program: Command, ctx: CommandContext) {
    program
      .command('prune')
      .description('delete errors, traffic and gap records older than a duration (default 90d)')
      .option('--older-than <duration>', 'age to keep, e.g. 90d, 30d, 12h', `${DEFAULT_RETENTION_MS / DAY_MS}d`)
      .action(async (_opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const raw = String(g['olderThan']);
        const ms = parseDuration(raw);
        if (ms === undefined) throw new CliError(`--older-than '${raw}' is not a duration`, 'use e.g. 90d, 30d or 12h', EXIT.USAGE);
        let result;
        try {
          result = await pruneStore(ctx.storePath(cmd), ms, ctx.now());
        } catch (error) {
          throw toCliError(error);
        }
        if (g.json) ctx.json({ olderThanMs: ms, deleted: result });
        else ctx.out(`deleted ${result.errorEvents} errors, ${result.traffic} traffic rows, ${result.gaps} gap records older than ${raw}`);
      });
  },
};
