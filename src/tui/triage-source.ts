import type { ErrorEvent } from '../protocol/error-event.js';
import type { QueryPseudonymizer } from '../triage/compile.js';
import { getError } from '../triage/detail.js';
import { listIssues } from '../triage/issues.js';
import { describeIssueState, issueStateFor, type IssueAction } from '../triage/issue-actions.js';
import { setIssueStateInStore } from '../triage/store.js';
import { formatClient, type ClientLabels } from '../triage/clients.js';
import { labelsOf } from './labels.js';
import { DEFAULT_FROM } from '../incident/address.js';

import { draftIncident, type DraftSource } from '../triage/draft.js';
import { parseQuery, QuerySyntaxError } from '../triage/query.js';
import { describeGap, listGaps } from '../triage/stats.js';
import { ERROR_EVENT_COLUMNS } from '../triage/store.js';
import type { Db } from '../triage/rows.js';
import { errorHistogram, searchErrors } from '../triage/search.js';
import { parseTimeSpec, resolveTimeSpec, type TimeWindow } from '../triage/time.js';
import type { TuiSource } from './source.js';
import { TuiQueryError } from './source.js';
import type { ErrorDetailView, ErrorRowView, ResolvedWindow, WindowSpec } from './types.js';
import { formatTime } from './utils/format.js';
import { stormParts } from './triage-storms.js';
import { traceLink } from '../triage/trace-link.js';

/** Most issues the Issues view lists (the busiest, in the chosen order). */
const ISSUE_VIEW_LIMIT = 500;

/** Options of `createTriageSource`. */
export interface TriageSourceOptions {
  /** Pseudonymiser of the current key, so `client:<raw key>` works in the filter; null without a key. */
  readonly pseudonymizer?: QueryPseudonymizer | null;
  /** From address of `.eml` drafts. @default DEFAULT_MAIL.from */
  readonly from?: string;
  /** To address(es) of `.eml` drafts. @default the draft's partner contact, else DEFAULT_MAIL.to */
  readonly to?: string | string[];
  /**
   * Trace-link template with `{trace_id}` (`AAP_TRIAGE_TRACE_URL`), already checked with
   * `traceUrlProblem`; the Detail view and drafts then link each trace. @default null
   */
  readonly traceUrl?: string | null;
  /**
   * The AAP extension URI the agent card requires (`AAP_TRIAGE_EXTENSION_URI`), already checked
   * with `extensionUriProblem`; drafts name it in the -32008 advice. @default null
   */
  readonly extensionUri?: string | null;
  /**
   * Where the store is (`--db`) and who the operator is (releases' `operatorName`), for the
   * Issues view's resolve / mute / reopen keys (issue 29); without both the keys say why not.
   */
  readonly issueStates?: { readonly target: string; readonly operator: string | null };
}

/** Addresses of `.eml` drafts when none are given: placeholders the operator replaces. */
export const DEFAULT_MAIL = { from: DEFAULT_FROM, to: 'partner-oncall@example.invalid' } as const;

/** The Errors-table subset of an `ErrorEvent`; `labels` name the clients that have one. */
export function toRowView(e: ErrorEvent, labels?: ClientLabels): ErrorRowView {
  return {
    client_shown: formatClient(e.client, labels),
    error_id: e.error_id,
    occurred_at: e.occurred_at,
    code: e.code,
    retryable: e.retryable,
    skill: e.skill,
    protocol: e.protocol,
    client: e.client,
    attempt: e.attempt,
    retry_flags: e.retry_flags,
    trace_id: e.trace_id,
  };
}

function display(name: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (name === 'occurred_at' && typeof value === 'number') return `${formatTime(value)} UTC (${value})`;
  if (Array.isArray(value)) return value.length === 0 ? '[]' : JSON.stringify(value);
  return String(value);
}

/** Turns a `QuerySyntaxError` into the one line the UI shows; rethrows anything else. */
function asQueryError(err: unknown): never {
  if (err instanceof QuerySyntaxError) throw new TuiQueryError(err.message);
  throw err;
}

/**
 * The terminal UI's data source over an open read-only audit database: every method calls a
 * `src/triage/` function and converts its result to a view model. No SQL here.
 */
