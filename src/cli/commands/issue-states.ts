/**
 * `issues resolve|mute|reopen <key>` (issue 29): their definitions under `issues`; what they do is
 * src/cli/actions/issue-states.ts, loaded when one runs.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

/** Adds `resolve`, `mute` and `reopen` under the `issues` command. */
export function registerIssueStateCommands(issues: Command, ctx: CommandContext): void {
  const byOption = (c: Command): Command => c.option('--by <name>', 'who sets it (default AAP_TRIAGE_OPERATOR, else the login name USER)');
  byOption(
    issues
      .command('resolve')
      .description('mark an issue resolved: now (any later error regresses it), in the next release, or in a version')
      .argument('<key>', 'the issue key (16 hex digits) or its first 6+')
      .option('--in-next-release', 'resolved in the release after the newest deployed: only an error of a newer version regresses it')
      .option('--in <version>', 'resolved in this version: only an error of this version or a later one regresses it (SemVer order, docs/releases.md)'),
  ).action(async (value: string, _opts: unknown, cmd: Command) => (await import('../actions/issue-states.js')).resolve(ctx, value, cmd));
  byOption(
    issues
      .command('mute')
      .description('mute an issue: still counted and listed (dimmed), never alerted; forever unless --for or --count ends it')
      .argument('<key>', 'the issue key (16 hex digits) or its first 6+')
      .option('--for <duration|time>', 'end the mute after a duration (2h, 7d) or at an RFC 3339 time')
      .option('--count <n>', 'end the mute once n more errors of the issue arrived'),
  ).action(async (value: string, _opts: unknown, cmd: Command) => (await import('../actions/issue-states.js')).mute(ctx, value, cmd));
  byOption(
    issues
      .command('reopen')
      .description('open a resolved or muted issue again (triaged by time as before)')
      .argument('<key>', 'the issue key (16 hex digits) or its first 6+'),
  ).action(async (value: string, _opts: unknown, cmd: Command) => (await import('../actions/issue-states.js')).reopen(ctx, value, cmd));
}
