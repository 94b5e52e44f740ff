/**
 * The incident document of a draft (DESIGN §7): subject, summary, impact, timeline, errors by
 * code, evidence, guidance, requested action and next update, built once from the facts
 * (draft-facts.ts) and laid out by src/incident's renderers (plain text, Markdown; the .eml
 * body is the text). Pure.
 */
import { renderDocumentMarkdown, renderDocumentText, type IncidentDocument } from '../incident/index.js';
import { NO_CREDENTIAL, shortClient as shortClientId } from './clients.js';
import { causingFaults } from './codes.js';
import { percent } from './draft-advice.js';
import type { IncidentFacts } from './draft-facts.js';
import { traceLink } from './trace-link.js';

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

/** The subject line of a draft. */
export function incidentSubject(f: IncidentFacts): string {
  // A code is one entry per protocol in the breakdown; the subject names each once.
  // A dealer-side episode is named by the faults that caused it.
  const named = f.kind === 'storm' && f.cause === 'dealer' ? causingFaults(f.summary.codes) : f.summary.codes;
  const codes = distinct(named.map((c) => c.code)).slice(0, 2).join(', ');
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
      ? `Between ${utc(f.window.since)} and ${utc(f.window.until)} (UTC), ${f.skills.join(', ') || 'this dealer agent'} answered retryable faults, and ${clients} retried them as the backoff policy allows: ${f.retries ?? 0} retries in ${f.requests ?? 0} calls (retry ratio ${percent(f.retryRatio)}), detected by ${f.reasons.join(', ')}. This is a dealer-side episode: the retries are the dealer's faults echoed back, not the partner's misbehaviour.`
      : f.kind === 'storm'
      ? `Between ${utc(f.window.since)} and ${utc(f.window.until)} (UTC), ${clients} sent a retry storm to ${f.skills.join(', ') || 'this dealer agent'}: ${f.retries ?? 0} retries in ${f.requests ?? 0} calls (retry ratio ${percent(f.retryRatio)}), detected by ${f.reasons.join(', ')}.`
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
    [f.clients.length > 1 ? 'Clients' : 'Client', f.clients.map((c) => clientProse(c, f)).join(', ')],
    ['Services', f.services.join(', ')],
    ['Skills', f.skills.join(', ') || '(none)'],
    ['Requests', f.requests === null ? 'n/a (no traffic counters)' : String(f.requests)],
    ['Errors', String(f.errors)],
    ['Retries', f.retries === null ? 'n/a' : String(f.retries)],
    ['Retry ratio', percent(f.retryRatio)],
  ];
}

/** The draft as an incident document (the one both renderers lay out, shared in form with the buyer-side report). Pure. */
export function incidentDocument(f: IncidentFacts): IncidentDocument {
  return {
    subject: incidentSubject(f),
    sections: [
      { title: 'Summary', blocks: [{ kind: 'paragraph', text: summaryParagraph(f) }] },
      { title: 'Impact', blocks: [{ kind: 'fields', rows: impactLines(f) }] },
      { title: 'Timeline (UTC)', blocks: [{ kind: 'events', events: f.timeline.map((t) => ({ at: utc(t.at), text: t.text })) }] },
      {
        title: 'Errors by code',
        blocks: [
          {
            kind: 'table',
            columns: [
              { title: 'Code', width: 30, code: true },
              { title: 'Protocol', width: 10 },
              { title: 'Retryable', width: 11 },
              { title: 'Count', width: 7, align: 'right' },
              { title: 'Retries', width: 9, align: 'right' },
              { title: 'Max attempt', width: 13, align: 'right' },
            ],
            rows: f.summary.codes.map((c) => [c.code, c.protocol, String(c.retryable), String(c.count), String(c.retries), String(c.maxAttempt)]),
          },
        ],
      },
      {
        title: 'Evidence',
        titleNote: 'error_id + trace_id',
        blocks: [
          {
            kind: 'records',
            columns: [
              { title: 'error_id', code: true },
              { title: 'trace_id', keyed: '=', code: true },
              { title: 'upstream_trace_id', keyed: '=', optional: true, code: true },
              { title: 'time (UTC)' },
              { title: 'code' },
              { title: 'attempt', keyed: ' ', align: 'right' },
            ],
            rows: f.summary.samples.map((s) => [
              { value: s.error_id },
              { value: s.trace_id ?? '-', link: traceLink(f.traceUrl, s.trace_id) },
              { value: s.upstream_trace_id ?? '' },
              { value: utc(s.occurred_at) },
              { value: s.code },
              { value: String(s.attempt) },
            ]),
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
                  kind: 'entries' as const,
                  entries: f.guidance.map((g) => ({
                    name: g.code,
                    qualifier: ` (${g.protocol}, retryable=${String(g.retryable)})`,
                    note: g.meaning,
                    fields: [
                      ['Did', g.did],
                      ['Should', g.should],
                    ] as const,
                    reference: g.specSection ? { label: 'Spec', text: g.specSection } : null,
                  })),
                },
              ],
            },
          ]),
      { title: 'Requested action', blocks: [{ kind: 'numbered', items: f.requestedAction }] },
      { title: 'Next update', blocks: [{ kind: 'paragraph', text: `By ${utcMinute(f.nextUpdateAt).replace(/Z$/, '')} UTC, or sooner if the errors stop or change.` }] },
    ],
  };
}

/** Renders a draft as plain text (the body of the .eml as well). Pure. */
export function renderIncidentText(f: IncidentFacts): string {
  return renderDocumentText(incidentDocument(f));
}

/** Renders a draft as Markdown. Pure. */
export function renderIncidentMarkdown(f: IncidentFacts): string {
  return renderDocumentMarkdown(incidentDocument(f));
}
