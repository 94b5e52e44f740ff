import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { AUDIT_ALERT_DEFAULTS, deriveAlerts, loadClientLabels, parseDuration, TRACE_URL_ENV, traceUrlProblem, type AlertmanagerAlert } from '../../triage/index.js';
import { ALERTMANAGER_URL_ENV, alertmanagerUrlProblem, postAlerts, RUNBOOK_URL_ENV } from '../alertmanager.js';
import { CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';

/** Shortest --every, ms: Alertmanager needs no more, and a tighter loop only loads the store. */
const MIN_EVERY_MS = 1_000;

const count = (alerts: readonly AlertmanagerAlert[], now: number): { firing: number; resolved: number } => {
  const resolved = alerts.filter((a) => Date.parse(a.endsAt) <= now).length;
  return { firing: alerts.length - resolved, resolved };
};

/** `alerts` (src/cli/commands/alerts.ts): derives the audit-store alerts every period and posts them to Alertmanager (or prints them with --dry-run). */
export async function alerts(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const dryRun = g['dryRun'] === true;
  const once = g['once'] === true;
  const url = (g['alertmanager'] as string | undefined) ?? (ctx.io.env[ALERTMANAGER_URL_ENV] || undefined);
  if (url === undefined && !dryRun) {
    throw new CliError('alerts needs an Alertmanager URL', `pass --alertmanager http://127.0.0.1:9093, set ${ALERTMANAGER_URL_ENV}, or use --dry-run`, EXIT.USAGE);
  }
  const urlProblem = url === undefined ? null : alertmanagerUrlProblem(url);
  if (urlProblem) throw new CliError(`--alertmanager ${urlProblem}`, 'e.g. --alertmanager http://127.0.0.1:9093', EXIT.USAGE);
  const everyMs = parseDuration(String(g['every']));
  if (everyMs === undefined || everyMs < MIN_EVERY_MS) throw new CliError(`--every must be a duration of at least 1s, got '${String(g['every'])}'`, 'e.g. --every 1m', EXIT.USAGE);
  const traceUrl = ctx.io.env[TRACE_URL_ENV] || null;
  const traceProblem = traceUrl ? traceUrlProblem(traceUrl) : null;
  if (traceProblem) throw new CliError(traceProblem, null, EXIT.USAGE);
  const runbookUrl = ctx.io.env[RUNBOOK_URL_ENV] || AUDIT_ALERT_DEFAULTS.runbookUrl;
  const runbookProblem = alertmanagerUrlProblem(runbookUrl);
  if (runbookProblem) throw new CliError(`${RUNBOOK_URL_ENV} ${runbookProblem}`, null, EXIT.USAGE);
  // Opening the store is checked once, up front: a missing database is an exit-3 error, not a loop of them.
  const db = await openDb(ctx, cmd);

  const period = async (): Promise<boolean> => {
    const now = ctx.now();
    let alerts: AlertmanagerAlert[];
    try {
      alerts = await deriveAlerts(db, {
        now,
        everyMs,
        labels: await loadClientLabels(db),
        command: (rest) => ctx.commandLine(cmd, rest, { window: false }),
        traceUrl,
        runbookUrl,
      });
    } catch (error) {
      ctx.io.stderr.write(`aap-triage: alerts: cannot read the store: ${(error as Error).message.split('\n')[0]}\n`);
      return false;
    }
    const { firing, resolved } = count(alerts, now);
    if (dryRun) {
      ctx.out(JSON.stringify(alerts, null, 2));
      return true;
    }
    const problem = await postAlerts(url!, alerts);
    if (problem) {
      ctx.io.stderr.write(`aap-triage: alerts: ${problem}\n`);
      return false;
    }
    ctx.out(`${new Date(now).toISOString()} posted ${alerts.length} alert${alerts.length === 1 ? '' : 's'} (${firing} firing, ${resolved} resolved)`);
    return true;
  };

  if (once) {
    if (!(await period())) ctx.exitCode = EXIT.ENV;
    return;
  }
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigint);
  ctx.io.signal?.addEventListener('abort', onSigint, { once: true });
  try {
    while (!stop.signal.aborted) {
      await period();
      // Ends early, without an error, when stopped.
      await sleep(everyMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
  }
}
