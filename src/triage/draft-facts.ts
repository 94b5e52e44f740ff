/**
 * Reading an incident draft's facts from the audit store (DESIGN §7): the errors the source
 * selects, their traffic, the storm, the client labels and the answers flagged retries retried;
 * then the guidance rules (draft-advice.ts) over them. Only the audit store is read.
 */
import { RETRY_FLAGS, type RetryFlag } from '../protocol/error-event.js';
import { loadClientLabels, type ClientLabel, type ClientLabels } from './clients.js';
import { BUYER_CALLS_SQL, compileQuery } from './compile.js';
import { dealerActions, guidanceFor, requestedActions, retryRuleAsked, type CodeGuidance, type RequestedAction } from './draft-advice.js';
import type { Query } from './query.js';
import type { Db } from './rows.js';
import { asQuery, type QueryOptions } from './search.js';
import { STORM_DEFAULTS, type StormCause, type StormThresholds } from './storm-detect.js';
import { findStormById, stormWhere, type StormEpisode } from './storms.js';
import { retriedAnswers, summarizeErrors, type ErrorSummary } from './summary.js';
import type { TimeWindow } from './time.js';

/** What a draft is about: a storm episode, the errors a query finds, or listed error ids. */
export type DraftSource =
  | { kind: 'storm'; id: string }
  | { kind: 'query'; query: Query | string; window: TimeWindow }
  | { kind: 'errors'; ids: readonly string[] };

/** Options of `buildIncident` / `draftIncident`. */
export interface DraftOptions extends QueryOptions {
  /** When the next update is promised, minutes after `now`. Default 60. */
  nextUpdateMinutes?: number;
  thresholds?: Partial<StormThresholds>;
  /**
   * The AAP extension URI the dealer's agent card declares `required: true`, named in the
   * activation advice (-32008). Default: the advice points at the agent card.
   */
  extensionUri?: string;
  /**
   * Trace link template with `{trace_id}` (`AAP_TRIAGE_TRACE_URL`, e.g. a Tempo or Jaeger URL;
   * check it once with `traceUrlProblem`, src/triage/trace-link.ts); evidence lines get a link.
   */
  traceUrl?: string | null;
  /** Client labels (default: read from the store), shown with the pseudonyms and used to address the draft. */
  labels?: ClientLabels;
}

/** Everything an incident draft states, as data (rendered by `renderIncidentText` / `renderIncidentMarkdown`). */
export interface IncidentFacts {
  kind: DraftSource['kind'];
  /** The storm id for a storm draft. */
  stormId: string | null;
  /** Epoch ms; [since, until). */
  window: TimeWindow;
  clients: string[];
  services: string[];
  skills: string[];
  /** Calls in the window for these clients and skills (from traffic); null when traffic has none. */
  requests: number | null;
  errors: number;
  retries: number | null;
  /** retries ÷ requests; null without traffic. */
  retryRatio: number | null;
  /** Storm detection reasons (storm drafts only). */
  reasons: string[];
  /**
   * Whom a storm draft is for (storm drafts only, else null): `client` — the partner, asked to
   * change what its client did; `dealer` — a dealer-side episode, for the dealer's own on-call:
   * the client retried retryable faults as the policy allows, so nothing is asked of the partner.
   */
  cause: StormCause | null;
  summary: ErrorSummary;
  timeline: { at: number; text: string }[];
  guidance: CodeGuidance[];
  /** The requested actions as printed (each names its codes). */
  requestedAction: string[];
  /** The same, with the codes apart. */
  actions: RequestedAction[];
  /** Labels of the draft's clients that have one. */
  clientLabels: ClientLabel[];
  /**
   * Where the draft goes: the label contact of the storm's client (or of the one client of a
   * query or id list); null when that client has no contact, and for a dealer-side episode
   * (it goes to the dealer's own on-call, not to the partner).
   */
  recipient: string | null;
  /** The trace link template used for the evidence, or null. */
  traceUrl: string | null;
  /** When this draft was made and when the next update is due, epoch ms. */
  generatedAt: number;
  nextUpdateAt: number;
  attemptCap: number;
  clientBudget: number;
}

async function trafficFor(db: Db, window: TimeWindow, clients: string[], skills: string[]): Promise<{ requests: number; retries: number } | null> {
  if (clients.length === 0) return null;
  const params: (string | number)[] = [window.since - (window.since % 60_000), window.until, ...clients];
  let sql = `SELECT COUNT(*) AS n, SUM(requests) AS requests, SUM(retries) AS retries FROM traffic WHERE minute >= ? AND minute < ? AND client IN (${clients.map(() => '?').join(',')})`;
  if (skills.length) {
    sql += ` AND skill IN (${skills.map(() => '?').join(',')})`;
    params.push(...skills);
  }
  const r = await db.get<{ n: number; requests: number | null; retries: number | null }>(sql, params);
  return !r || r.n === 0 ? null : { requests: r.requests ?? 0, retries: r.retries ?? 0 };
}

