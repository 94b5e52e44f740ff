#!/usr/bin/env node
// Builds dashboards/aap-triage-overview.json, the Grafana dashboard over aap-triage's metrics
// (issue 8). The JSON is what ships and what users import; this file is how it is written, so
// queries, thresholds and descriptions are reviewed as code and every panel gets the same
// datasource reference.
//
//   node dashboards/build-overview.mjs           rewrite the JSON
//   node dashboards/build-overview.mjs --check   exit 1 if the JSON differs from what this builds
//
// Metric names are the golden-scrape names (test/dashboards/golden-scrape.test.ts, docs/dashboards.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALERTS_CONFIG } from './alerts-config.mjs';

const OUT = fileURLToPath(new URL('./aap-triage-overview.json', import.meta.url));
// grafana/dashboard-linter's exclusions file, beside the dashboard (JSON is valid YAML).
const LINT_OUT = fileURLToPath(new URL('./.lint', import.meta.url));
const DS = { type: 'prometheus', uid: '${datasource}' };
// Every selector carries the job and instance matchers (grafana/dashboard-linter's
// target-job-rule and target-instance-rule); the job is the service (docs/dashboards.md).
const SVC = 'job=~"$job", instance=~"$instance"';
const CALL = `${SVC}, aap_protocol=~"$protocol", aap_skill=~"$skill"`;
const PROTO = `${SVC}, aap_protocol=~"$protocol"`;
// The SDK Prometheus exporter writes rpc_server_call_duration_*; the Collector / Prometheus OTLP
// path appends the unit (rpc_server_call_duration_seconds_*). One selector matches both.
const dur = (suffix, extra = CALL) => `{__name__=~"rpc_server_call_duration(_seconds)?_${suffix}", rpc_system_name="jsonrpc", ${extra}}`;
const RI = '$__rate_interval';
// Prometheus 3 stores classic-histogram bucket bounds as floats: the exporter's le="1" is kept as
// le="1.0" (prometheus/prometheus docs/migration.md, "le and quantile label values"); Prometheus 2
// keeps "1". Every le matcher, and every override on a bucket's name, accepts both spellings.
// `[.]` rather than `\\.`: no escapes to get wrong through JSON and PromQL strings.
const LE_FIRST = 'le=~"1|1[.]0"';
/** Grafana field-name regexp matching bucket `n` as Prometheus 2 (`4`) and 3 (`4.0`) name it. */
const leName = (n) => (n === '+Inf' ? '^[+]Inf$' : `^${n}([.]0)?$`);
/** Calls that ended in an error: the duration histogram's error.type is set on errors only (semconv RPC). */
const ERR = 'error_type!=""';
let nextId = 1;
const refIds = 'ABCDEFGH';
function target(expr, legendFormat, i, extra = {}) {
  return { datasource: DS, refId: refIds[i], expr, legendFormat, range: true, instant: false, editorMode: 'code', ...extra };
}
function ts({ title, description, unit, targets, gridPos, overrides = [], thresholds, stack = false, min = 0, max, decimals }) {
  const defaults = {
    unit, min,
    color: { mode: 'palette-classic' },
    custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: stack ? 30 : 10, showPoints: 'never', spanNulls: false,
      stacking: { mode: stack ? 'normal' : 'none', group: 'A' }, axisSoftMin: 0,
      thresholdsStyle: { mode: thresholds ? 'line+area' : 'off' } },
    thresholds: thresholds ?? { mode: 'absolute', steps: [{ color: 'green', value: null }] },
  };
  if (max !== undefined) defaults.max = max;
  if (decimals !== undefined) defaults.decimals = decimals;
  return {
    id: nextId++, type: 'timeseries', title, description, datasource: DS, gridPos,
    fieldConfig: { defaults, overrides },
    options: { legend: { displayMode: 'table', placement: 'right', calcs: ['mean', 'max', 'lastNotNull'], showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets: targets.map((t, i) => target(t[0], t[1], i, t[2])),
  };
}
function stat({ title, description, unit, targets, gridPos, thresholds, decimals }) {
  const defaults = { unit, color: { mode: 'thresholds' }, thresholds };
  if (decimals !== undefined) defaults.decimals = decimals;
  return {
    id: nextId++, type: 'stat', title, description, datasource: DS, gridPos,
    fieldConfig: { defaults, overrides: [] },
    options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'background', graphMode: 'area', textMode: 'auto', justifyMode: 'auto', orientation: 'auto' },
    targets: targets.map((t, i) => target(t[0], t[1], i, t[2])),
  };
}
function row(title, y) {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] };
}
const colorOverride = (name, color, matcher = 'byName') => ({ matcher: { id: matcher, options: name }, properties: [{ id: 'color', value: { mode: 'fixed', fixedColor: color } }] });
const steps = (...s) => ({ mode: 'absolute', steps: s.map(([color, value]) => ({ color, value })) });

