import type { Command } from 'commander';
import { describeGap, errorHistogram, listGaps, loadClientLabels, searchErrors, formatUtc, type Query } from '../../triage/index.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { errorTable } from '../format.js';
import { queryFromWords, pseudonymizerFor } from '../query-args.js';

/** `search [query...]` (src/cli/commands/search.ts): the rows, or `--histogram`'s errors per minute. */
export async function search(ctx: CommandContext, words: string[], cmd: Command): Promise<void> {
  const query: Query = queryFromWords(words);
  const g = ctx.globals(cmd);
  if (!/^\d{1,12}$/.test(String(g['offset']))) throw new CliError(`--offset must be a non-negative integer, got '${String(g['offset'])}'`, 'e.g. --offset 50', EXIT.USAGE);
  const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
  const db = await openDb(ctx, cmd);
  const options = { now: ctx.now(), pseudonymizer: pseudonymizerFor(ctx, cmd, query), includeProbe: g['includeProbe'] === true };
  if (g['histogram']) {
    const h = await errorHistogram(db, query, window, options);
    if (g.json) ctx.json(h);
    else {
      for (const gap of await listGaps(db, h.window)) ctx.note(describeGap(gap));
      ctx.out(`${'MINUTE (UTC)'.padEnd(21)}RETRYABLE  TERMINAL  UNKNOWN`);
      for (const b of h.buckets) ctx.out(`${formatUtc(b.start).padEnd(21)}${String(b.retryable).padStart(9)}  ${String(b.terminal).padStart(8)}  ${String(b.unknown).padStart(7)}`);
    }
    return;
  }
  const res = await searchErrors(db, query, window, { ...options, limit: ctx.limit(cmd, 50), offset: Number(g['offset']) });
  if (g.json) {
    ctx.json(res.rows);
    return;
  }
  // Errors lost in the window are not in these rows: say so on stderr (the rows stay clean on stdout).
  for (const gap of await listGaps(db, res.window)) ctx.note(describeGap(gap));
  if (res.rows.length === 0) {
    ctx.note(`no errors match between ${formatUtc(res.window.since)} and ${formatUtc(res.window.until)} (UTC)`);
    return;
  }
  ctx.out(errorTable(res.rows, (await loadClientLabels(db))));
  ctx.out(`rows ${res.offset + 1}–${res.offset + res.rows.length} of ${res.total} (${formatUtc(res.window.since)} to ${formatUtc(res.window.until)} UTC)`);
}
