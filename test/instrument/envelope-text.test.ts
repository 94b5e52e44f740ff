/**
 * The text of a built envelope's data from its template (envelope-text.ts, issue 26 decision 3)
 * is what JSON.stringify writes for it, for every AAP code the builder takes, both forms, both
 * retryable values, and messages that need JSON escapes; envelopes with details get no template.
 */
import { describe, expect, it } from 'vitest';
import { envelopeDataText } from '../../src/instrument/exchange/envelope-text.js';
import { buildAapErrorObject } from '../../src/instrument/exchange/protocol-bridge.js';
import type { AapErrorLike } from '../../src/instrument/exchange/protocol-bridge.js';
import { AAP_CODES } from '../../src/protocol/codes/aap-codes.js';

const MESSAGES = ['No vehicle matches the supplied identifiers.', 'Quote "Q-1" \\ expired — café ✓', 'Line one\ttab'];

describe('envelopeDataText()', () => {
  it('equals JSON.stringify of the envelope data for every code × form × retryable × message', () => {
    let templated = 0;
    for (const [code, info] of Object.entries(AAP_CODES)) {
      if (info.legacy) continue;
      for (const form of ['2.0', 'released'] as const) {
        for (const retryable of [true, false]) {
          MESSAGES.forEach((message, k) => {
            const input: AapErrorLike = { code, aapMessage: message, message: `${code}: ${message}`, details: undefined, retryable, errorId: `err_0192f0c1a2b37c4d8e9fa0b1c2d3e4f${k}` };
            const envelope = buildAapErrorObject(input, form, new Date(Date.UTC(2026, 11, 2, 3, k, 7)));
            if (!envelope) return;
            const text = envelopeDataText(input, form, envelope, buildAapErrorObject);
            if (text === null) {
              // No template only where the envelope carries details (a validation code's restored errors[]).
              expect(JSON.stringify(envelope.data)).toContain('"details"');
              return;
            }
            templated++;
            expect(text).toBe(JSON.stringify(envelope.data));
          });
        }
      }
    }
    expect(templated).toBeGreaterThan(40);
  });

  it('gives no template for an error with details', () => {
    const input: AapErrorLike = { code: 'VEHICLE_NOT_FOUND', aapMessage: 'Gone.', message: 'VEHICLE_NOT_FOUND: Gone.', details: { vin: 'x' }, retryable: false, errorId: 'err_0192f0c1a2b37c4d8e9fa0b1c2d3e4f5' };
    const envelope = buildAapErrorObject(input, '2.0', new Date(0));
    expect(envelope).toBeDefined();
    expect(envelopeDataText(input, '2.0', envelope as Record<string, unknown>, buildAapErrorObject)).toBeNull();
  });
});
