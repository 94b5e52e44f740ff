import type { Command } from 'commander';
import { previewPruneInStore, pruneStore } from '../../triage/store.js';
import { formatUtc, parseDuration } from '../../triage/index.js';
import { CliError, EXIT, toCliError, type CommandContext } from '../context.js';

/** Shortest `--older-than` accepted without `--force`, ms: below an hour it is most likely a typo (`1m` for a month). */
export const PRUNE_FORCE_BELOW_MS = 60 * 60_000;

/** `prune` (src/cli/commands/prune.ts): deletes (or with --dry-run counts) what is older than --older-than. */
export async function prune(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const raw = String(g['olderThan']);
  const ms = parseDuration(raw);
  if (ms === undefined) throw new CliError(`--older-than '${raw}' is not a duration`, 'use e.g. 90d, 30d or 12h (m is minutes, not months)', EXIT.USAGE);
  const dryRun = g['dryRun'] === true;
  if (ms < PRUNE_FORCE_BELOW_MS && !dryRun && g['force'] !== true) {
    throw new CliError(
      `--older-than ${raw} would delete everything older than ${Math.round(ms / 60_000)} minute${Math.round(ms / 60_000) === 1 ? '' : 's'}`,
      `check with ${ctx.commandLine(cmd, `prune --older-than ${raw} --dry-run`, { window: false })}, then add --force (m is minutes; 30d is 30 days)`,
      EXIT.USAGE,
    );
  }
  const path = ctx.storePath(cmd);
  if (dryRun) {
    let p;
    try {
      p = await previewPruneInStore(path, ms, ctx.now());
    } catch (error) {
      throw toCliError(error);
    }
    if (g.json) {
      ctx.json({ dryRun: true, olderThanMs: ms, cutoff: p.cutoff, wouldDelete: { errorEvents: p.errorEvents, traffic: p.traffic, gaps: p.gaps }, oldestError: p.oldestError, newestError: p.newestError, keptErrors: p.keptErrors });
      return;
    }
    const range = p.oldestError !== null && p.newestError !== null ? ` (${formatUtc(p.oldestError)} to ${formatUtc(p.newestError)})` : '';
    ctx.out(
      `dry run: would delete ${p.errorEvents} errors${range}, ${p.traffic} traffic rows, ${p.gaps} gap records older than ${raw} (before ${formatUtc(p.cutoff)}); ${p.keptErrors} errors would stay`,
    );
    return;
  }
  let result;
  try {
    result = await pruneStore(path, ms, ctx.now());
  } catch (error) {
    throw toCliError(error);
  }
  if (g.json) ctx.json({ olderThanMs: ms, deleted: result });
  else ctx.out(`deleted ${result.errorEvents} errors, ${result.traffic} traffic rows, ${result.gaps} gap records older than ${raw}`);
}
