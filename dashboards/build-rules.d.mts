// Types of dashboards/build-rules.mjs for the TypeScript tests that import it.

/** A recording rule as written to the rule file. */
export interface RecordingRule {
  record: string;
  expr: string;
}

/** An alerting rule as written to the rule file. */
export interface AlertingRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: 'critical' | 'warning' | 'info' };
  annotations: { summary: string; description: string; runbook_url: string };
}

/** The rules for `config` (default: dashboards/alerts-config.mjs). */
export function buildRules(config?: unknown): { recording: RecordingRule[]; alerts: AlertingRule[] };
/** The rule file's text for `config`. */
export function rulesYaml(config?: unknown): string;
