/**
 * Triage: pure functions over the audit store (DESIGN §3, §6, §7). The CLI's commands and the
 * TUI's views both call these; none of them prints, and none does I/O beyond the database
 * handle passed in (read-only is enough).
 */
export { parseQuery, QuerySyntaxError, FIELD_ALIASES } from './query.js';
export type { Query, QueryTerm, QueryField, QueryOp } from './query.js';
export { compileQuery, looksLikePseudonym, looksLikePseudonymPrefix, looksLikeSubject, CLIENT_PREFIX_MIN } from './compile.js';
export type { CompileContext, CompiledQuery, QueryPseudonymizer } from './compile.js';
export { parseDuration, parseTimeSpec, resolveTimeSpec, formatUtc, formatUtcMinute, formatDuration } from './time.js';
export type { TimeWindow, TimeSpec } from './time.js';
export { toErrorEvent } from './rows.js';
export type { Db, ErrorEventRecord } from './rows.js';
export { searchErrors, errorHistogram, nextErrors, tailCursor, asQuery } from './search.js';
export type { ErrorSort, ErrorSortKey, SearchOptions, SearchResult, QueryOptions, Histogram, HistogramBucket, NextErrors, TailCursor } from './search.js';
export { getError, getTrace } from './detail.js';
export type { ErrorDetail, DetailOptions } from './detail.js';
export { codeInfoFor, LONGEST_CODE_LENGTH, retryableFault } from './codes.js';
export { computeStats, describeGap, listGaps } from './stats.js';
export type { Stats, CountRow, RetryableSplit, AuditGap } from './stats.js';
export { detectStorms, STORM_DEFAULTS, stormCause } from './storm-detect.js';
export type { StormThresholds, StormMinute, StormPoint, StormReason, DetectedStorm, StormCause, CausePoint } from './storm-detect.js';
export { findStorms, findStormById, loadStormMinutes, stormId, parseStormId, stormWhere } from './storms.js';
export type { StormEpisode, StormOptions } from './storms.js';
export { summarizeErrors, emptyFlags } from './summary.js';
export type { ErrorSummary, CodeBreakdown, Evidence } from './summary.js';
export { buildIncident, draftIncident, renderIncidentText, renderIncidentMarkdown, incidentSubject, shortClient } from './draft.js';
export type { DraftSource, DraftOptions, IncidentFacts, IncidentDraft, CodeGuidance } from './draft.js';
export { buildIncidentEml } from '../incident/index.js';
export { dbPathProblem } from './db-path.js';
export { traceLink, traceUrlProblem, TRACE_URL_ENV, TRACE_ID_PLACEHOLDER } from './trace-link.js';
export { extensionUriProblem, EXTENSION_URI_ENV } from './extension-uri.js';
export type { EmlOptions } from '../incident/index.js';
export { listIssues, getIssue, ISSUE_DEFAULTS } from './issues.js';
export type { Issue, IssueList, IssueOptions, IssueState } from './issues.js';
export { ISSUE_SORTS, type IssueSort } from './issue-sorts.js';
export { issueKey, issueKeyText, issueTitle, isIssueKeyPrefix, ISSUE_KEY_LENGTH, ISSUE_KEY_MIN_PREFIX } from './issue-key.js';
export type { IssueKeyFields, IssueTitleFields } from './issue-key.js';
export { CLIENT_DISPLAY_LENGTH, NO_CREDENTIAL, formatClient, listClients, loadClientLabels, resolveClient, shortClient as shortClientId } from './clients.js';
export type { ClientLabel, ClientLabels, ClientRef, ClientSummary } from './clients.js';
export { AddressError, formatMailbox, parseOneAddress } from '../incident/index.js';
export type { Mailbox } from '../incident/index.js';
export { retriedAnswers } from './summary.js';
export type { RetriedAnswer } from './summary.js';
export type { RequestedAction } from './draft.js';
export { deriveAlerts, stormAlert, issueAlert, isMuted, AUDIT_ALERTS } from './alerts.js';
export { AUDIT_ALERT_DEFAULTS } from './alert-defaults.js';
export type { AlertmanagerAlert, AlertContext } from './alerts.js';
export { compareVersions, findRegression, ISSUE_STATUSES, issueKeysWithPrefix, issueReleaseFacts, loadIssueStates, muteHolds, newestVersion, nextReleaseBase, regresses, sortVersions } from './releases.js';
export type { IssueReleaseFacts, IssueStatus, Regression, VersionSince } from './releases.js';
export { describeIssueState, issueStateFor, operatorName, OPERATOR_ENV } from './issue-actions.js';
export type { IssueAction } from './issue-actions.js';
