/**
 * The demo's AAP dealer (@a2a-js/sdk) logs its own errors as one line each, without a stack
 * trace (issue 28): a request the SDK refuses (no A2A-Version header: -32009) and the probe's
 * battery make it log; every line it writes reaches console.error as one string.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personas, startDealers, type RunningDealers } from '../../src/demo/index.js';
import { runProbe } from '../../src/probe/index.js';

describe('demo dealers and @a2a-js/sdk error lines', () => {
  let dealers: RunningDealers;
  const lines: unknown[][] = [];
  const before = console.error;
  const capture = (...args: unknown[]): void => void lines.push(args);
  beforeAll(async () => {
    // Installed before the dealers: the demo's condensing wraps this.
    console.error = capture;
    dealers = await startDealers({ personas: personas(12), seed: 12 });
    await fetch(`${dealers.aapBaseUrl}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}' });
    await runProbe(dealers.aapBaseUrl, { ratePerSecond: 50 });
    await dealers.close();
  }, 60_000);
  afterAll(() => {
    console.error = before;
  });

  it('writes each SDK error as one line with no stack trace, and puts console.error back on close', () => {
    const sdk = lines.filter((a) => typeof a[0] === 'string' && /^(Unhandled error in JSON-RPC POST handler|Agent execution failed for|Pre-stream error for request)/.test(a[0]));
    expect(sdk.length).toBeGreaterThan(0);
    for (const args of sdk) {
      expect(args).toHaveLength(1);
      expect(String(args[0])).not.toContain('\n');
      expect(String(args[0])).not.toMatch(/\bat .*\.js:\d+/);
    }
    expect(lines.length).toBe(sdk.length);
    expect(console.error).toBe(capture); // the demo's wrapper is gone after close
  });
});
