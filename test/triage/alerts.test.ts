// The pure half of audit-store alerts (issue 30): one storm episode or issue → one Alertmanager
// alert. The storm's `cause` is read defensively (storm detection adds it; without it an episode
// is a client storm), a labelled client shows its label, and endsAt says firing or resolved.
import { describe, expect, it } from 'vitest';
import { issueAlert, stormAlert, type AlertContext, type Issue, type StormEpisode } from '../../src/triage/index.js';

const START = Date.UTC(2026, 10, 30, 10, 0, 0);
const MIN = 60_000;
const CLIENT = 'stormClientAAAAAAAAAAA';

const storm = (over: Partial<StormEpisode> = {}): StormEpisode =>
  ({
    cause: 'client',
    id: 'storm-20261130T1000Z-0a1b2c3d',
    client: CLIENT,
    start: START,
    end: START + 5 * MIN,
    skills: ['lead.submit'],
    reasons: ['retry-ratio'],
    series: [],
    requests: 80,
    errors: 80,
    retries: 60,
    flagged: 60,
    retryRatio: 0.75,
    amplification: 4,
    peakPerMinute: 16,
    peakRetriesPerMinute: 12,
    codes: [{ code: 'INTERNAL_ERROR', protocol: 'aap', count: 80, retryable: true, retries: 60, maxAttempt: 4 }],
    flags: { retried_non_retryable: 0, ignored_retry_after: 0, no_backoff: 0 },
    overAttemptCap: 0,
    overBudget: true,
    samples: [],
    ...over,
  }) as StormEpisode;

const ctx = (now: number, over: Partial<AlertContext> = {}): AlertContext => ({
  now,
  everyMs: MIN,
  labels: new Map(),
  command: (rest) => `npx aap-triage ${rest}`,
  traceUrl: null,
  ...over,
});

describe('stormAlert', () => {
  it('names a client storm and a dealer-side episode apart, each with its own severity', () => {
    const client = stormAlert(storm(), ['dealer-a'], ctx(START + 6 * MIN));
    expect(client.labels).toEqual({ alertname: 'AapTriageClientRetryStorm', severity: 'warning', service: 'dealer-a', storm_id: 'storm-20261130T1000Z-0a1b2c3d', client: 'stormCli' });
    const dealer = stormAlert(storm({ cause: 'dealer' }), ['dealer-a'], ctx(START + 6 * MIN));
    expect(dealer.labels).toMatchObject({ alertname: 'AapTriageDealerFaultEpisode', severity: 'critical' });
    expect(dealer.annotations.summary).toMatch(/^Dealer-side episode: stormCli retries INTERNAL_ERROR by the book/);
    expect(dealer.annotations.runbook_url).toBe('https://aap-triage.example/docs/alerts.md#aaptriagedealerfaultepisode');
  });

  it("shows a labelled client by its label, never the pseudonym's tail", () => {
    const labels = new Map([[CLIENT, { client: CLIENT, name: 'Acme Motors', contact: null, updated_at: 0 }]]);
    expect(stormAlert(storm(), [], ctx(START, { labels })).labels.client).toBe('Acme Motors');
  });

  it('renews endsAt 4 periods ahead while the storm holds, and ends it at its last stormy minute after the hold (10 min)', () => {
    const holding = stormAlert(storm(), [], ctx(START + 14 * MIN));
    expect(holding.endsAt).toBe(new Date(START + 18 * MIN).toISOString());
    const over = stormAlert(storm(), [], ctx(START + 15 * MIN));
    expect(over.endsAt).toBe(new Date(START + 5 * MIN).toISOString());
    expect(over.startsAt).toBe(new Date(START).toISOString());
  });
});

describe('issueAlert', () => {
  const issue = (over: Partial<Issue>): Issue => ({
    key: '0123456789abcdef', title: 'VEHICLE_NOT_FOUND · inventory.vehicle · dealer-a (aap)', service: 'dealer-a', protocol: 'aap',
    rpc_method: 'SendMessage', skill: 'inventory.vehicle', code: 'VEHICLE_NOT_FOUND', violations: [], conformance: [], count: 3, clients: 1,
    retryable: false, retryable_split: { true: 0, false: 3, unknown: 0 }, first_seen: START, last_seen: START + MIN, first_seen_ever: START,
    state: 'new', regressed_at: null, trend: [], last_error_id: 'err_0', last_trace_id: null,
    status: 'open', operator_state: null, regressed_in: null, muted_count: null, first_seen_version: null, last_seen_version: null, versions: [], ...over,
  });

  it('alerts new and regressed issues, never ongoing ones', () => {
    expect(issueAlert(issue({}), ctx(START + 2 * MIN))?.labels).toEqual({
      alertname: 'AapTriageNewIssue', severity: 'warning', service: 'dealer-a', protocol: 'aap', code: 'VEHICLE_NOT_FOUND', issue_key: '0123456789abcdef',
    });
    const back = issueAlert(issue({ state: 'regressed', regressed_at: START + 30_000, first_seen_ever: START - 86_400_000 }), ctx(START + 2 * MIN));
    expect(back?.labels.alertname).toBe('AapTriageIssueRegressed');
    expect(back?.startsAt).toBe(new Date(START + 30_000).toISOString());
    expect(issueAlert(issue({ state: 'ongoing' }), ctx(START + 2 * MIN))).toBeNull();
  });

  it('links the last trace when a trace template is set, as annotation and generatorURL', () => {
    const a = issueAlert(issue({ last_trace_id: 'ab'.repeat(16) }), ctx(START, { traceUrl: 'https://tempo.example.com/trace/{trace_id}' }));
    expect(a?.annotations.trace).toBe(`https://tempo.example.com/trace/${'ab'.repeat(16)}`);
    expect(a?.generatorURL).toBe(a?.annotations.trace);
  });
});
