import type { Command } from 'commander';
import { computeStats, describeGap, formatUtc, listGaps, type CountRow } from '../../triage/index.js';
import { DEFAULT_WINDOW_MS, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { percent, table } from '../format.js';
import { pseudonymizerFor, queryFromWords } from '../query-args.js';

const rows = (list: CountRow[]): string[][] => list.map((r) => [r.key, String(r.count), String(r.retryable.true), String(r.retryable.false), String(r.retryable.unknown)]);

/** `stats [query...]` (src/cli/commands/stats.ts): counts by code, skill, protocol and retryable, with the error rate. */
export async function stats(ctx: CommandContext, words: string[], cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const query = queryFromWords(words);
  const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
  const db = await openDb(ctx, cmd);
  const stats = await computeStats(db, query, window, { now: ctx.now(), pseudonymizer: pseudonymizerFor(ctx, cmd, query) });
  const gaps = await listGaps(db, stats.window);
  if (g.json) {
    ctx.json({ ...stats, gaps });
    return;
  }
  const out: string[] = [`Window (UTC): ${formatUtc(stats.window.since)} to ${formatUtc(stats.window.until)}`, `Errors: ${stats.errors}`];
  if (stats.traffic) {
    out.push(
      `Calls: ${stats.traffic.requests}  errors: ${stats.traffic.errors}  retries: ${stats.traffic.retries}  error rate: ${percent(stats.traffic.errorRate)}  retry ratio: ${percent(stats.traffic.retryRatio)}`,
    );
  } else out.push('Calls: n/a (no traffic counters in this window)');
  out.push(`Retryable: true ${stats.byRetryable.true}  false ${stats.byRetryable.false}  unknown ${stats.byRetryable.unknown}`);
  const flags = Object.entries(stats.byFlag);
  out.push(`Retry flags: ${flags.length ? flags.map(([k, n]) => `${k} ${n}`).join('  ') : 'none'}`);
  out.push('', 'By code', table(['CODE', 'PROTOCOL', 'ERRORS', 'RETRYABLE', 'TERMINAL', 'UNKNOWN'], stats.byCode.map((r) => [r.key, r.protocol, ...rows([r])[0]!.slice(1)])));
  out.push('', 'By skill', table(['SKILL', 'ERRORS', 'RETRYABLE', 'TERMINAL', 'UNKNOWN'], rows(stats.bySkill)));
  out.push('', 'By protocol', table(['PROTOCOL', 'ERRORS', 'RETRYABLE', 'TERMINAL', 'UNKNOWN'], rows(stats.byProtocol)));
  // One line per gap record overlapping the window, newest first: the counts above miss these.
  if (gaps.length) out.push('', ...gaps.map(describeGap));
  ctx.out(out.join('\n'));
}
