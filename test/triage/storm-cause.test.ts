/**
 * Who a storm blames (issue 28, DESIGN §6), on constructed traffic: a simulated client calls a
 * simulated dealer; each attempt goes through the instrumentation's real `RetryTracker` (attempt
 * number and flags, as the host would record them), errors become audit rows and every call a
 * traffic count, written to a real store; `findStorms` then reads them back on SQLite and
 * PostgreSQL. A client on the client library's own policy (`decideRetry`) retrying a retryable
 * dealer fault is a dealer-side episode; each flag, attempts over the cap and retries no fault
 * explains make it the client's storm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideRetry, resolveRetryPolicy } from '../../src/client/retry-policy.js';
import { RetryTracker } from '../../src/instrument/exchange/retry-tracker.js';
import type { ErrorEvent, TrafficSample } from '../../src/protocol/error-event.js';
import { draftIncident, findStorms, stormCause, type CausePoint, type StormEpisode } from '../../src/triage/index.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { event, MIN, T0 } from './seed.js';

/** How the dealer answers one attempt: null for success. */
type Answer = { code: string; retryable: boolean; retryAfterMs: number | null } | null;

interface Scenario {
  client: string;
  /** Dealer's answer to attempt `attempt` of call `n`. */
  answer: (n: number, attempt: number) => Answer;
  /** Client's wait before its next attempt after `answer`, ms; null to stop. */
  next: (attempt: number, answer: Answer, n: number) => number | null;
}

const MINUTES = 5;
/** The dealer answers each attempt this long after it arrived, ms. */
const ANSWER_MS = 5;
const CALLS_PER_MINUTE = 20;
const UPSTREAM: Answer = { code: 'UPSTREAM_UNAVAILABLE', retryable: true, retryAfterMs: null };
const SCHEMA: Answer = { code: 'SCHEMA_VALIDATION_FAILED', retryable: false, retryAfterMs: null };
const LIMITED: Answer = { code: 'RATE_LIMITED', retryable: true, retryAfterMs: 5_000 };

/** The client library's default policy, with a fixed random number (mid-jitter). */
const policy = resolveRetryPolicy();
function onPolicy(attempt: number, answer: Answer): number | null {
  if (answer === null) return null;
  const d = decideRetry({ outcome: { kind: 'dealer-error', retryable: answer.retryable, retryAfterMs: answer.retryAfterMs }, attempt, tokens: 10, now: 0, startedAt: 0, random: 0.5 }, policy, null);
  return d.retry ? d.delayMs : null;
}

/** Runs a scenario through the real tracker: the error rows and traffic it leaves. */
function simulate(s: Scenario): { events: ErrorEvent[]; traffic: TrafficSample[] } {
  type Attempt = { at: number; n: number; attempt: number; answer: Answer };
  const attempts: Attempt[] = [];
  for (let n = 0; n < MINUTES * CALLS_PER_MINUTE; n++) {
    let at = T0 + Math.floor(n / CALLS_PER_MINUTE) * MIN + (n % CALLS_PER_MINUTE) * 2_500;
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = s.answer(n, attempt);
      attempts.push({ at, n, attempt, answer });
      const wait = s.next(attempt, answer, n);
      if (wait === null) break;
      at += ANSWER_MS + wait; // the client waits from the answer
    }
  }
  attempts.sort((a, b) => a.at - b.at);
  const tracker = new RetryTracker();
  const events: ErrorEvent[] = [];
  const traffic = new Map<number, TrafficSample>();
  for (const a of attempts) {
    const r = tracker.record(`call-${a.n}`, a.at, null, { at: a.at + ANSWER_MS, ok: a.answer === null, retryable: a.answer?.retryable ?? null, retryAfterMs: a.answer?.retryAfterMs ?? null });
    const minute = a.at - (a.at % MIN);
    const t = traffic.get(minute) ?? { minute, service: 'dealer-test', skill: 'lead.submit', client: s.client, requests: 0, errors: 0, retries: 0 };
    t.requests += 1;
    if (a.answer) t.errors += 1;
    if (r.attempt > 1) t.retries += 1;
    traffic.set(minute, t);
    if (a.answer) {
      events.push(
        event({
          occurred_at: a.at + ANSWER_MS,
          client: s.client,
          skill: 'lead.submit',
          code: a.answer.code,
          retryable: a.answer.retryable,
          retry_after_ms: a.answer.retryAfterMs,
          jsonrpc_code: -32000,
          fingerprint: `fp-${s.client.slice(0, 6)}-${a.n}`,
          attempt: r.attempt,
          retry_flags: r.flags,
        }),
      );
    }
  }
  return { events, traffic: [...traffic.values()] };
}

const client = (name: string): string => `${name}${'X'.repeat(22 - name.length)}`;
/** Every other call meets a fault on its first two attempts. */
const faulty = (fault: Answer) => (n: number, attempt: number): Answer => (n % 2 === 0 && attempt <= 2 ? fault : null);

