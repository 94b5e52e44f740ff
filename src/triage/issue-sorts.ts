/**
 * The orders of the issue list, apart from the query that sorts it (issues.ts): `aap-triage
 * issues --help` lists them without loading that query (issue 31 "Start-up").
 */

/** Orders of `listIssues`: most errors first; most recently seen first; most recently first seen first. */
export type IssueSort = 'count' | 'last_seen' | 'first_seen';
/** Every {@link IssueSort}, in the order the CLI lists them. */
export const ISSUE_SORTS: readonly IssueSort[] = ['count', 'last_seen', 'first_seen'];
