// The one config of aap-triage's Prometheus rules (issue 30): the thresholds, windows and
// selectors dashboards/build-rules.mjs writes into dashboards/aap-triage-rules.yml, and the
// thresholds the dashboard (dashboards/build-overview.mjs) draws as its red lines. Change a value
// here and run both scripts; docs/alerts.md lists every field with its default and source.
//
// Values are plain numbers in the unit the field name says (ratio = fraction 0..1, perSecond,
// minutes); `for` values are Prometheus durations.

export const ALERTS_CONFIG = Object.freeze({
  /**
   * Label matchers every rule adds to its selectors, to scope the rules to the dealer agents'
   * jobs in a Prometheus that scrapes other things too (e.g. `job=~"dealer-.*"`).
   * @default 'job!=""' (every job)
   */
  selector: 'job!=""',
  /**
   * Codes of retryable server faults (docs/storms.md): the dealer's own failures, as the
   * `aap_error_code` label spells them (a bare JSON-RPC internal error is "-32603").
   */
  serverFaultCodes: ['INTERNAL_ERROR', 'UPSTREAM_UNAVAILABLE', '-32603'],
  /** Rate window of every recording rule. @default '5m' (4 × a 1 m scrape interval, the usual floor) */
  rateWindow: '5m',
  /**
   * Where the alerts' `runbook_url` points: docs/alerts.md as you host it; each alert appends
   * `#<alertname in lower case>`. @default 'https://aap-triage.example/docs/alerts.md'
   */
  runbookUrl: 'https://aap-triage.example/docs/alerts.md',
  /**
   * AapTriageErrorRatioHigh: share of a service's calls answered with an error.
   * @default 0.05 for 10m (the dashboard's red line; a 95 % success SLO's whole budget)
   */
  errorRatio: { threshold: 0.05, for: '10m' },
  /**
   * AapTriageServerFaultsRising: retryable server faults (INTERNAL_ERROR, UPSTREAM_UNAVAILABLE,
   * -32603) per second above `perSecond` and above `growth` × their rate over the last hour.
   * @default 0.1/s (6 a minute), growth 2, for 5m
   */
  serverFaults: { perSecond: 0.1, growth: 2, for: '5m' },
  /** AapTriageConformanceViolations: any non-conformant error envelope. @default for 15m */
  conformance: { for: '15m' },
  /** AapTriageAuditRecordsLost: any audit record dropped or failed (the 1:1 promise). @default for 0m */
  auditLost: { for: '0m' },
  /**
   * AapTriageAuditQueueNearBound: a process's audit queue above `fraction` of its bound
   * `queueLimit` (src/audit/options.ts default 10 000), where records start being dropped.
   * @default 0.8 of 10 000, for 5m
   */
  auditQueue: { queueLimit: 10_000, fraction: 0.8, for: '5m' },
  /**
   * AapTriageRetryAmplificationHigh: calls ÷ first attempts per service, the amplification storm
   * rule of docs/storms.md. @default 1.5 for 2m
   */
  amplification: { threshold: 1.5, for: '2m' },
  /**
   * AapTriageTargetDown: a target that exported aap-triage's call metric within `lookback` is
   * not scraped (`up == 0`) or is absent from the scrape (no `up` series at all). @default lookback 1h, for 5m
   */
  targetDown: { lookback: '1h', for: '5m' },
});
