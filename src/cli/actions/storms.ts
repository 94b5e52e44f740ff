import type { Command } from 'commander';
import { findStorms, formatDuration, formatUtcMinute, loadClientLabels, type StormThresholds } from '../../triage/index.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { clientText, percent, sparkline, table } from '../format.js';

function threshold(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`--${name} must be a non-negative number, got '${String(raw)}'`, null, EXIT.USAGE);
  return n;
}

/** `storms` (src/cli/commands/storms.ts): the retry-storm episodes of the window, newest first. */
export async function storms(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const thresholds: Partial<StormThresholds> = {};
  const rr = threshold(g['retryRatio'], 'retry-ratio');
  const mr = threshold(g['minRetries'], 'min-retries');
  const amp = threshold(g['amplification'], 'amplification');
  if (rr !== undefined) thresholds.retryRatio = rr;
  if (mr !== undefined) thresholds.minRetriesPerMinute = mr;
  if (amp !== undefined) thresholds.amplification = amp;
  const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
  const db = (await openDb(ctx, cmd));
  const storms = (await findStorms(db, window, { thresholds, includeProbe: g['includeProbe'] === true })).slice(0, ctx.limit(cmd, 1000));
  const labels = (await loadClientLabels(db));
  if (g.json) {
    ctx.json(storms.map((s) => ({ ...s, clientLabel: labels.get(s.client) ?? null })));
    return;
  }
  if (storms.length === 0) {
    ctx.note('no retry storms in the window');
    return;
  }
  const flagText = (f: Record<string, number>): string =>
    Object.entries(f)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k}:${n}`)
      .join(',') || '-';
  ctx.out(
    table(
      ['ID', 'CAUSE', 'START (UTC)', 'LENGTH', 'CLIENT', 'SKILLS', 'CODES', 'CALLS', 'ERRORS', 'RETRIES', 'RATIO', 'PEAK/MIN', 'FLAGS', 'SHAPE'],
      storms.map((s) => [
        s.id,
        s.cause,
        formatUtcMinute(s.start),
        formatDuration(s.end - s.start),
        clientText(s.client, labels),
        s.skills.join(',') || '-',
        s.codes.slice(0, 3).map((c) => c.code).join(',') || '-',
        String(s.requests),
        String(s.errors),
        String(s.retries),
        percent(s.retryRatio),
        String(s.peakPerMinute),
        flagText(s.flags),
        sparkline(s.series.map((p) => p.requests)),
      ]),
    ),
  );
  // The hint repeats --db / --since / --until / --key-file as given: without them it reads another store.
  ctx.out(`${storms.length} episode${storms.length === 1 ? '' : 's'}; draft one with: ${ctx.commandLine(cmd, 'draft --storm <ID>')}`);
}
