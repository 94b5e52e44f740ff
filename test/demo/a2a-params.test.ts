/**
 * The demo AAP dealer checks A2A's own parameter rules before it dispatches a skill (issue 31
 * "Edges"): a `SendMessage` whose message has no parts or no `messageId` is answered -32602
 * InvalidParams (JSON-RPC 2.0 §5.1; the A2A conformance suite's `test_empty_message_parts`
 * accepts -32602 or -32603), never a skill error such as UNSUPPORTED_SKILL (-32004). The real
 * @a2a-js/sdk server over HTTP on loopback, sent raw JSON-RPC bodies.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AapDealer } from '../../src/demo/aap/dealer.js';
import { createAapApp } from '../../src/demo/aap/server.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { closeServer, listenLoopback } from '../../src/demo/http-util.js';
import { demoInventory } from '../../src/demo/inventory.js';
import { createRng } from '../../src/demo/rng.js';

let server: Server;
let url = '';

beforeAll(async () => {
  const dealer = new AapDealer({ inventory: demoInventory(), rng: createRng(1), rateLimit: { capacity: 100, refillPerSecond: 1 }, minRetryAfterMs: 1000, leadFaultRate: 0 });
  const aap = createAapApp(dealer);
  server = createServer(aap.app);
  url = await listenLoopback(server);
  aap.setBaseUrl(url);
});
afterAll(async () => {
  await closeServer(server);
});

/** Posts one SendMessage with `message` and the given extension header; returns the JSON-RPC error code or 'ok'. */
async function send(message: Record<string, unknown>, extension = true): Promise<number | 'ok'> {
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...(extension ? { 'A2A-Extensions': AAP_EXTENSION_URI } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'p-1', method: 'SendMessage', params: { message } }),
  });
  const body = (await res.json()) as { error?: { code: number } };
  return body.error ? body.error.code : 'ok';
}

const search = { data: { type: 'inventory.search.request' }, mediaType: 'application/json' };

describe('demo AAP dealer: A2A parameters before skills', () => {
  it('answers a message with empty parts -32602, with or without the AAP extension activated', async () => {
    expect(await send({ messageId: 'm-1', role: 'ROLE_USER', parts: [] })).toBe(-32602);
    expect(await send({ messageId: 'm-2', role: 'ROLE_USER', parts: [] }, false)).toBe(-32602);
  });

  it('answers a message without a messageId (absent or empty) -32602', async () => {
    expect(await send({ role: 'ROLE_USER', parts: [search] })).toBe(-32602);
    expect(await send({ messageId: '', role: 'ROLE_USER', parts: [search] })).toBe(-32602);
  });

  it('still dispatches a well-formed message to the skill, and still asks for the extension', async () => {
    expect(await send({ messageId: 'm-3', role: 'ROLE_USER', parts: [search] })).toBe('ok');
    expect(await send({ messageId: 'm-4', role: 'ROLE_USER', parts: [search] }, false)).toBe(-32008);
  });
});