const SCENARIOS: Record<string, Scenario> = {
  // Retries a retryable fault exactly as the client library's defaults do: the dealer's episode.
  policy: { client: client('policy'), answer: faulty(UPSTREAM), next: onPolicy },
  // RATE_LIMITED with retry_after_ms honoured (the policy waits for it): also the dealer's.
  honoured: { client: client('honoured'), answer: faulty(LIMITED), next: onPolicy },
  // The same policy-conform retries, with a non-retryable one-off now and then (not retried): the
  // episode is still the dealer's and is named by its fault only.
  oneOffs: { client: client('oneOffs'), answer: (n, attempt) => (n % 7 === 1 && attempt === 1 ? SCHEMA : faulty(UPSTREAM)(n, attempt)), next: onPolicy },
  // Retries a non-retryable answer with the policy's delays: retried_non_retryable.
  nonRetryable: { client: client('nonretry'), answer: faulty(SCHEMA), next: (a, ans) => (ans && a < 3 ? 2_000 : null) },
  // Retries RATE_LIMITED after 1.5 s although the dealer asked for 5 s: ignored_retry_after.
  ignoredHint: { client: client('ignoredhint'), answer: faulty(LIMITED), next: (a, ans) => (ans && a < 3 ? 1_500 : null) },
  // Retries a retryable fault after 100 ms: no_backoff.
  noBackoff: { client: client('nobackoff'), answer: faulty(UPSTREAM), next: (a, ans) => (ans && a < 3 ? 100 : null) },
  // Follows the backoff schedule but makes 8 attempts against a fault that lasts: over the cap of 5.
  overCap: {
    client: client('overcap'),
    answer: (n, attempt) => (n % 5 === 0 && attempt <= 8 ? UPSTREAM : null),
    next: (a, ans) => (ans && a < 8 ? Math.min(20_000, 1_000 * 2 ** (a - 1)) : null),
  },
  // Sends every successful call again after 3 s: retries no dealer fault explains.
  unexplained: { client: client('unexplained'), answer: () => null, next: (a) => (a < 2 ? 3_000 : null) },
};

describe.each(STORE_KINDS)('storm cause on constructed traffic (%s store)', (kind) => {
  let store: TestStore;
  let storms: StormEpisode[];
  let reader: Awaited<ReturnType<TestStore['reader']>>;
  const byClient = (c: string): StormEpisode[] => storms.filter((s) => s.client === c);

  beforeAll(async () => {
    store = await createTestStore(kind);
    for (const s of Object.values(SCENARIOS)) {
      const { events, traffic } = simulate(s);
      await store.insertEvents(events);
      await store.insertTraffic(traffic);
    }
    reader = await store.reader();
    storms = await findStorms(reader, { since: T0, until: T0 + 60 * MIN });
  });
  afterAll(async () => {
    await store.cleanup();
  });

  it('calls policy-conform retries of a retryable fault a dealer-side episode (cause dealer), with the codes that caused it', () => {
    for (const name of ['policy', 'honoured', 'oneOffs'] as const) {
      const eps = byClient(SCENARIOS[name]!.client);
      expect(eps.length, name).toBeGreaterThan(0);
      for (const e of eps) {
        expect(e.cause, name).toBe('dealer');
        expect(Object.values(e.flags).every((n) => n === 0), name).toBe(true);
        expect(e.overAttemptCap).toBe(0);
        expect(e.codes.map((c) => c.code), name).toEqual([name === 'honoured' ? 'RATE_LIMITED' : 'UPSTREAM_UNAVAILABLE']);
      }
    }
  });

  it.each([
    ['nonRetryable', 'retried_non_retryable'],
    ['ignoredHint', 'ignored_retry_after'],
    ['noBackoff', 'no_backoff'],
  ] as const)('blames the client for %s (flag %s): cause client', (name, flag) => {
    const eps = byClient(SCENARIOS[name]!.client);
    expect(eps.length).toBeGreaterThan(0);
    for (const e of eps) {
      expect(e.cause).toBe('client');
      expect(e.flags[flag]).toBeGreaterThan(0);
    }
  });

  it('blames the client for attempts over the cap, and for retries no dealer fault explains', () => {
    const over = byClient(SCENARIOS['overCap']!.client);
    expect(over.length).toBeGreaterThan(0);
    expect(over.every((e) => e.cause === 'client' && e.overAttemptCap > 0)).toBe(true);
    const unexplained = byClient(SCENARIOS['unexplained']!.client);
    expect(unexplained.length).toBeGreaterThan(0);
    expect(unexplained.every((e) => e.cause === 'client' && e.errors === 0)).toBe(true);
  });
});

