/**
 * The HTTP `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as a floor on
 * the next delay, alongside the payload's `retry_after_ms` / `retry_after_seconds`
 * (spec/aap-errors.txt "RATE_LIMITED"), against a real `node:http` server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DealerAgentError, createAapFetch, createRetryBudget, withRetries } from '../../src/client/index.js';
import { parseRetryAfter } from '../../src/client/retry-after.js';
import { buildAapError } from '../../src/protocol/index.js';
import { startRawServer } from './fixtures/raw-server.js';
import type { RawServer } from './fixtures/raw-server.js';

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.script.length = 0;
  server.requests.length = 0;
});

const DATE = 'Tue, 01 Dec 2026 14:00:00 GMT';
const search = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request' } }] } } };
const rateLimited = (details: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, error: buildAapError('RATE_LIMITED', { form: '2.0', message: 'Per-key rate limit exceeded.', details }) });
const internal = (retryable: boolean) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, error: buildAapError('INTERNAL_ERROR', { form: '2.0', message: 'Upstream inventory feed failed.', retryable }) });
const ok = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { message: { role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response', vehicles: [] } }] } } });

/** Runs one call through `withRetries` and returns the delays it slept, ms. */
async function waitsFor(first: { status?: number; headers: Record<string, string>; body: string }): Promise<{ waits: number[]; error: unknown }> {
  server.script.push({ status: first.status ?? 200, headers: { 'content-type': 'application/json', ...first.headers }, chunks: [first.body] });
  server.script.push({ headers: { 'content-type': 'application/json' }, chunks: [ok] });
  const aapFetch = createAapFetch({ logger: false });
  const waits: number[] = [];
  let error: unknown = null;
  await withRetries(
    async () => (await aapFetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(search) })).text(),
    { budget: createRetryBudget(), random: () => 0, sleep: async (ms) => void waits.push(ms), logger: false },
  ).catch((e: unknown) => {
    error = e;
  });
  return { waits, error };
}

describe('parseRetryAfter', () => {
  const ref = Date.parse(DATE);
  it('reads delay-seconds and the three HTTP-date forms, measured from the reference time', () => {
    expect(parseRetryAfter('120', ref)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', ref)).toBe(0);
    expect(parseRetryAfter('Tue, 01 Dec 2026 14:00:07 GMT', ref)).toBe(7_000);
    expect(parseRetryAfter('Tuesday, 01-Dec-26 14:00:07 GMT', ref)).toBe(7_000);
    expect(parseRetryAfter('Tue Dec  1 14:00:07 2026', ref)).toBe(7_000);
  });

  it('is 0 for a date already past, null for what is not a delay or a date, and at most a day', () => {
    expect(parseRetryAfter('Tue, 01 Dec 2026 13:00:00 GMT', ref)).toBe(0);
    for (const bad of ['', '-5', '1.5', 'soon', '2026-12-01T14:00:07Z', null, undefined]) expect(parseRetryAfter(bad, ref)).toBeNull();
    expect(parseRetryAfter('999999999', ref)).toBe(86_400_000);
  });
});

describe('withRetries over createAapFetch', () => {
  it('waits the Retry-After seconds when they exceed retry_after_ms', async () => {
    const { waits } = await waitsFor({ headers: { 'retry-after': '3' }, body: rateLimited({ retry_after_ms: 1000 }) });
    expect(waits).toEqual([3000]);
  });

  it('waits until a Retry-After date, measured from the response Date header', async () => {
    const { waits } = await waitsFor({ status: 429, headers: { 'retry-after': 'Tue, 01 Dec 2026 14:00:07 GMT', date: DATE }, body: rateLimited({ retry_after_seconds: 2 }) });
    expect(waits).toEqual([7000]);
  });

  it('keeps the longer payload hint when the header asks for less', async () => {
    const { waits } = await waitsFor({ headers: { 'retry-after': '1' }, body: rateLimited({ retry_after_ms: 4500 }) });
    expect(waits).toEqual([4500]);
  });

  it('raises the backoff of a retryable error without a payload hint to the header', async () => {
    const { waits } = await waitsFor({ status: 503, headers: { 'retry-after': '4' }, body: internal(true) });
    expect(waits).toEqual([4000]);
  });

  it('does not retry a non-retryable error because of the header, and stops on a wait over maxRetryAfterMs', async () => {
    const refused = await waitsFor({ status: 503, headers: { 'retry-after': '1' }, body: internal(false) });
    expect(refused.waits).toEqual([]);
    expect((refused.error as DealerAgentError).stopReason).toBe('not-retryable');
    server.script.length = 0;
    const tooLong = await waitsFor({ headers: { 'retry-after': '120' }, body: rateLimited({ retry_after_ms: 1000 }) });
    expect(tooLong.waits).toEqual([]);
    expect(tooLong.error).toBeInstanceOf(DealerAgentError);
    expect((tooLong.error as DealerAgentError).stopReason).toBe('retry-after-too-long');
    expect((tooLong.error as DealerAgentError).retryAfterMs).toBe(120_000);
  });
});