export function createTriageSource(db: Db, options: TriageSourceOptions = {}): TuiSource {
  const pseudonymizer = options.pseudonymizer ?? null;
  const traceUrl = options.traceUrl ?? null;
  const extensionUri = options.extensionUri ?? null;
  const mail = { from: options.from ?? DEFAULT_MAIL.from, to: options.to ?? null };
  const storms = stormParts(db);
  return {
    checkQuery(query) {
      try {
        parseQuery(query);
        return null;
      } catch (err) {
        if (err instanceof QuerySyntaxError) return err.message;
        throw err;
      }
    },
    resolveWindow(spec: WindowSpec, query: string, now: number): ResolvedWindow {
      const since = parseTimeSpec(spec.since);
      const until = spec.until ? parseTimeSpec(spec.until) : undefined;
      if (!since) throw new TuiQueryError(`bad window start '${spec.since}': expected a duration like 1h or an RFC 3339 time`);
      const base: TimeWindow = { since: resolveTimeSpec(since, now), until: until ? resolveTimeSpec(until, now) : now };
      let q;
      try {
        q = parseQuery(query);
      } catch {
        return base;
      }
      return {
        since: q.since ? resolveTimeSpec(q.since, now) : base.since,
        until: q.until ? resolveTimeSpec(q.until, now) : base.until,
      };
    },
    async search(query, window, limit, offset, sort) {
      try {
        const r = await searchErrors(db, query, window, { limit, offset, now: window.until, pseudonymizer, ...(sort ? { sort } : {}) });
        const labels = await labelsOf(db);
        return { rows: r.rows.map((e) => toRowView(e, labels)), total: r.total, offset: r.offset };
      } catch (err) {
        return asQueryError(err);
      }
    },
    async issues(query, window, sort) {
      try {
        const list = await listIssues(db, { window, query, sort, now: window.until, pseudonymizer, limit: ISSUE_VIEW_LIMIT });
        return {
          total: list.total,
          bucketMs: list.bucket_ms,
          quietMs: list.quiet_ms,
          issues: list.issues.map((i) => ({
            key: i.key,
            title: i.title,
            code: i.code,
            service: i.service,
            protocol: i.protocol,
            where: i.skill ?? i.rpc_method,
            count: i.count,
            clients: i.clients,
            retryable: i.retryable,
            first_seen: i.first_seen,
            last_seen: i.last_seen,
            state: i.state,
            status: i.status,
            trend: i.trend,
          })),
        };
      } catch (err) {
        return asQueryError(err);
      }
    },
    async setIssueState(key, action, now) {
      const where = options.issueStates;
      if (!where) throw new Error('this view is read-only');
      if (!where.operator) throw new Error('no operator name: set AAP_TRIAGE_OPERATOR (or USER) and start again');
      const request: IssueAction = action === 'resolve' ? { kind: 'resolve', in: 'now' } : action === 'mute' ? { kind: 'mute', until: null, count: null } : { kind: 'reopen' };
      const row = await setIssueStateInStore(where.target, await issueStateFor(db, key, request, where.operator, now));
      return `issue ${key}: ${describeIssueState(row)}`;
    },
    async histogram(query, window) {
      try {
        return (await errorHistogram(db, query, window, { now: window.until, pseudonymizer })).buckets;
      } catch (err) {
        return asQueryError(err);
      }
    },
    async detail(errorId): Promise<ErrorDetailView | null> {
      const d = await getError(db, errorId);
      if (!d) return null;
      const labels = await labelsOf(db);
      const row = (e: ErrorEvent) => toRowView(e, labels);
      const e = d.error as unknown as Record<string, unknown>;
      return {
        // The client's label, when it has one, beside the pseudonym.
        fields: ERROR_EVENT_COLUMNS.map((c) => {
          const label = c === 'client' && d.error.client ? labels.get(d.error.client) : undefined;
          return [c, label ? `${display(c, e[c])} (${label.name})` : display(c, e[c])] as const;
        }),
        row: row(d.error),
        meaning: d.codeInfo?.meaning ?? null,
        clientAction: d.codeInfo?.clientAction ?? null,
        specSection: d.codeInfo?.specSection ?? null,
        sameTrace: d.sameTrace.map(row),
        sameFingerprint: d.sameFingerprint.map(row),
        sameFingerprintCount: d.sameFingerprintCount,
        fingerprintWindowMs: d.fingerprintWindowMs,
        traceUrl: traceLink(traceUrl, d.error.trace_id),
      };
    },
    async gaps(window) {
      const all = await listGaps(db, { since: 0, until: Number.MAX_SAFE_INTEGER });
      const inWindow = all.filter((g) => g.ended_at >= window.since && g.started_at < window.until);
      // Newest first (listGaps' order), so the first in the window is the one the status line names.
      const first = inWindow[0];
      return {
        records: all.length,
        dropped: all.reduce((a, g) => a + g.dropped, 0),
        inWindow: inWindow.length,
        newest: first ? describeGap(first) : null,
      };
    },
    async draft(target, window, now) {
      const source: DraftSource =
        target.kind === 'storm'
          ? { kind: 'storm', id: target.id }
          : target.kind === 'errors'
            ? { kind: 'errors', ids: target.ids }
            : { kind: 'query', query: target.query, window };
      try {
        const d = await draftIncident(db, source, { now, pseudonymizer, traceUrl, ...(extensionUri ? { extensionUri } : {}) });
        return d ? { subject: d.subject, text: d.text, markdown: d.markdown, recipient: d.facts.recipient } : null;
      } catch (err) {
        return asQueryError(err);
      }
    },
    async eml(doc, now) {
      // Loaded on first use: nodemailer is not needed for the first frame.
      const { buildIncidentEml } = await import('../incident/eml.js');
      // As the CLI: given addresses, else the partner contact of the storm's label, else the placeholder.
      const to = mail.to ?? doc.recipient ?? DEFAULT_MAIL.to;
      const bytes = await buildIncidentEml(doc, { from: mail.from, to, date: new Date(now) });
      return bytes.toString('utf8');
    },
    ...storms,
  };
}
