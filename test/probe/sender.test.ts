/**
 * The probe's safety caps, on a real loopback server: requests spaced to the rate cap (default
 * 5/s), a total cap that stops sending, and the defaults in one place. The clock and the wait are
 * injected so the spacing is checked without timing anything.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_DEFAULTS, ProbeSender, RequestCapReached, resolveProbeOptions, type ProbeRequest } from '../../src/probe/index.js';

let server: Server;
let url: string;
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 'probe-x', error: { code: -32601, message: 'Method not found' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const req: ProbeRequest = { label: 'x', headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-x', method: 'nope' }) };

describe('probe safety caps', () => {
  it('defaults to 5 requests a second and 60 in all', () => {
    expect(resolveProbeOptions({})).toMatchObject({ ratePerSecond: 5, maxRequests: 60 });
    expect(PROBE_DEFAULTS.ratePerSecond).toBe(5);
    expect(() => resolveProbeOptions({ ratePerSecond: 0 })).toThrow(RangeError);
    expect(() => resolveProbeOptions({ maxRequests: 0 })).toThrow(RangeError);
  });

  it('spaces requests 1000/rate ms apart and refuses the one past the total cap without sending it', async () => {
    let clock = 0;
    const waits: number[] = [];
    const sender = new ProbeSender({
      ratePerSecond: PROBE_DEFAULTS.ratePerSecond,
      maxRequests: 4,
      timeoutMs: 5000,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    received = 0;
    for (let i = 0; i < 4; i++) {
      const a = await sender.send(url, req, 'aap');
      expect(a.status).toBe(200);
    }
    expect(waits).toEqual([200, 200, 200]);
    await expect(sender.send(url, req, 'aap')).rejects.toBeInstanceOf(RequestCapReached);
    expect(received).toBe(4);
    expect(sender.sent).toBe(4);
  });
});
