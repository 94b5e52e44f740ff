import type { Command } from 'commander';
import { AUDIT_ALERT_DEFAULTS } from '../../triage/alert-defaults.js';
import { TRACE_URL_ENV } from '../../triage/trace-link.js';
import { ALERTMANAGER_URL_ENV, RUNBOOK_URL_ENV } from '../alertmanager.js';
import type { CommandContext, CommandModule } from '../context.js';

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
      .action(async (_opts: unknown, cmd: Command) => (await import('../actions/alerts.js')).alerts(ctx, cmd));
  },
};
