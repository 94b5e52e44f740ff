/**
 * `aap-triage/client`: the buyer-side adapter (issue 9, DESIGN §1). A fetch wrapper that keeps
 * every error envelope before an SDK's lossy conversion (`createAapFetch`, `DealerAgentError`),
 * a pure retry policy (`decideRetry`) and the loop that applies it (`withRetries`).
 */
export { createAapFetch, dealerErrorsOf, traceIdFromTraceresponse, DEFAULT_MAX_BODY_BYTES } from './aap-fetch.js';
export { DealerAgentError, isDealerAgentError } from './dealer-error.js';
export type { DealerAgentErrorInit } from './dealer-error.js';
export { incidentReport, incidentReportEml } from './incident-report.js';
export type { BuyerIncidentReport, IncidentReportOptions, ReportedError } from './incident-report.js';
export type { EmlOptions } from '../incident/index.js';
export {
  RETRY_DEFAULTS,
  backoffCeilingMs,
  createRetryBudget,
  creditSuccess,
  decideRetry,
  jitterMs,
  resolveBudgetOptions,
  resolveRetryPolicy,
} from './retry-policy.js';
export type { ResolvedBudgetOptions, ResolvedRetryPolicy } from './retry-policy.js';
export { callWithDetails, defaultRetryBudget, defaultSleep, withRetries } from './with-retries.js';
export { HEADER_ATTEMPT, HEADER_TRACERESPONSE } from '../protocol/index.js';
export type {
  AapFetchOptions,
  AttemptContext,
  AttemptOutcome,
  ClientTelemetryOptions,
  JitterMode,
  RetryBudget,
  RetryBudgetOptions,
  RetryDecision,
  RetryInput,
  RetryPolicyOptions,
  WithRetriesOptions,
} from './types.js';
export type { AttemptRecord, StopReason } from './attempt.js';
