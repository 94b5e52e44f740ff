import type { Command } from 'commander';
import { getTrace, loadClientLabels } from '../../triage/index.js';
import { EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { errorTable } from '../format.js';

/** `trace <trace_id>` (src/cli/commands/trace.ts): every error of the trace, oldest first; exit 1 if none. */
export async function trace(ctx: CommandContext, traceId: string, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const db = (await openDb(ctx, cmd));
  const rows = (await getTrace(db, traceId.trim(), ctx.limit(cmd, 1000)));
  if (g.json) ctx.json(rows);
  else if (rows.length) ctx.out(errorTable(rows, (await loadClientLabels(db))));
  if (rows.length === 0) {
    ctx.note(`aap-triage: no errors with trace id ${traceId} — check the id, or the --db the server writes to`);
    ctx.exitCode = EXIT.NOT_FOUND;
  }
}