describe.each(STORE_KINDS)('drafts of each cause (%s store)', (kind) => {
  let store: TestStore;
  type Draft = NonNullable<Awaited<ReturnType<typeof draftIncident>>>;
  let drafts: { client: Draft; dealer: Draft; hint: Draft };
  beforeAll(async () => {
    store = await createTestStore(kind);
    for (const name of ['policy', 'nonRetryable', 'ignoredHint'] as const) {
      const { events, traffic } = simulate(SCENARIOS[name]!);
      await store.insertEvents(events);
      await store.insertTraffic(traffic);
    }
    const db = await store.reader();
    const storms = await findStorms(db, { since: T0, until: T0 + 60 * MIN });
    const of = async (c: string) => (await draftIncident(db, { kind: 'storm', id: storms.find((s) => s.client === c)!.id }))!;
    drafts = { dealer: await of(SCENARIOS['policy']!.client), client: await of(SCENARIOS['nonRetryable']!.client), hint: await of(SCENARIOS['ignoredHint']!.client) };
  });
  afterAll(async () => {
    await store.cleanup();
  });

  it("addresses a dealer-side episode to the dealer's own on-call, asking nothing of the partner", () => {
    const d = drafts.dealer;
    expect(d.facts.cause).toBe('dealer');
    expect(d.subject).toMatch(/^\[aap-triage\] Dealer-side retry episode on lead\.submit: UPSTREAM_UNAVAILABLE /);
    expect(d.facts.recipient).toBeNull();
    expect(d.facts.guidance).toEqual([]);
    expect(d.text).not.toMatch(/Should:|Retry storm from|Stop retrying|Back off exponentially|Keep retries under/);
    expect(d.facts.requestedAction[0]).toMatch(/^Find and fix the cause of the retryable faults \(UPSTREAM_UNAVAILABLE\)/);
  });

  it('addresses a client storm to the partner, citing the public pages by name, never a repository path', () => {
    const d = drafts.client;
    expect(d.facts.cause).toBe('client');
    expect(d.subject).toMatch(/^\[aap-triage\] Retry storm from client /);
    expect(d.text).toContain('Should:');
    expect(d.text).toContain('[AAP "Errors" page, "Error code reference"; "Per-code semantics: SCHEMA_VALIDATION_FAILED"]');
    for (const t of [drafts.client.text, drafts.client.markdown, drafts.dealer.text, drafts.dealer.markdown]) expect(t).not.toMatch(/spec\/|\.txt\b|DESIGN|reference\//);
  });
});

describe.each(STORE_KINDS)('advice in a draft (%s store)', (kind) => {
  let store: TestStore;
  let text = '';
  beforeAll(async () => {
    store = await createTestStore(kind);
    const { events, traffic } = simulate(SCENARIOS['ignoredHint']!);
    await store.insertEvents(events);
    await store.insertTraffic(traffic);
    const db = await store.reader();
    const [storm] = await findStorms(db, { since: T0, until: T0 + 60 * MIN });
    text = (await draftIncident(db, { kind: 'storm', id: storm!.id }))!.text;
  });
  afterAll(async () => {
    await store.cleanup();
  });

  it('gives each piece of advice once: the Should line leaves the retry rule to the requested action that asks for it (issue 28)', () => {
    const count = (re: RegExp) => (text.match(re) ?? []).length;
    expect(count(/Wait at least retry_after_ms/g)).toBe(1);
    expect(count(/~1 s → 2 s → 4 s/g)).toBe(1);
    expect(count(/honour retry_after_ms|honouring (details\.)?retry_after_ms/gi)).toBe(0);
    expect(text).toMatch(/Should: Wait as the requested action below says; retry only with exponential backoff [^\n]*; then report the error_id/);
  });
});

describe('stormCause', () => {
  const point = (retries: number, faults: number, flagged = 0, requests = 40): CausePoint => ({ minute: T0, requests, errors: faults, retries, flagged, faults });
  const minutes = (ps: CausePoint[]): CausePoint[] => ps.map((p, i) => ({ ...p, minute: T0 + i * MIN }));

  it('explains a retry by a fault of its own minute or the one before, each fault once', () => {
    expect(stormCause(minutes([point(12, 12), point(12, 12)]), 0)).toBe('dealer');
    // Faults late in a minute, retries early in the next.
    expect(stormCause(minutes([point(0, 12), point(12, 0)]), 0)).toBe('dealer');
    // A fault two minutes back explains nothing: 12 unexplained retries of 40 calls (30 %).
    expect(stormCause(minutes([point(0, 12), point(0, 0), point(12, 0)]), 0)).toBe('client');
    // 12 faults cannot explain 24 retries: 12 of 40 calls left (30 % with ≥ 10).
    expect(stormCause(minutes([point(24, 12)]), 0)).toBe('client');
    // …but 9 unexplained retries are under the floor of 10 a minute.
    expect(stormCause(minutes([point(21, 12)]), 0)).toBe('dealer');
  });

  it('blames the client for repeated flags or attempts over the cap whatever explains the retries', () => {
    expect(stormCause(minutes([point(12, 12, 2)]), 0)).toBe('client');
    expect(stormCause(minutes([point(12, 12, 1)]), 0)).toBe('dealer');
    expect(stormCause(minutes([point(12, 12)]), 1)).toBe('client');
  });
});
