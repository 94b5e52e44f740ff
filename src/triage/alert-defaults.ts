/**
 * The defaults of the audit-store alerts (src/triage/alerts.ts), apart from the code that derives
 * them: `aap-triage alerts --help` names the runbook default, and the help is read without
 * loading the store's queries (issue 31 "Start-up").
 */
import { STORM_DEFAULTS } from './storm-detect.js';

/** Defaults of `deriveAlerts` (src/triage/alerts.ts). */
export const AUDIT_ALERT_DEFAULTS = Object.freeze({
  /**
   * How far back storms and issues are read, ms (24 h, the default window of `storms` and
   * `issues`): an issue is "new" while first seen within it.
   */
  lookbackMs: 24 * 3_600_000,
  /**
   * How long a storm or issue keeps firing after its last stormy minute or error, ms: the storm
   * detector's window (10 min), within which a new hot minute would still join the same episode.
   */
  holdMs: STORM_DEFAULTS.windowMs,
  /**
   * Where `runbook_url` points (`AAP_TRIAGE_RUNBOOK_URL` overrides it); the same default as the
   * Prometheus rules' `runbookUrl` (dashboards/alerts-config.mjs).
   */
  runbookUrl: 'https://aap-triage.example/docs/alerts.md',
});
