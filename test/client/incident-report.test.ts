/**
 * The buyer-side incident report (issue 18; dmc12-errors.txt "Retry strategy": once retries are
 * exhausted, "surface to an operator with the error_id + trace_id" and "include both in any
 * incident email"). Built from the `DealerAgentError` `withRetries` threw against real dealers
 * (the node:http DMC-12 fixture; the @a2a-js/sdk AAP fixture through the real SDK client), as
 * text and as an .eml read back with mailparser. The requests and the dealers' messages carry
 * obviously fake customer values that must not reach the report.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DealerAgentError, createAapFetch, createRetryBudget, incidentReport, incidentReportEml, withRetries } from '../../src/client/index.js';
import { renderDocumentText } from '../../src/incident/index.js';
import { buildAapError, buildDmc12Error } from '../../src/protocol/index.js';
import { startAapDealer } from './fixtures/aap-dealer.js';
import type { AapDealerFixture } from './fixtures/aap-dealer.js';
import { startDmc12Dealer } from './fixtures/dmc12-dealer.js';
import type { Dmc12DealerFixture } from './fixtures/dmc12-dealer.js';
import { createSdkClient, searchMessage } from './fixtures/sdk-client.js';

const EMAIL = 'report.canary.buyer@example.com';
const PHONE = '+15550104477';
const VIN = '1HGCY2F57RA000042';
const T0 = Date.UTC(2026, 11, 1, 9, 30, 0);
const TRACES = ['trc_report0001', 'trc_report0002', 'trc_report0003'];
const IDS = ['err_0192f5a0c0de7a1b8c9d0e1f2a3b4c01', 'err_0192f5a0c0de7a1b8c9d0e1f2a3b4c02', 'err_0192f5a0c0de7a1b8c9d0e1f2a3b4c03'];

function fakeClock(start: number) {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

let dmc: Dmc12DealerFixture;
let aap: AapDealerFixture;
beforeAll(async () => {
  [dmc, aap] = await Promise.all([startDmc12Dealer(), startAapDealer()]);
});
afterAll(async () => {
  await Promise.all([dmc.close(), aap.close()]);
});

/** A hand-off that fails UPSTREAM_UNAVAILABLE three times; the dealer's message echoes the customer. */
async function exhaustedHandoff(): Promise<DealerAgentError> {
  for (let i = 0; i < 3; i++) {
    const result = buildDmc12Error('UPSTREAM_UNAVAILABLE', { tool: 'initiate_deal_handoff', errorId: IDS[i], message: `CRM down while handing off ${EMAIL}` });
    dmc.script.push({ resultError: result.data as Record<string, unknown>, traceId: TRACES[i] });
  }
  const aapFetch = createAapFetch({ logger: false });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'initiate_deal_handoff', arguments: { vin: VIN, customer: { name: 'Test Buyer-report', email: EMAIL, phone: PHONE } } },
  });
  const clock = fakeClock(T0);
  const err = await withRetries(
    () => aapFetch(dmc.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer test-token-0001' }, body }),
    { ...clock, random: () => 0, maxAttempts: 3, budget: createRetryBudget(), logger: false },
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DealerAgentError);
  return err as DealerAgentError;
}

