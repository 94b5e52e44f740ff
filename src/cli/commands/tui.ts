import type { Command } from 'commander';
import type { StartView } from '../../tui/registry.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

/**
 * Runs the terminal UI for `cmd`'s global options (`--db`, `--since`, `--until`, `--key-file`)
 * and records its exit code: 0 after q, 2 when not in an interactive terminal (or CI), 3 for a
 * missing or unreadable database or key. The UI is loaded lazily, so other commands never pay
 * for ink and React.
 */
export async function runTuiFromCli(cmd: Command, ctx: CommandContext, extra: { query?: string; view?: Exclude<StartView, 'issues'> } = {}): Promise<void> {
  // ink's chalk reads FORCE_COLOR when the UI is first loaded (just below): 0 turns colour off.
  if (!ctx.color(cmd)) process.env['FORCE_COLOR'] = '0';
  const { runTui, interactiveProblem, notInteractiveMessage } = await import('../../tui/index.js');
  // Refuse before touching the database or the key, so a pipe gets the one line and exit 2.
  if (interactiveProblem(process.stdin, process.stdout, ctx.io.env) !== null) {
    ctx.io.stderr.write(notInteractiveMessage((rest) => ctx.commandLine(cmd, rest)) + '\n');
    ctx.exitCode = EXIT.USAGE;
    return;
  }
  const g = ctx.globals(cmd);
  const dbPath = ctx.storePath(cmd);
  // A missing key only means raw client:/subject: values cannot be looked up.
  let pseudonymizer = null;
  try {
    pseudonymizer = ctx.pseudonymizer(cmd, false);
  } catch {
    pseudonymizer = null;
  }
  ctx.exitCode = await runTui({
    dbPath,
    since: g.since ?? '1h',
    ...(g.until !== undefined ? { until: g.until } : {}),
    ...(extra.query !== undefined ? { query: extra.query } : {}),
    ...(extra.view !== undefined ? { view: extra.view } : {}),
    pseudonymizer,
    stderr: ctx.io.stderr as { write(chunk: string): unknown },
    env: ctx.io.env,
  });
}

/**
 * `tui [query...]`: the interactive terminal UI. Registered as commander's default command, so
 * `aap-triage` with no command opens it in an interactive terminal. Run as the default:
 * - an unknown word (`aap-triage serch`) is still "unknown command", exit 2;
 * - outside an interactive terminal it prints the help, exit 0, as the program did before.
 */
export const tuiCommand: CommandModule = {
  name: 'tui',
  register(program: Command, ctx: CommandContext) {
    program
      .command('tui', { isDefault: true })
      .description('interactive terminal UI: errors, detail, storms, incident draft (the default in a terminal; exit 2 without one)')
      .argument('[query...]', 'initial filter, in the query language of search')
      .option('--storms', 'open on the Storms view')
      .action(async (words: string[], opts: { storms?: boolean }, cmd: Command) => {
        const explicit = cmd.parent?.args[0] === 'tui';
        if (!explicit) {
          if (words.length > 0) throw new CliError(`unknown command '${words[0]}'`, `see ${ctx.invocation} --help`, EXIT.USAGE);
          const { interactiveProblem } = await import('../../tui/interactive.js');
          if (interactiveProblem(process.stdin, process.stdout, ctx.io.env) !== null) {
            program.outputHelp();
            return;
          }
        }
        await runTuiFromCli(cmd, ctx, { query: words.join(' '), ...(opts.storms ? { view: 'storms' } : {}) });
      });
  },
};
