import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { COMMANDS } from './commands/index.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from './context.js';

/** The package version (package.json sits two folders up from both src/cli and dist/cli). */
function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Exit codes and environment, appended to `aap-triage --help`. */
export const HELP_FOOTER = `
Environment:
  AAP_TRIAGE_DB    database path when --db is not given (default ./aap-triage.db)
  AAP_TRIAGE_KEY   pseudonymisation secret (else the key file <db>.key)
  AAP_TRIAGE_PHONE_REGION  region national phone numbers are read in (default US);
                   the instrumented servers and the CLI must agree on it
  AAP_TRIAGE_TRACE_URL     trace link template with {trace_id} (drafts, the TUI)
  AAP_TRIAGE_EXTENSION_URI the AAP extension URI your agent card requires, named in
                   drafts' -32008 advice (the TUI; draft without --extension-uri)
  NO_COLOR         when set and not empty, no colours (as --no-color)

Exit codes:
  0  ok (search, stats and storms exit 0 even when nothing matches)
  1  nothing found where that matters: unknown error id (show), trace id (trace),
     storm id or nothing to draft (draft)
  2  usage or input error: bad flag, bad query token, bad duration or value
  3  environment error: missing or unreadable database, schema too old (run
     aap-triage doctor --migrate) or too new, native module, key file

Times: durations (15m, 24h, 7d) count back from now; RFC 3339 times are absolute. Output times are UTC.
`;

/**
 * Builds the `aap-triage` commander program over `ctx`: global options, every command module,
 * and the no-command default (help, exit 0) unless a module registered an `isDefault` command.
 */
export function buildProgram(ctx: CommandContext, modules: readonly CommandModule[] = COMMANDS): Command {
  const program = new Command('aap-triage')
    .description('Search the AAP / DMC-12 audit log, find retry storms, draft incident emails')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addOption(new Option('--db <path|url>', 'audit database: a SQLite file or a postgres:// URL (default: AAP_TRIAGE_DB, else ./aap-triage.db)'))
    .option('--json', 'machine-readable output (the same answer as the text)')
    .option('--since <time>', 'start of the window: a duration back from now (15m, 24h, 7d) or an RFC 3339 time')
    .option('--until <time>', 'end of the window (default now)')
    .option('--limit <n>', 'most rows to print')
    .option('--key-file <path>', 'pseudonymisation key file (default <db>.key; AAP_TRIAGE_KEY wins)')
    .option('--no-color', 'no colours in the terminal UI (also when NO_COLOR is set)')
    .usage('[options] [command]')
    // Each subcommand's --help lists these global options too (they go before or after the command).
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', HELP_FOOTER)
    .showSuggestionAfterError(true)
    // An action handler turns commander's implicit `help` command off; keep `aap-triage help <command>`.
    .helpCommand(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: (s, write) => write(`aap-triage: ${s.replace(/^error:\s*/i, '').trim()} — see ${ctx.invocation} --help\n`),
    });
  for (const m of modules) m.register(program, ctx);
  for (const c of program.commands) {
    // Subcommands inherit the overrides so their errors are one line too.
    c.exitOverride().configureOutput(program.configureOutput());
  }
  program.allowExcessArguments(true).action(() => {
    const [command, topic] = program.args;
    if (command === 'help') {
      const sub = program.commands.find((c) => c.name() === topic);
      if (topic !== undefined && !sub) throw new CliError(`unknown command '${topic}'`, `see ${ctx.invocation} --help`, EXIT.USAGE);
      (sub ?? program).outputHelp();
      return;
    }
    if (command !== undefined) throw new CliError(`unknown command '${command}'`, `see ${ctx.invocation} --help`, EXIT.USAGE);
    program.outputHelp();
  });
  return program;
}

/** Maps a commander error to an exit code: help and version are 0, anything else a usage error. */
export function commanderExitCode(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return EXIT.OK;
  return EXIT.USAGE;
}
