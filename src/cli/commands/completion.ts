import type { Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

/** `completion bash|zsh|fish`: the shell completion script, on stdout. */
export const completionCommand: CommandModule = {
  name: 'completion',
  register(program: Command, ctx: CommandContext) {
    program
      .command('completion')
      .description('print the shell completion script: eval "$(aap-triage completion bash)" (zsh, fish alike)')
      .argument('<shell>', SHELLS.join(' | '))
      .action(async (shell: string) => {
        if (!(SHELLS as readonly string[]).includes(shell)) throw new CliError(`no completion for shell '${shell}'`, `use one of ${SHELLS.join(', ')}`, EXIT.USAGE);
        ctx.io.stdout.write(completionScript(program, shell as Shell));
      });
  },
};
