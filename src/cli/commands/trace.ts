import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `trace <trace_id>`: every error of a W3C trace id or a DMC-12 `trc_…` upstream trace id. */
export const traceCommand: CommandModule = {
  name: 'trace',
  register(program: Command, ctx: CommandContext) {
    program
      .command('trace')
      .description('every error with that trace id or upstream trace id, oldest first (exit 1 if none)')
      .argument('<trace_id>', 'W3C trace id (32 hex) or DMC-12 trc_… id')
      .action(async (traceId: string, _opts: unknown, cmd: Command) => (await import('../actions/trace.js')).trace(ctx, traceId, cmd));
  },
};
