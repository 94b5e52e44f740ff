import { CommanderError } from 'commander';
import { CliError, CommandContext, EXIT, type CliIo } from './context.js';
import { COMMANDS } from './commands/index.js';
import { buildProgram, commanderExitCode } from './program.js';
import { toUsage } from './query-args.js';
import { invocationOf } from './invocation.js';

export { EXIT, CliError, CommandContext } from './context.js';
export type { CliIo, CommandModule, GlobalOptions } from './context.js';
export { buildProgram, HELP_FOOTER } from './program.js';
export { COMMANDS } from './commands/index.js';

/**
 * Runs the `aap-triage` command line with `argv` (as `process.argv`: node, script, args…) and
 * resolves to the exit code: 0 ok, 1 nothing found, 2 usage or input error, 3 environment error.
 * Every error is one line on stderr (`aap-triage: <what> — <how to fix>`), never a stack trace.
 * `io` defaults to the process's streams, environment and clock; tests pass their own.
 */
export async function main(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const full: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    now: io.now ?? Date.now,
    invocation: io.invocation ?? invocationOf(argv[1], io.env ?? process.env),
    ...(io.stdin ? { stdin: io.stdin } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
  // `aap-triage … | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
  const onPipeError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') throw error;
  };
  for (const s of [process.stdout, process.stderr]) if (full.stdout === s || full.stderr === s) s.on('error', onPipeError);
  const ctx = new CommandContext(full);
  try {
    const program = buildProgram(ctx, COMMANDS);
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (caught) {
    const error = toUsage(caught, ctx.invocation);
    if (error instanceof CommanderError) {
      // commander has already printed its one line through outputError (or the help text).
      return commanderExitCode(error);
    }
    if (error instanceof CliError) {
      full.stderr.write(`aap-triage: ${error.message}\n`);
      return error.exitCode;
    }
    const e = error as { message?: unknown; code?: unknown };
    const text = String(e?.message ?? error).split('\n')[0];
    full.stderr.write(`aap-triage: unexpected error: ${text}${e?.code ? ` (${String(e.code)})` : ''} — please report it with the command you ran\n`);
    return EXIT.ENV;
  } finally {
    await ctx.close();
  }
}
