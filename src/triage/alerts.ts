/**
 * Audit-store alerts (issue 30, DESIGN §7a): what only the store knows — client retry storms,
 * dealer-side episodes, new and regressed issues — as Alertmanager v2 alerts, one per storm or
 * issue. Stateless by design: every period derives the whole set again from the store, so a
 * restarted `aap-triage alerts` sends the same labels and the same `startsAt` (Alertmanager keeps
 * them as the same alerts: none sent twice as new, none lost), and an episode that ended while it
 * was down is sent once more, resolved. Grouping, inhibition, silences and routing stay
 * Alertmanager's.
 */
import type { ClientLabels } from './clients.js';
import { shortClient } from './clients.js';
import { listIssues, type Issue } from './issues.js';
import type { Db } from './rows.js';
import { AUDIT_ALERT_DEFAULTS } from './alert-defaults.js';
import { findStorms, stormWhere, type StormEpisode } from './storms.js';
import { formatUtcMinute } from './time.js';
import { traceLink } from './trace-link.js';

/** An alert as Alertmanager's `POST /api/v2/alerts` takes it (times RFC 3339). */
export interface AlertmanagerAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}

/** The alert names and severities of audit-store alerts (docs/alerts.md has a section for each). */
export const AUDIT_ALERTS = Object.freeze({
  clientStorm: { alertname: 'AapTriageClientRetryStorm', severity: 'warning' },
  /** The dealer's own faults retried by the book: its on-call is paged, never the partner. */
  dealerEpisode: { alertname: 'AapTriageDealerFaultEpisode', severity: 'critical' },
  newIssue: { alertname: 'AapTriageNewIssue', severity: 'warning' },
  regressedIssue: { alertname: 'AapTriageIssueRegressed', severity: 'warning' },
} as const);

/** What {@link deriveAlerts} needs besides the store. */
export interface AlertContext {
  /** The clock, epoch ms. */
  now: number;
  /** The period between evaluations, ms: a holding alert's `endsAt` is renewed to now + 4 periods (as Prometheus does). */
  everyMs: number;
  /** Labels by client pseudonym (`loadClientLabels`). */
  labels: ClientLabels;
  /** Builds a runnable command line for an annotation from its arguments (e.g. `draft --storm <id>`). */
  command: (rest: string) => string;
  /** Trace-link template (`AAP_TRIAGE_TRACE_URL`), or null. */
  traceUrl: string | null;
  /** Default {@link AUDIT_ALERT_DEFAULTS}.runbookUrl. */
  runbookUrl?: string;
  /** Default {@link AUDIT_ALERT_DEFAULTS}.lookbackMs. */
  lookbackMs?: number;
  /** Default {@link AUDIT_ALERT_DEFAULTS}.holdMs. */
  holdMs?: number;
}

/**
 * The one place the "is muted" check goes: an issue the operator muted is never alerted
 * (DESIGN §7a), while its mute holds (issue 29: until a time, a count, or forever; releases.ts).
 */
