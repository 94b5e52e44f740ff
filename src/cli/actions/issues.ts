import type { Command } from 'commander';
import { formatUtc, ISSUE_SORTS, listIssues, type IssueSort } from '../../triage/index.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { retryableText, sparkline, table } from '../format.js';
import { pseudonymizerFor, queryFromWords } from '../query-args.js';
import { checkIssuesFirstWord } from './issue-states.js';

/** `issues [query...]` (src/cli/commands/issues.ts): the errors of the window grouped into issues. */
export async function issues(ctx: CommandContext, words: string[], cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const sort = String(g['sort']);
  if (!(ISSUE_SORTS as readonly string[]).includes(sort)) throw new CliError(`--sort must be one of ${ISSUE_SORTS.join(', ')}, got '${sort}'`, 'e.g. --sort last_seen', EXIT.USAGE);
  checkIssuesFirstWord(words[0], ctx, cmd);
  const query = queryFromWords(words);
  const window = ctx.window(cmd, DEFAULT_WINDOW_MS);
  const db = (await openDb(ctx, cmd));
  const list = (await listIssues(db, {
    window,
    sort: sort as IssueSort,
    query,
    limit: ctx.limit(cmd, 1000),
    now: ctx.now(),
    pseudonymizer: pseudonymizerFor(ctx, cmd, query),
    includeProbe: g['includeProbe'] === true,
  }));
  if (g.json) {
    ctx.json(list);
    return;
  }
  if (list.issues.length === 0) {
    ctx.note(`no issues between ${formatUtc(list.window.since)} and ${formatUtc(list.window.until)} (UTC)`);
    return;
  }
  ctx.out(
    table(
      ['KEY', 'STATE', 'ERRORS', 'CLIENTS', 'RETRYABLE', 'FIRST SEEN (UTC)', 'LAST SEEN (UTC)', 'TREND', 'ISSUE'],
      list.issues.map((i) => [
        i.key,
        i.status === 'resolved' || i.status === 'muted' ? i.status : i.state,
        String(i.count),
        String(i.clients),
        retryableText(i.retryable),
        formatUtc(i.first_seen),
        formatUtc(i.last_seen),
        sparkline(i.trend, 24),
        i.title + versionRange(i.first_seen_version, i.last_seen_version),
      ]),
    ),
  );
  ctx.out(`${list.issues.length} of ${list.total} issue${list.total === 1 ? '' : 's'}; list one's errors with: ${ctx.commandLine(cmd, 'search issue:<KEY>')}`);
}

/** ` · 1.4.0–1.5.0` (first-seen to last-seen version), ` · 1.4.0` when both are one, '' when neither is known. */
function versionRange(first: string | null, last: string | null): string {
  if (first === null && last === null) return '';
  return ` · ${first === last || first === null || last === null ? (last ?? first) : `${first}–${last}`}`;
}
