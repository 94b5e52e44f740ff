import type { Command } from 'commander';
import { getTrace, loadClientLabels } from '../../triage/index.js';
import { EXIT, type CommandContext, type CommandModule } from '../context.js';
import { errorTable } from '../format.js';

/** `trace <trace_id>`: every error of a W3C trace id or a DMC-12 `trc_…` upstream trace id. */
export const traceCommand: CommandModule = {
  name: 'trace',
  register(program: Command, ctx: CommandContext) {
    program
      .command('trace')
      .description('every error with that trace id or upstream trace id, oldest first (exit 1 if none)')
      .argument('<trace_id>', 'W3C trace id (32 hex) or DMC-12 trc_… id')
      .action(async (traceId: string, _opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const db = (await ctx.openDb(cmd));
        const rows = (await getTrace(db, traceId.trim(), ctx.limit(cmd, 1000)));
        if (g.json) ctx.json(rows);
        else if (rows.length) ctx.out(errorTable(rows, (await loadClientLabels(db))));
        if (rows.length === 0) {
          ctx.note(`aap-triage: no errors with trace id ${traceId} — check the id, or the --db the server writes to`);
          ctx.exitCode = EXIT.NOT_FOUND;
        }
      });
  },
};
