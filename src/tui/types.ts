/**
 * View models of the terminal UI: what the views show, in the units they show it. The data
 * source (`source.ts`) builds them from `src/triage/` results; views and components take them
 * as read-only props and never see SQL or a database handle.
 */

/** One row of the Errors table (a subset of the audit columns, DESIGN §5). */
export interface ErrorRowView {
  readonly error_id: string;
  /** Epoch milliseconds. */
  readonly occurred_at: number;
  readonly code: string;
  /** As stored: null when the envelope lost it. */
  readonly retryable: boolean | null;
  readonly skill: string | null;
  readonly protocol: string;
  /** Client pseudonym (full; the table shows a short prefix). */
  readonly client: string | null;
  /** The client as every view shows it: its label's name and the pseudonym prefix (src/triage/clients.ts). */
  readonly client_shown: string;
  readonly attempt: number;
  readonly retry_flags: readonly string[];
  readonly trace_id: string | null;
}

export type { ErrorSort, ErrorSortKey } from '../triage/search.js';

/** A page of search results. */
export interface ErrorPage {
  readonly rows: readonly ErrorRowView[];
  /** Rows matching the query over the window, all pages. */
  readonly total: number;
  /** Index of `rows[0]` in the full result (0-based). */
  readonly offset: number;
}

/** One issue (errors grouped by their issue key, src/triage/issue-key.ts) as the Issues view shows it. */
export interface IssueRowView {
  /** Issue key, 16 hex digits; `issue:<key>` lists its errors. */
  readonly key: string;
  /** `CODE · skill-or-method · service (protocol)`. */
  readonly title: string;
  readonly code: string;
  readonly service: string;
  readonly protocol: string;
  /** The skill or DMC-12 tool, else the JSON-RPC method. */
  readonly where: string;
  /** Errors in the window. */
  readonly count: number;
  /** Distinct clients among them. */
  readonly clients: number;
  /** true / false when every error said so, null when mixed or unknown. */
  readonly retryable: boolean | null;
  /** Epoch milliseconds, inside the window. */
  readonly first_seen: number;
  readonly last_seen: number;
  /** new (first seen in the window), regressed (back after the quiet period), ongoing. */
  readonly state: 'new' | 'regressed' | 'ongoing';
  /** The operator's state (issue 29): muted rows are shown dimmed, resolved ones say so. @default 'open' */
  readonly status?: 'open' | 'resolved' | 'muted' | 'regressed';
  /** Errors per bucket over the window, oldest first. */
  readonly trend: readonly number[];
}

/** Orders of the Issues view (those `listIssues` offers). */
export type IssueSortKey = 'count' | 'last_seen' | 'first_seen';

/** The Issues of a window. */
export interface IssuePage {
  readonly issues: readonly IssueRowView[];
  /** Issues in the window (all, before the limit). */
  readonly total: number;
  /** Width of a trend bucket, ms. */
  readonly bucketMs: number;
  /** The quiet period behind `regressed`, ms. */
  readonly quietMs: number;
}

/** Errors in one minute (or one column's worth of minutes), split by `retryable`. */
export interface HistogramBucket {
  /** Start of the bucket, epoch milliseconds. */
  readonly start: number;
  readonly retryable: number;
  readonly terminal: number;
  /** retryable NULL. */
  readonly unknown: number;
}

/** One retry-storm episode as the Storms view shows it (DESIGN §6). */
export interface StormView {
  readonly id: string;
  /** `client`: a client storm; `dealer`: a dealer-side episode (StormEpisode.cause, DESIGN §6). */
  readonly cause: 'client' | 'dealer';
  /** Epoch milliseconds. */
  readonly start: number;
  /** Epoch milliseconds (end of the last minute). */
  readonly end: number;
  readonly client: string;
  /** The client as every view shows it (label name and pseudonym prefix). */
  readonly client_shown: string;
  readonly skills: readonly string[];
  readonly codes: readonly string[];
  readonly requests: number;
  readonly retries: number;
  /** Retries ÷ requests, 0..1. */
  readonly ratio: number;
  /** Flag name → count. */
  readonly flags: Readonly<Record<string, number>>;
  /** Retries (or errors) per minute from `start`, for the sparkline. */
  readonly series: readonly number[];
}

/** Everything the Detail view shows about one error. */
export interface ErrorDetailView {
  /** Every audit column, in table order, as display strings (null shown as `—`). */
  readonly fields: readonly (readonly [name: string, value: string])[];
  readonly row: ErrorRowView;
  /** The code's one-line meaning from the code table, when known. */
  readonly meaning: string | null;
  /** The spec's recommended client action, when known. */
  readonly clientAction: string | null;
  readonly specSection: string | null;
  /** Same trace id / upstream trace id. */
  readonly sameTrace: readonly ErrorRowView[];
  /** Same fingerprint (the same call retried): the nearest before and after this error, oldest first. */
  readonly sameFingerprint: readonly ErrorRowView[];
  /** All errors of the same client and fingerprint within ±`fingerprintWindowMs` (not just those shown). */
  readonly sameFingerprintCount: number;
  /** Milliseconds either side of this error that `sameFingerprintCount` covers. */
  readonly fingerprintWindowMs: number;
  /** A link to this error's trace (`AAP_TRIAGE_TRACE_URL` with its trace_id), or null. */
  readonly traceUrl: string | null;
}

/** What an incident draft is about. */
export type DraftTarget =
  | { readonly kind: 'storm'; readonly id: string }
  | { readonly kind: 'errors'; readonly ids: readonly string[] }
  | { readonly kind: 'query'; readonly query: string };

/** An incident draft in its text forms (DESIGN §7). */
export interface DraftDoc {
  readonly subject: string;
  /** Plain text, starting with a `Subject:` line. */
  readonly text: string;
  readonly markdown: string;
  /** The partner contact a storm's draft is addressed to (its client's label), or null. */
  readonly recipient?: string | null;
}

/** Output formats of a draft (DESIGN §7). */
export type DraftFormat = 'text' | 'md' | 'eml';

/** The time window of every view: a duration back from now, or absolute bounds. */
export interface WindowSpec {
  /** Duration (`15m`, `1h`, `7d`) or RFC 3339 time. */
  readonly since: string;
  /** RFC 3339 time or epoch-ms string; absent = now. */
  readonly until?: string;
}

/** A window resolved to epoch milliseconds at one instant. */
export interface ResolvedWindow {
  readonly since: number;
  readonly until: number;
}

/** Gap records in the store: errors seen but not stored. */
export interface GapSummary {
  /** Gap records in the whole store. */
  readonly records: number;
  /** Errors they lost, in total. */
  readonly dropped: number;
  /** Gap records overlapping the current window. */
  readonly inWindow: number;
  /**
   * The newest gap record overlapping the window as the sentence every view uses
   * (`7 errors not recorded between <t1> and <t2> (<reason>)`, UTC), or null when none does.
   */
  readonly newest: string | null;
}
