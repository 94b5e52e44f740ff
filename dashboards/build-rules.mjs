#!/usr/bin/env node
// Builds dashboards/aap-triage-rules.yml: the Prometheus recording and alerting rules that ship
// beside the dashboard (issue 30), from the one config in dashboards/alerts-config.mjs. Written
// the way dashboards/build-overview.mjs writes the dashboard, so every expression is reviewed as
// code. Tests: dashboards/aap-triage-rules.test.yml (`promtool test rules`, run by
// test/dashboards/rules.test.ts), and the rules loaded into a real Prometheus scraping the demo
// (test/dashboards/prometheus.test.ts).
//
//   node dashboards/build-rules.mjs           rewrite the YAML
//   node dashboards/build-rules.mjs --check   exit 1 if the YAML differs from what this builds
//
// Names follow the Prometheus convention for recording rules, `level:metric:operations`
// (prometheus.io/docs/practices/rules), and the monitoring-mixins one for alerts: CamelCase with
// a product prefix, a `severity` label, `summary` fixed, `description` templated, `runbook_url`.
// Metric names are the golden-scrape names (test/dashboards/golden-scrape.test.ts), plus `up`,
// which Prometheus itself writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALERTS_CONFIG } from './alerts-config.mjs';

const OUT = fileURLToPath(new URL('./aap-triage-rules.yml', import.meta.url));

/**
 * The rules for `config`: `{ recording, alerts }`, each an array of Prometheus rule objects
 * (`record`/`alert`, `expr`, …). Exported for the tests, which evaluate the same expressions.
 */