const panels = [];
let y = 0;
panels.push(row('Errors', y)); y += 1;
panels.push(stat({
  title: 'Error ratio', unit: 'percentunit', decimals: 1, gridPos: { h: 8, w: 4, x: 0, y },
  description: 'Share of JSON-RPC calls answered with an error (HTTP-200 JSON-RPC errors, DMC-12 errors inside a result and failed tasks included), over the selected services, protocols and skills: calls of the rpc.server.call.duration histogram that carry error.type, divided by all its calls. Red (above 5 %): open "Error rate by code" to see which code grew, then run `aap-triage search` for that code to get error_id + trace_id pairs.',
  thresholds: steps(['green', null], ['orange', 0.01], ['red', ALERTS_CONFIG.errorRatio.threshold]),
  // One histogram for numerator and denominator, so both come from the same calls.
  // `or vector(0)`: a service that has never failed has no error series; show 0 %, not "No data".
  targets: [[`(sum(rate(${dur('count', `${CALL}, ${ERR}`)}[${RI}])) or vector(0)) / sum(rate(${dur('count')}[${RI}]))`, 'error ratio']],
}));
panels.push(ts({
  title: 'Error rate by code', unit: 'cps', gridPos: { h: 8, w: 10, x: 4, y }, stack: true,
  description: 'Errors per second, by domain error code (AAP or DMC-12 code, A2A reason, or the JSON-RPC code when there is no domain code). Red means one code climbs: a code the server chose (VEHICLE_NOT_FOUND, RATE_LIMITED) usually points at a client; INTERNAL_ERROR, UPSTREAM_UNAVAILABLE or -32603 point at the server or its dependencies. Run `aap-triage search code:<code>` for samples and `aap-triage storms` to see whether one client drives it.',
  targets: [[`sum by (aap_error_code) (rate(aap_server_errors_total{${CALL}}[${RI}]))`, '{{aap_error_code}}']],
}));
panels.push(ts({
  title: 'Retryable vs terminal errors', unit: 'cps', gridPos: { h: 8, w: 10, x: 14, y }, stack: true,
  description: 'Errors per second split by what the response told the caller: retryable (retryable=true), terminal (retryable=false) or unknown (the envelope carried no retryable flag, e.g. A2A protocol errors). Red retryable means the server or a dependency is failing: check upstream health and capacity. Red terminal means clients send requests that can never succeed: find the client with `aap-triage storms` and send it the incident draft.',
  overrides: [colorOverride('retryable', 'orange'), colorOverride('terminal', 'red'), colorOverride('unknown', 'purple')],
  targets: [[
    `sum by (kind) (label_replace(label_replace(label_replace(sum by (aap_error_retryable) (rate(aap_server_errors_total{${CALL}}[${RI}])), "kind", "retryable", "aap_error_retryable", "true"), "kind", "terminal", "aap_error_retryable", "false"), "kind", "unknown", "aap_error_retryable", ""))`,
    '{{kind}}']],
}));
y += 8;
panels.push(ts({
  title: 'Errors by skill', unit: 'cps', gridPos: { h: 8, w: 24, x: 0, y }, stack: true,
  description: 'Errors per second by protocol and skill (AAP skill such as inventory.search, or DMC-12 tool such as create_reservation). An empty skill means the call named no known skill (unknown method, unparsable body). Red on one skill: look at that skill\'s codes in "Error rate by code" with the skill variable set, and at its recent deploys; red on every skill at once points at shared infrastructure (auth, upstream, audit store).',
  targets: [[`sum by (aap_protocol, aap_skill) (rate(aap_server_errors_total{${CALL}}[${RI}]))`, '{{aap_protocol}} {{aap_skill}}']],
}));
y += 8;
panels.push(row('Latency', y)); y += 1;
panels.push(ts({
  title: 'Call duration p50 / p95 / p99', unit: 's', gridPos: { h: 8, w: 24, x: 0, y },
  description: 'Server-side duration of JSON-RPC calls, seconds, as quantiles estimated from the rpc.server.call.duration histogram (errors included). Red (p99 above 2.5 s): split by skill with the skill variable; slow errors usually mean a dependency timing out, so check UPSTREAM_UNAVAILABLE in "Error rate by code"; slow successes mean capacity, so check CPU and the audit queue below.',
  thresholds: steps(['green', null], ['orange', 1], ['red', 2.5]),
  targets: [0.5, 0.95, 0.99].map((q) => [`histogram_quantile(${q}, sum by (le) (rate(${dur('bucket')}[${RI}])))`, `p${Math.round(q * 100)}`]),
}));
y += 8;
panels.push(ts({
  title: 'Call duration p95 by method', unit: 's', gridPos: { h: 8, w: 12, x: 0, y },
  description: 'Server-side p95 duration of JSON-RPC calls, seconds, per rpc.method (SendMessage, tools/call, GetTask, …; _OTHER for methods outside the known set), from the rpc.server.call.duration histogram. Red (above 2.5 s) on one method only: that method\'s handler or its dependency is slow, so set the skill variable to see which skill; red on every method points at the host (CPU, event-loop stalls, the audit queue).',
  thresholds: steps(['green', null], ['orange', 1], ['red', 2.5]),
  targets: [[`histogram_quantile(0.95, sum by (le, rpc_method) (rate(${dur('bucket')}[${RI}])))`, '{{rpc_method}}']],
}));
panels.push(ts({
  title: 'Error ratio by method', unit: 'percentunit', gridPos: { h: 8, w: 12, x: 12, y }, max: 1,
  description: 'Share of calls answered with an error, per rpc.method, from the rpc.server.call.duration histogram: calls with error.type (the JSON-RPC code of an error member, or the DMC-12 code of an error inside a result) divided by all calls of that method. Red (above 5 %): open "Error rate by code" with the same filters to see which code, then `aap-triage search` for samples; a method that is 100 % errors is often one the server does not implement (-32601).',
  thresholds: steps(['green', null], ['orange', 0.01], ['red', 0.05]),
  targets: [[`(sum by (rpc_method) (rate(${dur('count', `${CALL}, ${ERR}`)}[${RI}])) or (0 * sum by (rpc_method) (rate(${dur('count')}[${RI}])))) / sum by (rpc_method) (rate(${dur('count')}[${RI}]))`, '{{rpc_method}}']],
}));
y += 8;
panels.push(row('Retries', y)); y += 1;
panels.push(ts({
  title: 'Retry ratio', unit: 'percentunit', gridPos: { h: 8, w: 8, x: 0, y }, max: 1,
  description: 'Share of calls that were retries of an earlier call (attempt 2 or later: same client and request fingerprint, or same idempotency key, within the retry window). The dashed lines are the retry budgets of the storm rule: 10 % (Google SRE) and 20 % (Envoy, Finagle; the storm threshold). Red: a retry storm is likely; run `aap-triage storms` to find the client and `aap-triage incident` to draft the email.',
  thresholds: steps(['green', null], ['orange', 0.1], ['red', 0.2]),
  // From the attempts histogram, not aap_server_retries_total: that counter adds once per flag,
  // so a retry with two flags would count twice.
  targets: [[`1 - sum(rate(aap_server_request_attempts_bucket{${CALL}, ${LE_FIRST}}[${RI}])) / sum(rate(aap_server_request_attempts_count{${CALL}}[${RI}]))`, 'retry ratio']],
}));
panels.push(ts({
  title: 'Amplification (attempts per distinct request)', unit: 'none', decimals: 2, gridPos: { h: 8, w: 8, x: 8, y }, min: 1,
  description: 'Calls divided by first attempts: how many times, on average, each distinct request reached the server. 1.0 means no retries. Red (1.5 or more for two minutes) is the amplification storm rule: clients are multiplying load, typically retrying without backoff after RATE_LIMITED or UPSTREAM_UNAVAILABLE. Run `aap-triage storms` and check the clients\' backoff.',
  thresholds: steps(['green', null], ['orange', 1.2], ['red', ALERTS_CONFIG.amplification.threshold]),
  targets: [[`sum(rate(aap_server_request_attempts_count{${CALL}}[${RI}])) / sum(rate(aap_server_request_attempts_bucket{${CALL}, ${LE_FIRST}}[${RI}]))`, 'attempts per request']],
}));
panels.push({
  id: nextId++, type: 'bargauge', title: 'Attempts histogram',
  description: 'Calls in the selected time range by attempt number (1 = first attempt, 2 = first retry, … +Inf = beyond the 5th attempt, the gRPC attempt cap). Healthy traffic is almost all in bucket 1. Red (bars at 4, 5 or +Inf) means clients keep retrying far past the cap: find them with `aap-triage storms` and check whether the answers they retry are retryable at all.',
  datasource: DS, gridPos: { h: 8, w: 8, x: 16, y },
  fieldConfig: { defaults: { unit: 'short', min: 0, decimals: 0, color: { mode: 'thresholds' }, thresholds: steps(['green', null]) },
    overrides: [['4', 'orange'], ['5', 'red'], ['+Inf', 'red']].map(([n, c]) => colorOverride(leName(n), c, 'byRegexp')) },
  options: { orientation: 'horizontal', displayMode: 'gradient', showUnfilled: true, reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, valueMode: 'color', namePlacement: 'left' },
  targets: [target(`sum by (le) (increase(aap_server_request_attempts_bucket{${CALL}}[$__range]))`, '{{le}}', 0, { format: 'heatmap', range: false, instant: true })],
});
y += 8;
panels.push(ts({
  title: 'Retry violations by flag', unit: 'cps', gridPos: { h: 8, w: 24, x: 0, y }, stack: true,
  description: 'Retries per second that broke a retry rule, by flag (a retry that breaks two rules counts once under each): retried_non_retryable (the previous answer said retryable=false), ignored_retry_after (sent before retry_after_ms elapsed), no_backoff (sooner than capped exponential backoff, ~1 s · 2^(n−1)). Plain retries (flag none) are left out. Red: a client misbehaves; `aap-triage storms` names it and `aap-triage incident` drafts the email with the spec\'s recommended client action.',
  overrides: [colorOverride('retried_non_retryable', 'red'), colorOverride('ignored_retry_after', 'orange'), colorOverride('no_backoff', 'yellow')],
  targets: [[`sum by (aap_retry_flag) (rate(aap_server_retries_total{${CALL}, aap_retry_flag!="none"}[${RI}]))`, '{{aap_retry_flag}}']],
}));
y += 8;
panels.push(row('Conformance', y)); y += 1;
panels.push(ts({
  title: 'Conformance violations by rule', unit: 'cps', gridPos: { h: 8, w: 24, x: 0, y }, stack: true,
  description: 'Error envelopes per second that break a rule of the AAP or DMC-12 error contract, by rule id (for example a skill failure hidden in a successful result with a failed task, a missing error_id, a wrong JSON-RPC code for the domain code). Buyers cannot act on a non-conformant error. Red: look up the rule in docs/instrumentation.md, find the handler that builds that envelope, and use the builders from aap-triage/protocol (or throw AapError) instead of hand-written errors.',
  targets: [[`sum by (aap_protocol, aap_conformance_rule) (rate(aap_conformance_violations_total{${PROTO}}[${RI}]))`, '{{aap_protocol}} {{aap_conformance_rule}}']],
}));
y += 8;
panels.push(row('Audit pipeline', y)); y += 1;
panels.push(ts({
  title: 'Audit records written, dropped and failed', unit: 'cps', gridPos: { h: 8, w: 10, x: 0, y },
  description: 'Audit records per second by outcome: written (committed to the audit store), dropped (the bounded queue was full) and failed (the write raised an error). Every error event should be written. Red (any dropped or failed): the audit log has gaps (listed in the audit_gaps table); check disk space and permissions of the database file, whether another process holds the write lock, and the queue size panel; raise the queue bound only after fixing the writer.',
  overrides: [colorOverride('written', 'green'), colorOverride('dropped', 'orange'), colorOverride('failed', 'red')],
  targets: [[`sum by (aap_audit_outcome) (rate(aap_audit_records_total{${SVC}}[${RI}]))`, '{{aap_audit_outcome}}']],
}));
panels.push(stat({
  title: 'Audit records lost', unit: 'short', decimals: 0, gridPos: { h: 8, w: 4, x: 10, y },
  description: 'Audit records dropped or failed in the selected time range (0 when none). Anything above 0 is red: those errors are counted in the metrics but missing from the audit log, so searches and incident drafts will not show them. Follow the steps of "Audit records written, dropped and failed".',
  thresholds: steps(['green', null], ['red', 1]),
  targets: [[`sum(increase(aap_audit_records_total{${SVC}, aap_audit_outcome=~"dropped|failed"}[$__range])) or vector(0)`, 'lost', { range: false, instant: true }]],
}));
panels.push(ts({
  title: 'Audit queue size', unit: 'short', decimals: 0, gridPos: { h: 8, w: 10, x: 14, y },
  description: 'Audit records waiting in each process\'s in-memory queue for the writer thread. It should stay near zero and drain after bursts. Red (a steady climb, or 80 % of the default bound of 10 000, where AapTriageAuditQueueNearBound fires): the writer cannot keep up — check disk latency and WAL size of the audit database and whether several processes contend for its write lock; when the queue reaches its bound, records are dropped.',
  thresholds: steps(['green', null], ['orange', 1000], ['red', ALERTS_CONFIG.auditQueue.queueLimit * ALERTS_CONFIG.auditQueue.fraction]),
  targets: [[`sum by (instance) (aap_audit_queue_size{${SVC}})`, '{{instance}}']],
}));
y += 8;
panels.push(row('Alerts', y)); y += 1;
const FIRING_ALERTS = 'Firing alerts';
panels.push(ts({
  title: FIRING_ALERTS, unit: 'short', decimals: 0, gridPos: { h: 8, w: 24, x: 0, y }, stack: true,
  description: 'The Prometheus alerts of dashboards/aap-triage-rules.yml that are firing, by alert, severity and service (Prometheus\'s own ALERTS series; empty when the rules are not loaded or nothing fires). Red (any critical line): audit records lost or a dealer agent not scraped; open the alert\'s section in docs/alerts.md (its runbook_url) for what it means and the aap-triage commands to run. Audit-store alerts (retry storms, new issues) go to Alertmanager from `aap-triage alerts` and are not shown here.',
  overrides: [colorOverride('.*critical.*', 'red', 'byRegexp'), colorOverride('.*warning.*', 'orange', 'byRegexp'), colorOverride('.*info.*', 'blue', 'byRegexp')],
  targets: [[`sum by (alertname, severity, job) (ALERTS{alertstate="firing", alertname=~"AapTriage.*", job=~"$job"})`, '{{alertname}} {{severity}} {{job}}']],
}));

