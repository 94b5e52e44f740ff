import type { Command } from 'commander';
import { AUDIT_ALERT_DEFAULTS, deriveAlerts, loadClientLabels, parseDuration, TRACE_URL_ENV, traceUrlProblem, type AlertmanagerAlert } from '../../triage/index.js';
import { alertmanagerUrlProblem, postAlerts } from '../alertmanager.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

/** Environment variables of `alerts`. */
export const ALERTMANAGER_URL_ENV = 'AAP_TRIAGE_ALERTMANAGER_URL';
export const RUNBOOK_URL_ENV = 'AAP_TRIAGE_RUNBOOK_URL';

/** Shortest --every, ms: Alertmanager needs no more, and a tighter loop only loads the store. */
const MIN_EVERY_MS = 1_000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const count = (alerts: readonly AlertmanagerAlert[], now: number): { firing: number; resolved: number } => {
  const resolved = alerts.filter((a) => Date.parse(a.endsAt) <= now).length;
  return { firing: alerts.length - resolved, resolved };
};

/**
 * `alerts`: every period, derive the audit-store alerts (storms, dealer-side episodes, new and
 * regressed issues; src/triage/alerts.ts) and post them to Alertmanager. A failing period (store
 * or Alertmanager) is one stderr line and the loop goes on; with --once it sets exit 3.
 */
export const alertsCommand: CommandModule = {
  name: 'alerts',
  register(program: Command, ctx: CommandContext) {
    program
      .command('alerts')
      .description('post retry storms, dealer-side episodes, new and regressed issues to Alertmanager, every period until Ctrl-C')
      .option('--alertmanager <url>', `Alertmanager base URL, e.g. http://127.0.0.1:9093 (default: ${ALERTMANAGER_URL_ENV})`)
      .option('--every <duration>', 'period between evaluations (e.g. 30s, 1m, 5m)', '1m')
      .option('--once', 'evaluate and post once, then exit (exit 3 if the post or the store failed)')
      .option('--dry-run', 'print the alerts that would be posted (JSON) instead of posting them')
      .addHelpText(
        'after',
        `\nOne alert per storm or issue, labels stable across restarts (state is re-derived from the store).\n` +
          `Annotations link a trace when ${TRACE_URL_ENV} is set; runbook_url is ${RUNBOOK_URL_ENV} (default ${AUDIT_ALERT_DEFAULTS.runbookUrl}).\n` +
          'Routes for these alerts and the Prometheus rules: docs/alerts.md.',
      )
      .action(async (_opts: unknown, cmd: Command) => {
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
        const db = await ctx.openDb(cmd);

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
            await sleep(everyMs, stop.signal);
          }
        } finally {
          process.removeListener('SIGINT', onSigint);
          process.removeListener('SIGTERM', onSigint);
        }
      });
  },
};
