import type { Command } from 'commander';
import { parseDuration } from '../../triage/index.js';
import type { DemoIo } from '../demo/command.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

/** Longest `--duration` accepted, ms (the demo is a demo, not a soak test). */
const MAX_DURATION_MS = 60 * 60_000;

/**
 * `demo [--duration 60s] [--db ./aap-triage-demo.db] [--keep-serving] [--seed N]`: dealer
 * agents, buyer agents and the triage tool end to end (issue 7; src/demo). `--db` is the global
 * option, but the demo's default is `./aap-triage-demo.db` and AAP_TRIAGE_DB is ignored, so the
 * demo never replaces a real audit database by accident.
 */
export const demoCommand: CommandModule = {
  name: 'demo',
  register(program: Command, ctx: CommandContext) {
    program
      .command('demo')
      .description('run dealer agents (AAP + DMC-12), buyer agents and the triage tool end to end on loopback')
      .option('--duration <time>', 'how long the simulated traffic runs (e.g. 15s, 2m)', '60s')
      .option('--keep-serving', 'leave the dealer agents running afterwards (Ctrl+C stops them) and print their URLs')
      .option('--seed <n>', 'seed of the simulation (which calls hit the injected faults)', '12')
      .addHelpText('after', '\nWrites ./aap-triage-demo.db (or --db), replacing an older demo database. In a terminal it then opens\nthe terminal UI on it; otherwise it prints the storms found, the incident draft for the worst one, and\nthe commands to explore further.\n')
      .action(async (opts: { duration: string; keepServing?: boolean; seed: string }, cmd: Command) => {
        const durationMs = parseDuration(opts.duration);
        if (durationMs === undefined || durationMs < 1000 || durationMs > MAX_DURATION_MS) {
          throw new CliError(`--duration '${opts.duration}' is not a duration between 1s and 1h`, 'e.g. --duration 15s', EXIT.USAGE);
        }
        if (!/^\d{1,9}$/.test(opts.seed)) throw new CliError(`--seed '${opts.seed}' is not a non-negative integer`, 'e.g. --seed 7', EXIT.USAGE);
        const db = ctx.globals(cmd).db;
        if (db !== undefined) ctx.dbPath(cmd); // a mistyped URL is refused before any server starts
        // The demo narrates a run (servers, buyers, a terminal UI); its data has --json twins.
        if (ctx.globals(cmd).json) {
          const where = db === undefined ? '--db ./aap-triage-demo.db ' : '';
          throw new CliError('demo has no --json output', `run it, then ask its store: ${ctx.commandLine(cmd, `${where}issues --json`, { window: false })}`, EXIT.USAGE);
        }
        // The demo ends in the terminal UI: ink's chalk reads FORCE_COLOR when it is first loaded.
        if (!ctx.color(cmd)) process.env['FORCE_COLOR'] = '0';
        const { runDemoCommand } = await import('../demo/command.js');
        ctx.exitCode = await runDemoCommand(
          { durationMs, keepServing: opts.keepServing ?? false, seed: Number(opts.seed), invocation: ctx.invocation, ...(db !== undefined ? { db } : {}) },
          { stdout: ctx.io.stdout as DemoIo['stdout'], stderr: ctx.io.stderr as DemoIo['stderr'], stdin: process.stdin, env: ctx.io.env },
        );
      });
  },
};