// job and instance match `.+` for All (grafana/dashboard-linter's template-job-rule and
// template-instance-rule): every series has both. protocol and skill keep `.*`: skill is absent
// on calls that named none.
const varQuery = (name, label, query, description, allValue = '.*') => ({
  name, label, description, type: 'query', datasource: DS,
  query,
  definition: query, refresh: 2, includeAll: true, multi: true, allValue,
  current: { selected: true, text: ['All'], value: ['$__all'] }, options: [], regex: '', sort: 1, hide: 0,
});
// What the JSON needs, as Grafana's own export lists it (Dashboards → Export): the import screen
// warns when one is missing. No __inputs: the datasource is a template variable.
const usedPanels = [...new Set(panels.filter((p) => p.type !== 'row').map((p) => p.type))].sort();
const PANEL_NAMES = { bargauge: 'Bar gauge', stat: 'Stat', timeseries: 'Time series' };
const requires = [
  { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.4.0' },
  { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
  ...usedPanels.map((id) => ({ type: 'panel', id, name: PANEL_NAMES[id], version: '' })),
];
const dashboard = {
  __requires: requires,
  uid: 'aap-triage-overview',
  title: 'aap-triage — dealer agent errors, retries and audit',
  description: 'Errors, latency, retries, conformance and audit-pipeline health of dealer agents instrumented with aap-triage. Metric names are those of the OpenTelemetry Prometheus exporter; the OTLP → Collector → Prometheus names also match (see docs/dashboards.md).',
  tags: ['aap-triage', 'jsonrpc', 'aap', 'dmc12', 'opentelemetry'],
  editable: true, graphTooltip: 1, liveNow: false, refresh: '30s', timezone: 'utc', fiscalYearStartMonth: 0,
  schemaVersion: 39, version: 1, weekStart: '',
  time: { from: 'now-1h', to: 'now' }, timepicker: {},
  links: [],
  annotations: { list: [{ builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true, iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts', type: 'dashboard' }] },
  templating: { list: [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', regex: '', hide: 0, includeAll: false, multi: false, refresh: 1, current: {}, options: [],
      description: 'Prometheus data source that scrapes (or receives) the dealer agents\' metrics.' },
    varQuery('job', 'Job', `label_values({__name__=~"rpc_server_call_duration(_seconds)?_count", rpc_system_name="jsonrpc"}, job)`,
      'The dealer agent\'s service: the Prometheus scrape job name when Prometheus scrapes the exporter, service.name (with its namespace) when metrics arrive over OTLP.', '.+'),
    varQuery('instance', 'Instance', `label_values({__name__=~"rpc_server_call_duration(_seconds)?_count", rpc_system_name="jsonrpc", job=~"$job"}, instance)`,
      'One process of the service (host:port of its metrics endpoint).', '.+'),
    varQuery('protocol', 'Protocol', `label_values({__name__=~"rpc_server_call_duration(_seconds)?_count", rpc_system_name="jsonrpc", ${SVC}}, aap_protocol)`,
      'Protocol family of the call: aap, a2a, dmc12 or jsonrpc.'),
    varQuery('skill', 'Skill', `label_values({__name__=~"rpc_server_call_duration(_seconds)?_count", rpc_system_name="jsonrpc", ${SVC}, aap_protocol=~"$protocol"}, aap_skill)`,
      'AAP skill or DMC-12 tool. Conformance and audit panels are not split by skill.'),
  ] },
  panels,
};
// The rules of grafana/dashboard-linter this dashboard does not follow, where, and why.
const lint = {
  exclusions: {
    'target-instance-rule': {
      reason: 'ALERTS carries instance only for per-process alerts; a matcher would hide the per-service ones.',
      entries: [{ dashboard: dashboard.title, panel: FIRING_ALERTS }],
    },
  },
};
const outputs = [[OUT, JSON.stringify(dashboard, null, 2) + '\n'], [LINT_OUT, JSON.stringify(lint, null, 2) + '\n']];
if (process.argv.includes('--check')) {
  for (const [path, text] of outputs) {
    let old = null;
    try {
      old = readFileSync(path, 'utf8');
    } catch {
      // missing: out of date
    }
    if (old !== text) {
      console.error(`${path} is out of date: run node dashboards/build-overview.mjs`);
      process.exit(1);
    }
  }
} else {
  for (const [path, text] of outputs) writeFileSync(path, text);
}
