import { Command } from 'commander';

/**
 * Runs the `aap-triage` command line with `argv` (as `process.argv`) and resolves to the exit
 * code: 0 ok, 1 nothing found, 2 usage or input error, 3 environment error.
 */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('aap-triage')
    .description('Search the AAP / DMC-12 audit log, find retry storms, draft incident emails')
    .exitOverride();
  program.command('demo').description('run dealer agents, buyer agents and the triage tool end to end').action(() => {
    program.outputHelp();
  });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2;
  }
}
