/**
 * The envelope the instrumentation builds for a flattened AapError is not parsed again (issue 26
 * decision 3): its outcome is read from the typed payload the builder wrote. This checks, for
 * every AAP code the builder takes, in both forms, with and without details, that it is exactly
 * what parsing the whole reply gives.
 */
import { describe, expect, it } from 'vitest';
import { buildAapErrorObject, builtOutcome } from '../../src/instrument/exchange/protocol-bridge.js';
import { AAP_CODES } from '../../src/protocol/codes/aap-codes.js';
import { parseCall } from '../../src/protocol/parse-response.js';

const NOW = new Date(Date.UTC(2026, 11, 2, 3, 0, 0));
const DETAILS: Record<string, unknown>[] = [
  {},
  { retry_after_ms: 1500 },
  { errors: [{ instanceLocation: '/filters/make', keyword: 'enum', error: 'unknown make' }] },
];

describe('builtOutcome()', () => {
  it('equals parseCall of the reply for every code × form × details', () => {
    let compared = 0;
    for (const [code, info] of Object.entries(AAP_CODES)) {
      if (info.legacy) continue;
      for (const form of ['2.0', 'released'] as const) {
        for (const details of DETAILS) {
          const envelope = buildAapErrorObject(
            { code, aapMessage: 'Something went wrong.', message: `${code}: Something went wrong.`, details, retryable: info.retryable, errorId: 'err_0192f0c1a2b37c4d8e9fa0b1c2d3e4f5' },
            form,
            NOW,
          );
          if (!envelope) continue;
          const reply = { jsonrpc: '2.0', id: 42, error: envelope };
          expect(builtOutcome(reply, envelope, form), `${code} ${form} ${JSON.stringify(details)}`).toEqual(parseCall(reply, 'aap'));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(40);
  });
});
