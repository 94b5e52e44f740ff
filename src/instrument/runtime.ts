/**
 * What the fronts (create-triage.ts, instrumentation.ts) need once a triage is created or
 * enabled, and `import('aap-triage')` does not: the core with its exchange pipeline, taps, sinks
 * and audit store, the AapError store, the metrics export, the global logs API (issue 31
 * "Start-up": about 80 % of the library's code). The fronts reach it through load-runtime.ts
 * only, so the library bundle can load it on first use. Re-exports only.
 */
// error-id.ts and issue-key.ts take node:crypto on first use; the core imports it (the
// pseudonymizer, call keys), so it is loaded here, before the first request.
export { createCore } from './core.js';
export { enterErrors, runWithErrors } from './taps/aap-error-hook.js';
export { startMetricsExportFromEnv, wantsMetricsExport } from './metrics-export.js';
export { logs } from '@opentelemetry/api-logs';