export function buildRules(config = ALERTS_CONFIG) {
  const SEL = config.selector;
  const W = config.rateWindow;
  // The SDK exporter writes rpc_server_call_duration_count, the Collector / Prometheus OTLP path
  // rpc_server_call_duration_seconds_count: one selector for both (as the dashboard does).
  const calls = (extra = '') => `{__name__=~"rpc_server_call_duration(_seconds)?_count", rpc_system_name="jsonrpc", ${SEL}${extra}}`;
  // Bucket bounds are "1" on Prometheus 2 and "1.0" on Prometheus 3 (docs/dashboards.md).
  const FIRST = 'le=~"1|1[.]0"';
  const faults = `aap_server_errors_total{aap_error_code=~"${config.serverFaultCodes.join('|')}", ${SEL}}`;
  const name = {
    errorRatioByMethod: `job_rpc_method:rpc_server_call_errors_per_calls:ratio_rate${W}`,
    errorRatio: `job:rpc_server_call_errors_per_calls:ratio_rate${W}`,
    faults: `job:aap_server_faults:rate${W}`,
    faults1h: 'job:aap_server_faults:rate1h',
    retryRatio: `job:aap_server_request_attempts_retries_per_attempts:ratio_rate${W}`,
    amplification: `job:aap_server_request_attempts_per_first_attempt:ratio_rate${W}`,
    audit: `job_aap_audit_outcome:aap_audit_records:rate${W}`,
    conformance: `job_aap_conformance_rule:aap_conformance_violations:rate${W}`,
  };
  // A ratio of errors to calls that is 0, not absent, for a service that has calls but no errors.
  const errorRatio = (by) =>
    `(sum by (${by}) (rate(${calls(', error_type!=""')}[${W}])) or 0 * sum by (${by}) (rate(${calls()}[${W}]))) / sum by (${by}) (rate(${calls()}[${W}]))`;
  const recording = [
    { record: name.errorRatioByMethod, expr: errorRatio('job, rpc_method') },
    { record: name.errorRatio, expr: errorRatio('job') },
    { record: name.faults, expr: `sum by (job) (rate(${faults}[${W}]))` },
    { record: name.faults1h, expr: `sum by (job) (rate(${faults}[1h]))` },
    {
      record: name.retryRatio,
      expr: `1 - sum by (job) (rate(aap_server_request_attempts_bucket{${FIRST}, ${SEL}}[${W}])) / sum by (job) (rate(aap_server_request_attempts_count{${SEL}}[${W}]))`,
    },
    {
      record: name.amplification,
      expr: `sum by (job) (rate(aap_server_request_attempts_count{${SEL}}[${W}])) / sum by (job) (rate(aap_server_request_attempts_bucket{${FIRST}, ${SEL}}[${W}]))`,
    },
    { record: name.audit, expr: `sum by (job, aap_audit_outcome) (rate(aap_audit_records_total{${SEL}}[${W}]))` },
    { record: name.conformance, expr: `sum by (job, aap_conformance_rule) (rate(aap_conformance_violations_total{${SEL}}[${W}]))` },
  ];

  const pct = (ratio) => `${Math.round(ratio * 1000) / 10}%`;
  const runbook = (alert) => `${config.runbookUrl}#${alert.toLowerCase()}`;
  const alert = (a) => ({
    alert: a.alert,
    expr: a.expr,
    for: a.for,
    labels: { severity: a.severity },
    annotations: { summary: a.summary, description: a.description, runbook_url: runbook(a.alert) },
  });
  const c = config;
  const alerts = [
    alert({
      alert: 'AapTriageErrorRatioHigh', severity: 'warning', for: c.errorRatio.for,
      expr: `${name.errorRatio} > ${c.errorRatio.threshold}`,
      summary: 'A dealer agent answers too many JSON-RPC calls with an error.',
      description: `{{ $labels.job }} answered {{ $value | humanizePercentage }} of its JSON-RPC calls with an error over the last ${W} (threshold ${pct(c.errorRatio.threshold)}).`,
    }),
    alert({
      alert: 'AapTriageServerFaultsRising', severity: 'warning', for: c.serverFaults.for,
      expr: `${name.faults} > ${c.serverFaults.perSecond} and ${name.faults} > ${c.serverFaults.growth} * ${name.faults1h}`,
      summary: 'Retryable server faults (INTERNAL_ERROR, UPSTREAM_UNAVAILABLE, -32603) are rising.',
      description: `{{ $labels.job }} answers {{ printf "%.2f" $value }} retryable server faults per second over the last ${W}, more than ${c.serverFaults.growth} times its rate over the last hour.`,
    }),
    alert({
      alert: 'AapTriageConformanceViolations', severity: 'info', for: c.conformance.for,
      expr: `${name.conformance} > 0`,
      summary: 'A dealer agent sends error envelopes that break the AAP or DMC-12 error contract.',
      description: `{{ $labels.job }} sends {{ printf "%.2f" $value }} error envelopes per second that break conformance rule {{ $labels.aap_conformance_rule }}.`,
    }),
    alert({
      alert: 'AapTriageAuditRecordsLost', severity: 'critical', for: c.auditLost.for,
      expr: `sum by (job) (${name.audit}{aap_audit_outcome=~"dropped|failed"}) > 0`,
      summary: 'Audit records are dropped or failed: the audit log no longer holds one row per error.',
      description: `{{ $labels.job }} dropped or failed {{ printf "%.2f" $value }} audit records per second over the last ${W}; those errors are missing from searches and drafts.`,
    }),
    alert({
      alert: 'AapTriageAuditQueueNearBound', severity: 'warning', for: c.auditQueue.for,
      expr: `max by (job, instance) (aap_audit_queue_size{${SEL}}) > ${c.auditQueue.queueLimit * c.auditQueue.fraction}`,
      summary: 'The audit queue is near its bound; records will be dropped when it is full.',
      description: `{{ $labels.job }} ({{ $labels.instance }}) holds {{ $value }} audit records in its queue, above ${pct(c.auditQueue.fraction)} of the bound ${c.auditQueue.queueLimit}.`,
    }),
    alert({
      alert: 'AapTriageRetryAmplificationHigh', severity: 'warning', for: c.amplification.for,
      expr: `${name.amplification} >= ${c.amplification.threshold}`,
      summary: 'Clients send each request many times: retry amplification is high.',
      description: `{{ $labels.job }} receives {{ printf "%.2f" $value }} calls per distinct request over the last ${W} (threshold ${c.amplification.threshold}).`,
    }),
    alert({
      alert: 'AapTriageTargetDown', severity: 'critical', for: c.targetDown.for,
      // Down (`up == 0`), or absent: gone from the scrape (service discovery dropped it, no `up`
      // at all) although it exported our metrics within the lookback.
      expr: `up{${SEL}} == 0 and on (job, instance) group by (job, instance) (present_over_time(${calls()}[${c.targetDown.lookback}])) or group by (job, instance) (present_over_time(${calls()}[${c.targetDown.lookback}])) unless on (job, instance) up{${SEL}}`,
      summary: 'A dealer agent that exported aap-triage metrics cannot be scraped.',
      description: `Prometheus cannot scrape {{ $labels.job }} ({{ $labels.instance }}), which exported aap-triage metrics within the last ${c.targetDown.lookback}.`,
    }),
  ];
  return { recording, alerts };
}

/** A YAML single-quoted scalar (only `'` is escaped, as `''`): expressions keep their `"` readable. */
const scalar = (v) => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : JSON.stringify(v));

/** YAML for a plain value: maps and lists in block style, strings single-quoted. */
function yaml(value, indent = '') {
  if (Array.isArray(value)) return value.map((v) => `${indent}- ${yaml(v, `${indent}  `).trimStart()}`).join('\n');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => (v !== null && typeof v === 'object' ? `${indent}${k}:\n${yaml(v, Array.isArray(v) ? indent : `${indent}  `)}` : `${indent}${k}: ${scalar(v)}`))
      .join('\n');
  }
  return scalar(value);
}

/** The rule file's text for `config`. */
export function rulesYaml(config = ALERTS_CONFIG) {
  const { recording, alerts } = buildRules(config);
  const header = '# Generated by dashboards/build-rules.mjs from dashboards/alerts-config.mjs; do not edit by hand.\n';
  // One group: rules of a group run in order at each evaluation, so every alert reads the
  // recording rules of the same evaluation. Across groups the order is not fixed, and an alert
  // could read the previous evaluation's value (promtool showed it: 0.80 for 1.00 a minute late).
  return `${header}${yaml({ groups: [{ name: 'aap-triage', rules: [...recording, ...alerts] }] })}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = rulesYaml();
  if (process.argv.includes('--check')) {
    if (readFileSync(OUT, 'utf8') !== text) {
      console.error(`${OUT} is out of date: run node dashboards/build-rules.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
  }
}
