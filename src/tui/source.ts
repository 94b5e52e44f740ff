import type { ErrorSort } from '../triage/search.js';
import type {
  DraftDoc,
  DraftTarget,
  ErrorDetailView,
  ErrorPage,
  GapSummary,
  HistogramBucket,
  IssuePage,
  IssueSortKey,
  ResolvedWindow,
  StormView,
  WindowSpec,
} from './types.js';

/**
 * Everything the terminal UI reads, as view models. The one implementation over the audit store
 * (`createTriageSource` in `triage-source.ts`) calls `src/triage/` functions; views and the app
 * never see SQL. What reads the store returns a Promise (the store may be PostgreSQL); a
 * rejection is a `TuiQueryError` for bad operator input. Parsing and window maths stay synchronous.
 */
export interface TuiSource {
  /** One line naming the bad token of `query`, or null when it parses. */
  checkQuery(query: string): string | null;
  /**
   * The window a view covers: `spec` resolved at `now` (epoch ms), narrowed by `since:`/`until:`
   * terms in `query` the way the command line does.
   */
  resolveWindow(spec: WindowSpec, query: string, now: number): ResolvedWindow;
  /** Newest first unless `sort` says otherwise; `limit` rows from `offset`; `total` over all pages. */
  search(query: string, window: ResolvedWindow, limit: number, offset: number, sort?: ErrorSort): Promise<ErrorPage>;
  /** Issues in the window (errors grouped by issue key), narrowed by `query`, in `sort` order. */
  issues(query: string, window: ResolvedWindow, sort: IssueSortKey): Promise<IssuePage>;
  /** Per-minute buckets over the window, oldest first, every minute present (zeros included). */
  histogram(query: string, window: ResolvedWindow): Promise<HistogramBucket[]>;
  /** Null when the id is not in the store. */
  detail(errorId: string): Promise<ErrorDetailView | null>;
  /** Episodes in the window, newest first, each with a per-minute series. */
  storms(window: ResolvedWindow): Promise<StormView[]>;
  /** The narrowing an episode's drill-down applies: a query and a window. */
  stormScope(storm: StormView): { query: string; window: WindowSpec; label: string };
  /** The incident draft (text and Markdown); null when the target selects no errors. */
  draft(target: DraftTarget, window: ResolvedWindow, now: number): Promise<DraftDoc | null>;
  /** The draft as an RFC 5322 message (Date, Message-ID, From, To, Subject, text body). */
  eml(doc: DraftDoc, now: number): Promise<string>;
  /**
   * Sets the operator's state of issue `key` (issue 29): resolve now, mute forever, or open again;
   * resolves to one line saying what was stored; rejects with an Error saying why not (no operator
   * named, read-only). Absent on a read-only source.
   */
  setIssueState?(key: string, action: 'resolve' | 'mute' | 'reopen', now: number): Promise<string>;
  /** Gap records (errors seen but not stored) in the store and overlapping the window. */
  gaps(window: ResolvedWindow): Promise<GapSummary>;
}

/**
 * The window `source` resolves for `spec` and the filter `query` at `now` (epoch ms); a filter
 * that does not parse (its error shows elsewhere) leaves the window as `spec` says.
 */
export function filterWindow(source: Pick<TuiSource, 'resolveWindow'>, spec: WindowSpec, query: string, now: number): ResolvedWindow {
  try {
    return source.resolveWindow(spec, query, now);
  } catch {
    return source.resolveWindow(spec, '', now);
  }
}

/** A problem with what the operator typed (bad query, bad duration); shown on one line. */
export class TuiQueryError extends Error {
  override readonly name = 'TuiQueryError';
}