/**
 * Gathers the facts of an incident draft from the store (DESIGN §7). Undefined when the source
 * selects nothing (unknown storm id, no matching errors). Throws `QuerySyntaxError` for a bad
 * query. Only the audit store is read, so the draft is as PII-free as the store.
 */
export async function buildIncident(db: Db, source: DraftSource, options: DraftOptions = {}): Promise<IncidentFacts | undefined> {
  const th: StormThresholds = { ...STORM_DEFAULTS, ...options.thresholds };
  const now = options.now ?? Date.now();
  let storm: StormEpisode | undefined;
  let where: string;
  let params: (string | number)[];
  let window: TimeWindow;
  if (source.kind === 'storm') {
    storm = await findStormById(db, source.id, { thresholds: th });
    if (!storm) return undefined;
    ({ where, params } = stormWhere(storm));
    window = { since: storm.start, until: storm.end };
  } else if (source.kind === 'query') {
    const c = compileQuery(asQuery(source.query), { now, window: source.window, pseudonymizer: options.pseudonymizer ?? null });
    ({ where, params } = c);
    window = c.window;
  } else {
    const ids = [...new Set(source.ids)];
    if (ids.length === 0) return undefined;
    where = `error_id IN (${ids.map(() => '?').join(',')})`;
    params = ids;
    window = { since: 0, until: 0 };
  }
  // A draft goes to people outside: it never cites a call of `aap-triage probe` (docs/probe.md).
  where = `(${where}) AND ${BUYER_CALLS_SQL}`;
  const summary = await summarizeErrors(db, where, params, { attemptCap: th.attemptCap, maxSamples: th.maxSamples });
  if (summary.errors === 0 || summary.first === null || summary.last === null) return undefined;
  if (source.kind !== 'storm') window = { since: summary.first, until: summary.last + 1 };
  let requests: number | null;
  let retries: number | null;
  if (storm) {
    requests = storm.requests;
    retries = storm.retries;
  } else {
    const t = await trafficFor(db, window, summary.clients, summary.skills);
    requests = t ? Math.max(t.requests, summary.errors) : null;
    retries = t ? t.retries : null;
  }
  const retryRatio = requests ? (retries ?? 0) / requests : null;
  const labels = options.labels ?? (await loadClientLabels(db));
  const clients = storm ? [storm.client] : summary.clients;
  const clientLabels = clients.flatMap((c) => labels.get(c) ?? []);
  // The answers each flagged retry retried (read here: requestedActions itself is pure).
  const traced = Object.fromEntries(
    await Promise.all(RETRY_FLAGS.map(async (f) => [f, summary.flags[f] ? (await retriedAnswers(db, where, params, f)).map((a) => a.code) : []] as const)),
  ) as Record<RetryFlag, string[]>;
  const dealerSide = storm?.cause === 'dealer';
  const actions = dealerSide ? dealerActions(summary) : requestedActions(traced, summary, retryRatio, th, options.extensionUri);
  const timeline: { at: number; text: string }[] = [{ at: summary.first, text: `first error (${[...new Set(summary.codes.map((c) => c.code))].slice(0, 3).join(', ')})` }];
  if (storm) {
    timeline.push({ at: storm.start, text: `storm begins (${storm.reasons.join(', ')})` });
    const peak = storm.series.reduce((a, p) => (p.requests > a.requests ? p : a), storm.series[0] ?? { minute: storm.start, requests: 0, retries: 0, errors: 0, flagged: 0 });
    timeline.push({ at: peak.minute, text: `peak minute: ${peak.requests} calls, ${peak.retries} retries, ${peak.errors} errors` });
    timeline.push({ at: storm.end, text: 'storm ends (last stormy minute over)' });
  } else if (summary.peak) {
    timeline.push({ at: summary.peak.minute, text: `peak minute: ${summary.peak.errors} errors` });
  }
  timeline.push({ at: summary.last, text: 'last error' });
  timeline.sort((a, b) => a.at - b.at);
  return {
    kind: source.kind,
    stormId: storm?.id ?? null,
    window,
    clients,
    services: summary.services,
    skills: storm ? storm.skills.filter((s) => s !== '') : summary.skills,
    requests,
    errors: storm ? Math.max(storm.errors, summary.errors) : summary.errors,
    retries,
    retryRatio,
    reasons: storm?.reasons ?? [],
    cause: storm?.cause ?? null,
    summary,
    timeline,
    // Advice to the client has no place in a draft for the dealer's own on-call.
    guidance: dealerSide ? [] : guidanceFor(summary, th.attemptCap, retryRuleAsked(actions)),
    requestedAction: actions.map((a) => a.text),
    actions,
    clientLabels,
    recipient: !dealerSide && clients.length === 1 ? (labels.get(clients[0] ?? '')?.contact ?? null) : null,
    traceUrl: options.traceUrl ?? null,
    generatedAt: now,
    nextUpdateAt: now + (options.nextUpdateMinutes ?? 60) * 60_000,
    attemptCap: th.attemptCap,
    clientBudget: th.clientBudget,
  };
}