describe('incidentReport from a withRetries outcome (DMC-12, retries exhausted)', () => {
  let err: DealerAgentError;
  beforeAll(async () => {
    err = await exhaustedHandoff();
  });

  it('states code, retryable, error_id, trace_id, upstream trace id, time and why retries stopped', () => {
    const r = incidentReport(err, { dealer: 'Demo Motors (dmc12.example.com)', buyer: 'steady-sofia', now: T0 + 60_000 });
    expect(r.subject).toBe(`[aap-triage] UPSTREAM_UNAVAILABLE from Demo Motors (dmc12.example.com) after 3 attempts (error_id ${IDS[2]})`);
    expect(r.text.startsWith(`Subject: ${r.subject}\n\nSummary\n`)).toBe(true);
    expect(r.text).toContain("steady-sofia's tools/call (initiate_deal_handoff) to Demo Motors (dmc12.example.com) failed with UPSTREAM_UNAVAILABLE (dmc12, HTTP 200, retryable=true) after 3 attempts; retries stopped because the attempt limit was reached.");
    for (const [label, value] of [
      ['Code', 'UPSTREAM_UNAVAILABLE'],
      ['Protocol', 'dmc12 (dmc12)'],
      ['JSON-RPC code', '-'],
      ['Retryable', 'true'],
      ['error_id', IDS[2]],
      ['trace_id', TRACES[2]],
      ['Upstream trace id', TRACES[2]],
      ['Skill / tool', 'initiate_deal_handoff'],
      ['Time (UTC)', '2026-12-01 09:30:01.500Z'], // third attempt: after waits of 500 ms and 1000 ms (equal jitter at 0)
      ['Attempts', '3'],
      ['Stopped because', 'the attempt limit was reached'],
    ] as const) {
      expect(r.text).toContain(`  ${`${label}:`.padEnd(20)}${value}\n`);
    }
  });

  it('lists every attempt with its time, code, error_id, trace_id and wait', () => {
    const lines = incidentReport(err, { now: T0 }).text.split('\n');
    const table = lines.slice(lines.indexOf('Attempts (UTC)') + 1, lines.indexOf('Requested action') - 1);
    expect(table[0]).toMatch(/^ {2}ATTEMPT +STARTED +CODE +ERROR_ID +TRACE_ID +RETRY AFTER MS +WAITED MS$/);
    expect(table.slice(1).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['1', '2026-12-01 09:30:00.000Z', 'UPSTREAM_UNAVAILABLE', IDS[0], TRACES[0], '-', '500'],
      ['2', '2026-12-01 09:30:00.500Z', 'UPSTREAM_UNAVAILABLE', IDS[1], TRACES[1], '-', '1000'],
      ['3', '2026-12-01 09:30:01.500Z', 'UPSTREAM_UNAVAILABLE', IDS[2], TRACES[2], '-', '-'],
    ]);
  });

  it('holds no request value and no dealer message text', () => {
    const text = incidentReport(err, { now: T0 }).text;
    for (const v of [EMAIL, PHONE, VIN, 'Test Buyer-report', 'CRM down', 'test-token-0001']) expect(text, v).not.toContain(v);
  });

  it('is the same text through the shared composer the CLI drafts use, and an RFC 5322 .eml for the support address', async () => {
    const r = incidentReport(err, { now: T0 });
    expect(renderDocumentText(r.document)).toBe(r.text);
    const bytes = await incidentReportEml(err, { now: T0, from: 'Buyer agent ops <ops@buyer.example.com>', to: 'support@dealer.example.com' });
    const raw = bytes.toString('utf8');
    for (const v of [EMAIL, PHONE, VIN, 'CRM down']) expect(raw, v).not.toContain(v);
    const mail = await simpleParser(bytes);
    expect(mail.subject).toBe(r.subject);
    expect(mail.from?.value[0]).toMatchObject({ name: 'Buyer agent ops', address: 'ops@buyer.example.com' });
    expect((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text).toBe('support@dealer.example.com');
    expect(mail.date?.getTime()).toBe(T0);
    expect(mail.messageId).toMatch(/@buyer\.example\.com>$/);
    expect(mail.text?.replace(/\r\n/g, '\n').trimEnd()).toBe(r.text.slice(r.text.indexOf('\n\n') + 2).trimEnd());
    for (const id of [...IDS, ...TRACES]) expect(mail.text).toContain(id);
  });
});

describe('incidentReport from a DealerAgentError thrown by the SDK path (AAP, not retryable)', () => {
  it('reports the one attempt, the JSON-RPC code, the validation keywords — and no pointer the dealer echoed', async () => {
    const member = buildAapError('SCHEMA_VALIDATION_FAILED', {
      form: '2.0',
      message: `filters.${EMAIL} is not allowed`,
      errorId: IDS[0],
      details: { errors: [{ instanceLocation: `/filters/${EMAIL}`, keyword: 'additionalProperties', error: `${EMAIL} is not a filter` }] },
    });
    aap.script.push({ error: member as unknown as Record<string, unknown> });
    const client = await createSdkClient(aap.baseUrl, createAapFetch({ logger: false }));
    const err = (await withRetries(() => client.sendMessage(searchMessage({ [EMAIL]: 'x', make: ['Honda'] })), { logger: false, budget: false }).catch((e: unknown) => e)) as DealerAgentError;
    expect(err).toBeInstanceOf(DealerAgentError);
    const r = err.incidentReport({ dealer: 'Fixture Motors', now: T0 });
    expect(r.subject).toBe(`[aap-triage] SCHEMA_VALIDATION_FAILED from Fixture Motors after 1 attempt (error_id ${IDS[0]})`);
    expect(r.text).toContain(`  ${'JSON-RPC code:'.padEnd(20)}${String(err.jsonrpcCode)}\n`);
    expect(r.text).toContain(`  ${'Retryable:'.padEnd(20)}false\n`);
    expect(r.text).toContain(`  ${'Stopped because:'.padEnd(20)}the dealer marked the error retryable=false\n`);
    expect(r.text).toContain(`  ${'Validation:'.padEnd(20)}1 problem (additionalProperties)\n`);
    expect(r.text).toContain('the error is not marked retryable, so we will not resend it as is');
    expect(r.text).not.toContain(EMAIL);
    expect(r.text).not.toContain('report.canary');
  });

  it('quotes an id that is not a plain token as (not quotable)', () => {
    const err = Object.assign(Object.create(DealerAgentError.prototype) as DealerAgentError, {
      code: 'INTERNAL_ERROR',
      protocol: 'aap',
      form: 'aap-2.0',
      jsonrpcCode: -32603,
      retryable: true,
      errorId: `err for ${EMAIL}`,
      traceId: null,
      upstreamTraceId: null,
      retryAfterMs: null,
      violations: [],
      httpStatus: 200,
      rpcMethod: 'SendMessage',
      skill: 'lead.submit',
      attempt: null,
      attempts: [],
      stopReason: null,
    });
    const text = incidentReport(err, { now: T0 }).text;
    expect(text).toContain(`  ${'error_id:'.padEnd(20)}(not quotable)\n`);
    expect(text).not.toContain(EMAIL);
  });
});