export function isMuted(issue: Pick<Issue, 'status'>): boolean {
  return issue.status === 'muted';
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** startsAt/endsAt of something that started at `start` and was last active at `last`. */
function times(start: number, last: number, ctx: AlertContext): { startsAt: string; endsAt: string } {
  const hold = ctx.holdMs ?? AUDIT_ALERT_DEFAULTS.holdMs;
  // Holding: endsAt in the future, renewed each period. Over: endsAt when it ended, in the past,
  // which Alertmanager takes as resolved.
  const holds = ctx.now < last + hold;
  return { startsAt: iso(start), endsAt: iso(holds ? ctx.now + 4 * ctx.everyMs : Math.max(start, last)) };
}

function runbook(alertname: string, ctx: AlertContext): string {
  return `${ctx.runbookUrl ?? AUDIT_ALERT_DEFAULTS.runbookUrl}#${alertname.toLowerCase()}`;
}

/** The client as a label value: its operator-given label name, else its pseudonym prefix (never a caller-sent id). */
function clientLabel(client: string, labels: ClientLabels): string {
  return labels.get(client)?.name ?? shortClient(client);
}

/**
 * One storm episode as one alert: `AapTriageClientRetryStorm`, or `AapTriageDealerFaultEpisode`
 * when the episode's `cause` is `dealer` (storm-detect.ts `stormCause`). Labels: alertname, severity, service, storm_id, client.
 * Pure.
 */
export function stormAlert(storm: StormEpisode, services: readonly string[], ctx: AlertContext): AlertmanagerAlert {
  const cause = storm.cause;
  const kind = cause === 'dealer' ? AUDIT_ALERTS.dealerEpisode : AUDIT_ALERTS.clientStorm;
  const client = clientLabel(storm.client, ctx.labels);
  const codes = storm.codes.slice(0, 3).map((c) => c.code).join(', ') || 'no error code';
  const skills = storm.skills.join(', ') || 'unknown skill';
  const ratio = `${Math.round(storm.retryRatio * 100)} %`;
  const trace = traceLink(ctx.traceUrl, storm.samples.find((s) => s.trace_id)?.trace_id ?? null);
  const annotations: Record<string, string> = {
    summary:
      cause === 'dealer'
        ? `Dealer-side episode: ${client} retries ${codes} by the book on ${skills} since ${formatUtcMinute(storm.start)}`
        : `Retry storm from ${client} on ${skills} since ${formatUtcMinute(storm.start)}`,
    description:
      `${storm.retries} retries of ${storm.requests} calls (${ratio}), ${storm.errors} errors (${codes}), ` +
      `peak ${storm.peakPerMinute} calls a minute, from ${formatUtcMinute(storm.start)} to ${formatUtcMinute(storm.end)}.`,
    command: ctx.command(`storms --since ${iso(storm.start)}`),
    draft: ctx.command(`draft --storm ${storm.id}`),
    runbook_url: runbook(kind.alertname, ctx),
  };
  if (trace) annotations.trace = trace;
  return {
    labels: { alertname: kind.alertname, severity: kind.severity, service: services.join(','), storm_id: storm.id, client },
    annotations,
    ...times(storm.start, storm.end, ctx),
    generatorURL: trace ?? annotations.runbook_url!,
  };
}

/**
 * One new or regressed issue as one alert (`AapTriageNewIssue`, `AapTriageIssueRegressed`);
 * null for an ongoing, muted or resolved one. A resolved issue alerts only once it regressed by
 * release (its `state` is then `regressed`, from its `regressed_at`): rows of older versions
 * still running never alert it (issue 29). Labels: alertname, severity, service, protocol, code,
 * issue_key. Pure.
 */
export function issueAlert(issue: Issue, ctx: AlertContext): AlertmanagerAlert | null {
  if (isMuted(issue) || issue.status === 'resolved') return null;
  const kind = issue.state === 'new' ? AUDIT_ALERTS.newIssue : issue.state === 'regressed' ? AUDIT_ALERTS.regressedIssue : null;
  if (!kind) return null;
  const start = issue.state === 'new' ? issue.first_seen_ever : (issue.regressed_at ?? issue.first_seen);
  const trace = traceLink(ctx.traceUrl, issue.last_trace_id);
  const annotations: Record<string, string> = {
    summary: `${issue.state === 'new' ? 'New issue' : 'Issue regressed'}: ${issue.title}`,
    description:
      `${issue.count} errors from ${issue.clients} client${issue.clients === 1 ? '' : 's'} ` +
      `${issue.state === 'new' ? 'since it was first seen' : 'since it came back'} at ${formatUtcMinute(start)}; last ${formatUtcMinute(issue.last_seen)} (${issue.last_error_id})` +
      (issue.status === 'regressed' ? `; it was resolved${issue.operator_state?.resolved_in ? ` in ${issue.operator_state.resolved_in}` : ''} and came back in ${issue.regressed_in ?? 'a row without a version'}.` : '.'),
    command: ctx.command(`search issue:${issue.key}`),
    draft: ctx.command(`draft --query issue:${issue.key}`),
    runbook_url: runbook(kind.alertname, ctx),
  };
  if (trace) annotations.trace = trace;
  return {
    labels: { alertname: kind.alertname, severity: kind.severity, service: issue.service, protocol: issue.protocol, code: issue.code, issue_key: issue.key },
    annotations,
    ...times(start, issue.last_seen, ctx),
    generatorURL: trace ?? annotations.runbook_url!,
  };
}

/** The services a storm's errors came from, sorted (a storm is per client, across services). */
async function stormServices(db: Db, storm: StormEpisode): Promise<string[]> {
  const { where, params } = stormWhere(storm);
  const rows = await db.all<{ service: string }>(`SELECT DISTINCT service FROM error_events WHERE ${where} ORDER BY service`, params);
  return rows.map((r) => r.service);
}

/**
 * Every audit-store alert at `ctx.now`: one per storm episode and one per new or regressed issue
 * seen within the lookback, firing while it holds and resolved (endsAt in the past) once it is
 * over. Read-only; throws what the store throws.
 */
export async function deriveAlerts(db: Db, ctx: AlertContext): Promise<AlertmanagerAlert[]> {
  const window = { since: ctx.now - (ctx.lookbackMs ?? AUDIT_ALERT_DEFAULTS.lookbackMs), until: ctx.now + 1 };
  const out: AlertmanagerAlert[] = [];
  for (const storm of await findStorms(db, window)) out.push(stormAlert(storm, await stormServices(db, storm), ctx));
  const issues = await listIssues(db, { window, now: ctx.now, sort: 'first_seen' });
  for (const issue of issues.issues) {
    const alert = issueAlert(issue, ctx);
    if (alert) out.push(alert);
  }
  return out;
}
