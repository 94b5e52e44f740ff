import { renderDocumentText, type IncidentDocument } from '../incident/index.js';
import { BUYER_CALLS_SQL, compileQuery } from './compile.js';
import { codeInfoFor } from './codes.js';
import type { Query } from './query.js';
import type { Db } from './rows.js';
import { asQuery, type QueryOptions } from './search.js';
import { STORM_DEFAULTS, type StormCause, type StormThresholds } from './storm-detect.js';
import { findStormById, stormWhere, type StormEpisode } from './storms.js';
import { retriedAnswers, summarizeErrors, type CodeBreakdown, type ErrorSummary } from './summary.js';
import { loadClientLabels, NO_CREDENTIAL, shortClient as shortClientId, type ClientLabel, type ClientLabels } from './clients.js';
import { RETRY_FLAGS, type RetryFlag } from '../protocol/error-event.js';
import type { TimeWindow } from './time.js';
import { traceLink } from './trace-link.js';

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

/** One requested action and the codes that caused it (each action names them). */
export interface RequestedAction {
  text: string;
  codes: string[];
}

/** Per code: what the client did and what the spec says it should do (DESIGN §7). */
export interface CodeGuidance {
  code: string;
  protocol: string;
  retryable: boolean | null;
  count: number;
  /** The code's one-line meaning from the spec tables; null for an unknown code. */
  meaning: string | null;
  /** What the client did, from attempts and retry flags. */
  did: string;
  /** The spec's recommended client action plus the retry rule for the code. */
  should: string;
  /** Where the spec says so; null for an unknown code. */
  specSection: string | null;
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

/** An incident draft in both text forms. */
export interface IncidentDraft {
  subject: string;
  text: string;
  markdown: string;
  facts: IncidentFacts;
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
const utc = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
const utcMinute = (ms: number): string => utc(ms).replace(/:\d{2}Z$/, 'Z');
/** Short form of a client pseudonym for subjects and prose: the one the views show (src/triage/clients.ts). */
export const shortClient = (c: string): string => shortClientId(c);

/** A client in the draft's prose: label name and pseudonym prefix, or the whole pseudonym when unlabelled (the partner greps for it). */
const clientProse = (c: string, f: IncidentFacts): string => {
  const label = f.clientLabels.find((l) => l.client === c);
  return label ? `${label.name} (client ${shortClientId(c)})` : c || NO_CREDENTIAL;
};

const distinct = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

function did(b: CodeBreakdown): string {
  if (b.retries === 0) return `${b.count} call${b.count === 1 ? '' : 's'} failed with this code; the client did not retry them.`;
  const parts = [`${b.retries} of ${b.count} were retries, up to attempt ${b.maxAttempt}`];
  if (b.flags.retried_non_retryable) parts.push(`${b.flags.retried_non_retryable} retried an answer marked retryable=false`);
  if (b.flags.ignored_retry_after) {
    const ra = b.retryAfterMs ? ` (the server asked for ${b.retryAfterMs.min === b.retryAfterMs.max ? `${b.retryAfterMs.min} ms` : `${b.retryAfterMs.min}–${b.retryAfterMs.max} ms`})` : '';
    parts.push(`${b.flags.ignored_retry_after} came before retry_after_ms had elapsed${ra}`);
  }
  if (b.flags.no_backoff) parts.push(`${b.flags.no_backoff} came without exponential backoff`);
  return `${parts.join('; ')}.`;
}

/** Which parts of the retry rule a requested action of the draft already asks for, for one code. */
interface AskedRule {
  /** "Wait at least retry_after_ms" */
  hint: boolean;
  /** "Back off exponentially with jitter … stop after N attempts" */
  backoff: boolean;
}

/**
 * The spec's client action for a code plus the retry rule, each piece of advice once (issue 28):
 * what the action already says (backing off, `retry_after_ms`, reporting the ids) is not
 * repeated, nor what a requested action of the draft asks for this code (`asked`).
 */
function should(b: CodeBreakdown, action: string | null, cap: number, asked: AskedRule): string {
  let retryRule: string;
  if (b.retryable === false) retryRule = action && /retry/i.test(action) ? '' : 'Do not retry the same request as it is: it will fail identically.';
  else if (b.retryable === true) {
    const said = action ?? '';
    const backoffSaid = /back ?off/i.test(said);
    const parts: string[] = [];
    if (!asked.backoff) parts.push(backoffSaid ? `schedule ~1 s → 2 s → 4 s with jitter (capped), at most ${cap} attempts` : `retry only with exponential backoff and jitter (~1 s → 2 s → 4 s, capped), at most ${cap} attempts`);
    if (!asked.hint && !/retry_after/i.test(said)) parts.push('honour retry_after_ms');
    if (!/error_id/i.test(said)) parts.push('then report the error_id and trace_id');
    const text = parts.join('; ');
    retryRule = text ? `${text[0]?.toUpperCase()}${text.slice(1)}.` : '';
    if (asked.hint || asked.backoff) retryRule = `${retryRule} (How to retry: the requested action below.)`.trim();
  } else retryRule = 'The envelope did not say whether it is retryable; treat it as not retryable.';
  return [action, retryRule].filter(Boolean).join(' ');
}

/** Per code, the parts of the retry rule the requested actions already ask for. */
function retryRuleAsked(actions: readonly RequestedAction[]): Map<string, AskedRule> {
  const out = new Map<string, AskedRule>();
  for (const a of actions) {
    const hint = a.text.startsWith('Wait at least retry_after_ms');
    const backoff = a.text.startsWith('Back off exponentially');
    if (!hint && !backoff) continue;
    for (const c of a.codes) {
      const cur = out.get(c) ?? { hint: false, backoff: false };
      out.set(c, { hint: cur.hint || hint, backoff: cur.backoff || backoff });
    }
  }
  return out;
}

function guidanceFor(summary: ErrorSummary, cap: number, asked: ReadonlyMap<string, AskedRule> = new Map()): CodeGuidance[] {
  return summary.codes.map((b) => {
    const info = codeInfoFor(b.protocol, b.code);
    return {
      code: b.code,
      protocol: b.protocol,
      retryable: b.retryable,
      count: b.count,
      meaning: info?.meaning ?? null,
      did: did(b),
      should: should(b, info?.clientAction ?? null, cap, asked.get(b.code) ?? { hint: false, backoff: false }),
      specSection: info?.specSection ?? null,
    };
  });
}

/** `A, B` of distinct codes, or `—` when none could be traced. */
const codeList = (codes: readonly string[]): string => (codes.length ? distinct(codes).join(', ') : 'codes not found in the store');

function requestedActions(traced: Readonly<Record<RetryFlag, readonly string[]>>, summary: ErrorSummary, retryRatio: number | null, th: StormThresholds, extensionUri: string | undefined): RequestedAction[] {
  const out: RequestedAction[] = [];
  const add = (codes: string[], text: (list: string) => string): void => {
    out.push({ codes: distinct(codes), text: text(codeList(codes)) });
  };
  const has = (code: string, jsonrpc: string): CodeBreakdown | undefined => summary.codes.find((b) => b.code === code || b.code === jsonrpc);
  // Activation and version first: until they are right, no skill call can succeed.
  const activation = has('EXTENSION_SUPPORT_REQUIRED', '-32008');
  if (activation) {
    const uri = extensionUri ? `the AAP extension URI ${extensionUri}` : 'the AAP extension URI our agent card declares required (capabilities.extensions, required: true)';
    add([activation.code], (c) => `Activate the AAP extension (${c}, -32008): send the A2A-Extensions header naming ${uri} on every call; retrying without it fails the same way.`);
  }
  const version = has('VERSION_NOT_SUPPORTED', '-32009');
  if (version) add([version.code], (c) => `Send the A2A-Version header with a version we serve (1.0) on every call (${c}, -32009); an absent header reads as 0.3.`);
  // A retry's own code may differ from the answer it retried: name the answers' codes.
  const answered = (flag: RetryFlag): string[] => {
    const codes = traced[flag];
    return codes.length ? [...codes] : summary.codes.filter((b) => b.flags[flag] > 0 && (flag !== 'retried_non_retryable' || b.retryable === false)).map((b) => b.code);
  };
  if (summary.flags.retried_non_retryable) {
    add(answered('retried_non_retryable'), (c) => `Stop retrying answers marked retryable=false (${c}); fix the request instead (see each code above).`);
  }
  if (summary.flags.ignored_retry_after) {
    add(answered('ignored_retry_after'), (c) => `Wait at least retry_after_ms before retrying (${c}).`);
  }
  if (summary.flags.no_backoff || summary.overAttemptCap) {
    const codes = summary.flags.no_backoff ? answered('no_backoff') : summary.codes.filter((b) => b.maxAttempt > th.attemptCap).map((b) => b.code);
    add(codes, (c) => `Back off exponentially with jitter (~1 s → 2 s → 4 s, capped) and stop after ${th.attemptCap} attempts (${c}).`);
  }
  if (retryRatio !== null && retryRatio > th.clientBudget) {
    const retried = summary.codes.filter((b) => b.retries > 0).map((b) => b.code);
    add(retried, (c) => `Keep retries under ${Math.round(th.clientBudget * 100)} % of requests (per-client retry budget); they were ${pct(retryRatio)} (retries of ${c}).`);
  }
  const handled = new Set(out.flatMap((a) => a.codes));
  const terminal = summary.codes.filter((b) => b.retryable === false && b.flags.retried_non_retryable === 0 && !handled.has(b.code)).map((b) => b.code);
  if (terminal.length) add(terminal, (c) => `Fix the cause of the terminal errors (${c}) as the spec's client action below says.`);
  out.push({ codes: [], text: 'Reply quoting the error_id and trace_id pairs above if anything here does not match your logs.' });
  return out;
}

/**
 * The requested actions of a dealer-side episode (DESIGN §6): for the dealer's own on-call, about
 * the faults the client retried; nothing is asked of the partner.
 */
function dealerActions(summary: ErrorSummary): RequestedAction[] {
  const out: RequestedAction[] = [];
  const faults = summary.codes.filter((b) => b.retryable !== false && b.code !== 'RATE_LIMITED').map((b) => b.code);
  const services = summary.services.join(', ') || 'this dealer agent';
  if (faults.length) {
    out.push({ codes: distinct(faults), text: `Find and fix the cause of the retryable faults (${codeList(faults)}) on ${services}: the client's retries followed the backoff policy and last as long as the faults do.` });
  }
  const limited = summary.codes.filter((b) => b.code === 'RATE_LIMITED').map((b) => b.code);
  if (limited.length) {
    out.push({ codes: limited, text: `Check the rate limit behind RATE_LIMITED on ${services}: the client waited as retry_after_ms asked, so the limit, not the client, set the pace.` });
  }
  out.push({ codes: [], text: "No change is asked of the partner: its client retried as the spec allows. Trace the faults with the error_id and trace_id pairs above in the dealer's own logs." });
  return out;
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
  const timeline: { at: number; text: string }[] = [{ at: summary.first, text: `first error (${summary.codes.map((c) => c.code).slice(0, 3).join(', ')})` }];
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

/** The subject line of a draft. */
export function incidentSubject(f: IncidentFacts): string {
  // A code is one entry per protocol in the breakdown; the subject names each once.
  const codes = distinct(f.summary.codes.map((c) => c.code)).slice(0, 2).join(', ');
  const skills = f.skills.length ? distinct(f.skills).slice(0, 3).join(', ') : 'no skill';
  if (f.kind === 'storm') {
    const client = f.clients[0] ?? '';
    const label = f.clientLabels.find((l) => l.client === client);
    const who = label ? `${label.name} (client ${shortClient(client)})` : `client ${shortClient(client)}`;
    if (f.cause === 'dealer') return `[aap-triage] Dealer-side retry episode on ${skills}: ${codes} (${f.errors} errors, ${utcMinute(f.window.since)}; ${who} retried as the policy allows)`;
    return `[aap-triage] Retry storm from ${who} on ${skills}: ${codes} (${f.errors} errors, ${utcMinute(f.window.since)})`;
  }
  return `[aap-triage] ${f.errors} error${f.errors === 1 ? '' : 's'} ${codes} on ${skills} (${utcMinute(f.window.since)} to ${utcMinute(f.window.until)})`;
}

function summaryParagraph(f: IncidentFacts): string {
  const only = f.clients[0] ?? '';
  const labelled = f.clientLabels.some((l) => l.client === only);
  const clients = f.clients.length === 1 ? (labelled ? clientProse(only, f) : `client ${clientProse(only, f)}`) : `${f.clients.length} clients`;
  const top = f.summary.codes[0];
  const lead =
    f.cause === 'dealer'
      ? `Between ${utc(f.window.since)} and ${utc(f.window.until)} (UTC), ${f.skills.join(', ') || 'this dealer agent'} answered retryable faults, and ${clients} retried them as the backoff policy allows: ${f.retries ?? 0} retries in ${f.requests ?? 0} calls (retry ratio ${pct(f.retryRatio)}), detected by ${f.reasons.join(', ')}. This is a dealer-side episode: the retries are the dealer's faults echoed back, not the partner's misbehaviour.`
      : f.kind === 'storm'
      ? `Between ${utc(f.window.since)} and ${utc(f.window.until)} (UTC), ${clients} sent a retry storm to ${f.skills.join(', ') || 'this dealer agent'}: ${f.retries ?? 0} retries in ${f.requests ?? 0} calls (retry ratio ${pct(f.retryRatio)}), detected by ${f.reasons.join(', ')}.`
      : `Between ${utc(f.window.since)} and ${utc(f.window.until)} (UTC), ${clients} received ${f.errors} error${f.errors === 1 ? '' : 's'} from ${f.skills.join(', ') || 'this dealer agent'}.`;
  const main = top ? ` Most were ${top.code} (${top.count}, retryable=${String(top.retryable)}).` : '';
  const flags = Object.entries(f.summary.flags)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return `${lead}${main}${flags ? ` The retry tracker flagged ${flags}.` : ''}`;
}

function impactLines(f: IncidentFacts): [string, string][] {
  return [
    ['Window (UTC)', `${utc(f.window.since)} to ${utc(f.window.until)}`],
    ['Client', f.clients.map((c) => clientProse(c, f)).join(', ')],
    ['Services', f.services.join(', ')],
    ['Skills', f.skills.join(', ') || '(none)'],
    ['Requests', f.requests === null ? 'n/a (no traffic counters)' : String(f.requests)],
    ['Errors', String(f.errors)],
    ['Retries', f.retries === null ? 'n/a' : String(f.retries)],
    ['Retry ratio', pct(f.retryRatio)],
  ];
}

/** The draft as an incident document (the layout `renderDocumentText` writes, shared with the buyer-side report). Pure. */
export function incidentDocument(f: IncidentFacts): IncidentDocument {
  return {
    subject: incidentSubject(f),
    sections: [
      { title: 'Summary', blocks: [{ kind: 'paragraph', text: summaryParagraph(f) }] },
      { title: 'Impact', blocks: [{ kind: 'fields', rows: impactLines(f) }] },
      { title: 'Timeline (UTC)', blocks: [{ kind: 'lines', lines: f.timeline.map((t) => `${utc(t.at)}  ${t.text}`) }] },
      {
        title: 'Errors by code',
        blocks: [
          {
            kind: 'table',
            columns: [
              { title: 'CODE', width: 30 },
              { title: 'PROTOCOL', width: 10 },
              { title: 'RETRYABLE', width: 11 },
              { title: 'COUNT', width: 7, align: 'right' },
              { title: 'RETRIES', width: 9, align: 'right' },
              { title: 'MAX ATTEMPT', width: 13, align: 'right' },
            ],
            rows: f.summary.codes.map((c) => [c.code, c.protocol, String(c.retryable), String(c.count), String(c.retries), String(c.maxAttempt)]),
          },
        ],
      },
      {
        title: 'Evidence (error_id + trace_id)',
        blocks: [
          {
            kind: 'lines',
            lines: f.summary.samples.map(
              (s) =>
                `${s.error_id}  trace_id=${s.trace_id ?? '-'}${s.upstream_trace_id ? `  upstream_trace_id=${s.upstream_trace_id}` : ''}  ${utc(s.occurred_at)}  ${s.code}  attempt ${s.attempt}${
                  traceLink(f.traceUrl, s.trace_id) ? `  ${traceLink(f.traceUrl, s.trace_id)}` : ''
                }`,
            ),
          },
        ],
      },
      ...(f.guidance.length === 0
        ? []
        : [
            {
              title: 'What the client did, and what the spec says it should do',
              blocks: [
                {
                  kind: 'lines' as const,
                  lines: f.guidance.flatMap((g) => [
                    `${g.code} (${g.protocol}, retryable=${String(g.retryable)})${g.meaning ? `: ${g.meaning}` : ''}`,
                    `  Did:    ${g.did}`,
                    `  Should: ${g.should}${g.specSection ? ` [${g.specSection}]` : ''}`,
                  ]),
                },
              ],
            },
          ]),
      { title: 'Requested action', blocks: [{ kind: 'numbered', items: f.requestedAction }] },
      { title: 'Next update', blocks: [{ kind: 'paragraph', text: `By ${utcMinute(f.nextUpdateAt).replace(/Z$/, '')} UTC, or sooner if the errors stop or change.` }] },
    ],
  };
}

/** Renders a draft as plain text (the body of the .eml as well), through the shared incident composer. Pure. */
export function renderIncidentText(f: IncidentFacts): string {
  return renderDocumentText(incidentDocument(f));
}

const mdCell = (s: string): string => s.replace(/\|/g, '\\|');

/** Renders a draft as Markdown. Pure. */
export function renderIncidentMarkdown(f: IncidentFacts): string {
  const out: string[] = [];
  out.push(`# ${incidentSubject(f)}`, '', '## Summary', '', summaryParagraph(f), '', '## Impact', '');
  out.push('| | |', '|---|---|');
  for (const [k, v] of impactLines(f)) out.push(`| ${k} | ${mdCell(v)} |`);
  out.push('', '## Timeline (UTC)', '');
  for (const t of f.timeline) out.push(`- \`${utc(t.at)}\` ${t.text}`);
  out.push('', '## Errors by code', '', '| Code | Protocol | Retryable | Count | Retries | Max attempt |', '|---|---|---|---:|---:|---:|');
  for (const c of f.summary.codes) out.push(`| \`${c.code}\` | ${c.protocol} | ${String(c.retryable)} | ${c.count} | ${c.retries} | ${c.maxAttempt} |`);
  out.push('', '## Evidence', '', '| error_id | trace_id | upstream_trace_id | time (UTC) | code | attempt |', '|---|---|---|---|---|---:|');
  for (const s of f.summary.samples) {
    const link = traceLink(f.traceUrl, s.trace_id);
    out.push(`| \`${s.error_id}\` | ${link ? `[\`${s.trace_id}\`](${link})` : `\`${s.trace_id ?? '-'}\``} | ${s.upstream_trace_id ? `\`${s.upstream_trace_id}\`` : '-'} | ${utc(s.occurred_at)} | ${s.code} | ${s.attempt} |`);
  }
  out.push('');
  if (f.guidance.length > 0) out.push('## What the client did, and what the spec says it should do', '');
  for (const g of f.guidance) {
    out.push(`### \`${g.code}\` (${g.protocol}, retryable=${String(g.retryable)})`, '');
    if (g.meaning) out.push(g.meaning, '');
    out.push(`- **Did:** ${g.did}`, `- **Should:** ${g.should}`);
    if (g.specSection) out.push(`- **Spec:** ${g.specSection}`);
    out.push('');
  }
  out.push('## Requested action', '');
  f.requestedAction.forEach((a, i) => out.push(`${i + 1}. ${a}`));
  out.push('', '## Next update', '', `By ${utcMinute(f.nextUpdateAt).replace(/Z$/, '')} UTC, or sooner if the errors stop or change.`, '');
  return out.join('\n');
}

/**
 * An incident draft (subject, text, Markdown, facts) for a storm, a query or error ids;
 * undefined when the source selects nothing. See `buildIncident`; `buildIncidentEml` makes the .eml.
 */
export async function draftIncident(db: Db, source: DraftSource, options: DraftOptions = {}): Promise<IncidentDraft | undefined> {
  const facts = await buildIncident(db, source, options);
  if (!facts) return undefined;
  return { subject: incidentSubject(facts), text: renderIncidentText(facts), markdown: renderIncidentMarkdown(facts), facts };
}
