/**
 * The rewrite on a real @a2a-js/sdk server for the cases issue 15 lists that the stock SDK
 * produces itself: a validation AapError thrown without its failing fields still reaches the
 * buyer with `details.errors[]`, and the body passes our own checker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceRuleIds } from '../../src/protocol/index.js';
import { post, sendMessageBody, startAapServer } from '../helpers/aap-server.js';
import type { AapServer } from '../helpers/aap-server.js';
import { captureSdkConsole } from '../helpers/sdk-console.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let srv: AapServer;
const sdkConsole = captureSdkConsole();
beforeAll(async () => {
  h = createHarness();
  srv = await startAapServer({ triage: h.triage });
});
afterAll(async () => {
  await srv.close();
  await h.triage.shutdown();
});

describe('a validation AapError thrown without details', () => {
  it.each(['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION'])('%s reaches the buyer with a details.errors[] entry', async (code) => {
    const id = `val-${code}`;
    const r = await post(srv.rpcUrl, sendMessageBody(id, 'lead.submit', { failInHandler: code }));
    const data = (r.json as { error: { code: number; data: Array<Record<string, unknown>> } }).error.data;
    const payload = data.find((d) => d['@type'] === 'https://autoagentprotocol.org/extensions/aap/error') as { details: { errors: unknown[] } };
    expect(payload.details.errors).toEqual([{ instanceLocation: '', keyword: expect.any(String), error: `test failure ${code}` }]);
    expect(conformanceRuleIds(r.json, { family: 'aap' })).toEqual([]);
    expect(sdkConsole.lines).toEqual([]);
  });
});
