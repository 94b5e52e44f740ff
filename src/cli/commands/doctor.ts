import type { Command } from 'commander';
import type { CommandContext, CommandModule } from '../context.js';

/** `doctor`: checks the database, the key, the native module and Node, one line each. */
export const doctorCommand: CommandModule = {
  name: 'doctor',
  register(program: Command, ctx: CommandContext) {
    program
      .command('doctor')
      .description('check the database (opens, schema, integrity, WAL), the key, the native module and Node; exit 3 on a failure')
      .option('--integrity', 'run quick_check even on a large file')
      .option('--migrate', "first upgrade an older database to this aap-triage's schema (BEGIN IMMEDIATE; writers wait while it runs)")
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/doctor.js')).doctor(ctx, cmd));
  },
};
