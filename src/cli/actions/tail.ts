import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { loadClientLabels, nextErrors, searchErrors, tailCursor } from '../../triage/index.js';
import { CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { errorCells, ERROR_HEADERS, fixedRow, streamWidths } from '../format.js';
import { pseudonymizerFor, queryFromWords } from '../query-args.js';

/** `tail [query...]` (src/cli/commands/tail.ts): the last rows, then new ones until Ctrl-C or `ctx.io.signal`, never skipping a row. */
export async function tail(ctx: CommandContext, words: string[], cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const interval = Number(g['interval']);
  const lines = Number(g['lines']);
  if (!Number.isInteger(interval) || interval < 50) throw new CliError(`--interval must be an integer ≥ 50 (ms), got '${String(g['interval'])}'`, 'e.g. --interval 1000', EXIT.USAGE);
  if (!Number.isInteger(lines) || lines < 0) throw new CliError(`--lines must be a non-negative integer, got '${String(g['lines'])}'`, 'e.g. --lines 10', EXIT.USAGE);
  const query = queryFromWords(words);
  const db = await openDb(ctx, cmd);
  const options = { now: ctx.now(), pseudonymizer: pseudonymizerFor(ctx, cmd, query) };
  const labels = (await loadClientLabels(db));
  // Widths fixed up front from every value a column can hold: later rows never shift it.
  const widths = streamWidths(labels);
  const print = (rows: Awaited<ReturnType<typeof searchErrors>>['rows']): void => {
    for (const r of rows) ctx.out(g.json ? JSON.stringify(r) : fixedRow(errorCells(r, labels), widths));
  };
  const now = ctx.now();
  const first = lines > 0 ? (await searchErrors(db, query, { since: 0, until: now + 1 }, { ...options, limit: lines, skipTotal: true })).rows.reverse() : [];
  if (!g.json) ctx.out(fixedRow(ERROR_HEADERS, widths));
  print(first);
  // Mark what is already there (the lookback and any future-stamped rows) as seen, page by page.
  let mark = await nextErrors(db, query, tailCursor(now), { ...options, limit: 100_000 });
  while (mark.more) mark = await nextErrors(db, query, mark.cursor, { ...options, limit: 100_000 });
  let cursor = mark.cursor;
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  ctx.io.signal?.addEventListener('abort', onSigint, { once: true });
  try {
    while (!stop.signal.aborted) {
      // Ends early, without an error, when stopped.
      await sleep(interval, undefined, { signal: stop.signal }).catch(() => undefined);
      if (stop.signal.aborted) break;
      // Page until caught up: a burst larger than one page is printed whole, never skipped.
      let next = await nextErrors(db, query, cursor, { ...options, now: ctx.now() });
      for (;;) {
        cursor = next.cursor;
        print(next.rows);
        if (!next.more || stop.signal.aborted) break;
        next = await nextErrors(db, query, cursor, { ...options, now: ctx.now() });
      }
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
