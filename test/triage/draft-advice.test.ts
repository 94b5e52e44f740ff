import { describe, expect, it } from 'vitest';
import { BACKOFF_SCHEDULE, guidanceFor } from '../../src/triage/draft-advice.js';
import { STORM_DEFAULTS } from '../../src/triage/storm-detect.js';
import type { CodeBreakdown, ErrorSummary } from '../../src/triage/summary.js';

const NO_FLAGS = { retried_non_retryable: 0, ignored_retry_after: 0, no_backoff: 0 };

describe('the advice of a draft', () => {
  it("states the backoff schedule of spec/dmc12-errors.txt's retry strategy (\"~1s → 2s → 4s, capped\")", () => {
    expect(BACKOFF_SCHEDULE).toBe('~1 s → 2 s → 4 s');
  });

  it('asks a retryable code for that schedule and the attempt cap of the thresholds it was drafted with', () => {
    const b = { code: 'UPSTREAM_UNAVAILABLE', protocol: 'dmc12', retryable: true, count: 4, retries: 3, maxAttempt: 4, flags: NO_FLAGS, retryAfterMs: null } as unknown as CodeBreakdown;
    const summary = { codes: [b] } as unknown as ErrorSummary;
    const [five] = guidanceFor(summary, STORM_DEFAULTS.attemptCap);
    const [three] = guidanceFor(summary, 3);
    expect(five?.should).toContain(BACKOFF_SCHEDULE);
    expect(five?.should).toMatch(/at most 5 attempts/i);
    expect(three?.should).toMatch(/at most 3 attempts/i);
  });

  it('states the schedule once when the code table\'s action already gives it (DMC-12 RATE_LIMITED: "~1 s → 2 s → 4 s with jitter")', () => {
    const b = { code: 'RATE_LIMITED', protocol: 'dmc12', retryable: true, count: 4, retries: 3, maxAttempt: 4, flags: NO_FLAGS, retryAfterMs: null } as unknown as CodeBreakdown;
    const [g] = guidanceFor({ codes: [b] } as unknown as ErrorSummary, STORM_DEFAULTS.attemptCap);
    expect(g?.should.split(BACKOFF_SCHEDULE)).toHaveLength(2);
    expect(g?.should).toContain('At most 5 attempts in all');
  });

  it("leaves a retry-only spec action to the requested actions that ask each part of it (AAP RATE_LIMITED: \"Back off and retry, honouring details.retry_after_ms\"), issue 28", () => {
    const b = { code: 'RATE_LIMITED', protocol: 'aap', retryable: true, count: 9, retries: 8, maxAttempt: 9, flags: { ...NO_FLAGS, ignored_retry_after: 8, no_backoff: 8 }, retryAfterMs: null } as unknown as CodeBreakdown;
    const summary = { codes: [b] } as unknown as ErrorSummary;
    const both = new Map([['RATE_LIMITED', { hint: true, backoff: true }]]);
    const [g] = guidanceFor(summary, STORM_DEFAULTS.attemptCap, both);
    expect(g?.should).toBe('Wait and retry as the requested actions below say; then report the error_id and trace_id.');
    // Asked only to wait: the backing off is said here in the rule's words, the waiting only below.
    const [hintOnly] = guidanceFor(summary, STORM_DEFAULTS.attemptCap, new Map([['RATE_LIMITED', { hint: true, backoff: false }]]));
    expect(hintOnly?.should).toContain(`Wait as the requested action below says; retry only with exponential backoff and jitter (${BACKOFF_SCHEDULE}, capped), at most 5 attempts`);
    expect(hintOnly?.should).not.toMatch(/retry_after/);
    // Nothing asked: the spec's action as written, and the rule's parts it does not say.
    const [none] = guidanceFor(summary, STORM_DEFAULTS.attemptCap);
    expect(none?.should).toMatch(/^Back off and retry, honouring details\.retry_after_ms \/ retry_after_seconds\. Schedule ~1 s → 2 s → 4 s/);
  });

  it("keeps the rest of a spec action whose retry clause a requested action asks for (AAP: \"…; if it persists, surface to the operator with error_id\")", () => {
    const b = { code: 'INTERNAL_ERROR', protocol: 'aap', retryable: true, count: 9, retries: 8, maxAttempt: 9, flags: { ...NO_FLAGS, no_backoff: 8 }, retryAfterMs: null } as unknown as CodeBreakdown;
    const [g] = guidanceFor({ codes: [b] } as unknown as ErrorSummary, STORM_DEFAULTS.attemptCap, new Map([['INTERNAL_ERROR', { hint: false, backoff: true }]]));
    expect(g?.should).toMatch(/^If it persists, surface to the operator with error_id\. /);
    expect(g?.should).not.toMatch(/back ?off/i);
  });
});
