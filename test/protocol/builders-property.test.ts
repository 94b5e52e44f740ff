// A builder never emits what its own checker flags: every code × form × option combination of
// every builder gives an envelope checkConformance accepts (with the endpoint form and family).
import { describe, expect, it } from 'vitest';
import {
  A2A_ERRORS,
  AAP_CODES,
  AapError,
  DMC12_CODES,
  DMC12_DOCUMENTED_LEGACY_PAIRS,
  JSONRPC_ERRORS,
  type A2AReason,
  type AapCode,
  type Dmc12Code,
  type JsonRpcCode,
  buildA2AError,
  buildAapError,
  buildDmc12Error,
  buildExtensionRequiredError,
  buildJsonRpcError,
  checkConformance,
  errorResponse,
  successResponse,
  toAapErrorMember,
} from '../../src/protocol/index.js';

const AAP = (Object.keys(AAP_CODES) as AapCode[]).filter((c) => !AAP_CODES[c].legacy);
const ERRORS = [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' }];
const IDS = ['r-1', 7, null] as const;

function detailVariants(code: AapCode): Array<Record<string, unknown> | undefined> {
  if (AAP_CODES[code].validation) return [{ errors: ERRORS }, { errors: ERRORS, hint: 'fix all fields' }];
  if (code === 'RATE_LIMITED') return [{ retry_after_ms: 0 }, { retry_after_seconds: 30 }, { retry_after_ms: 1500, scope: 'per-key' }];
  return [undefined, {}, { vin: '1HGCM82633A004352' }];
}

describe('builders never emit what checkConformance flags', () => {
  it('buildAapError: every code × form × retryable × details × createdAt × errorId × jsonrpcMessage', () => {
    let n = 0;
    for (const code of AAP)
      for (const form of ['2.0', 'released'] as const)
        for (const retryable of [undefined, true, false])
          for (const details of detailVariants(code))
            for (const createdAt of [undefined, '2028-02-29T23:59:59+05:30', 0, new Date('2026-04-30T10:15:30Z')])
              for (const errorId of [undefined, 'err_01HZ9EXAMPLE'])
                for (const jsonrpcMessage of [undefined, 'Request failed.'])
                  for (const id of IDS) {
                    const member = buildAapError(code, {
                      form,
                      message: 'Something went wrong for this request.',
                      ...(retryable !== undefined ? { retryable } : {}),
                      ...(details !== undefined ? { details } : {}),
                      ...(createdAt !== undefined ? { createdAt } : {}),
                      ...(errorId !== undefined ? { errorId } : {}),
                      ...(jsonrpcMessage !== undefined ? { jsonrpcMessage } : {}),
                    });
                    const found = checkConformance(errorResponse(id, member), { form, family: 'aap' });
                    expect(found, `${code} ${form} ${JSON.stringify(member)}`).toEqual([]);
                    n++;
                  }
    expect(n).toBeGreaterThan(9000);
  });

  it('buildA2AError, buildExtensionRequiredError and buildJsonRpcError: every reason and code with each option', () => {
    for (const reason of (Object.keys(A2A_ERRORS) as A2AReason[]).filter((r) => r !== 'EXTENSION_SUPPORT_REQUIRED'))
      for (const options of [{}, { message: 'Not here.' }, { metadata: { hint: 'see the agent card' } }, { fieldViolations: [{ field: '/x', description: 'type: bad' }] }])
        for (const id of IDS) expect(checkConformance(errorResponse(id, buildA2AError(reason, options))), reason).toEqual([]);
    for (const uri of ['https://autoagentprotocol.org/extensions/aap/v1.3', 'https://dealer.example/ext/aap?v=2'])
      for (const options of [{}, { message: `Send A2A-Extensions: ${uri} and retry.` }])
        for (const form of ['2.0', 'released'] as const)
          expect(checkConformance(errorResponse('r', buildExtensionRequiredError(uri, options)), { form })).toEqual([]);
    expect(() => buildExtensionRequiredError('https://draft.autoagentprotocol.invalid/extensions/aap/latest')).toThrow(/draft/);
    for (const code of Object.keys(JSONRPC_ERRORS) as JsonRpcCode[])
      for (const id of IDS) expect(checkConformance(errorResponse(id, buildJsonRpcError(code)), { family: 'aap' })).toEqual([]);
  });

  it('buildDmc12Error: every code × legacy string × message × ids, with HTTP 200', () => {
    for (const code of Object.keys(DMC12_CODES) as Dmc12Code[]) {
      const legacies = [undefined, 'custom_failure', ...Object.entries(DMC12_DOCUMENTED_LEGACY_PAIRS).filter(([, c]) => c === code).map(([s]) => s)];
      for (const legacyError of legacies)
        for (const message of [undefined, 'Try again later.'])
          for (const traceId of [undefined, 'trc_abc123'])
            for (const id of IDS) {
              const result = buildDmc12Error(code, {
                tool: 'create_reservation',
                ...(legacyError !== undefined ? { legacyError } : {}),
                ...(message !== undefined ? { message } : {}),
                ...(traceId !== undefined ? { traceId } : {}),
              });
              expect(checkConformance(successResponse(id, result), { family: 'dmc12', httpStatus: 200 }), code).toEqual([]);
            }
      for (const [legacy, other] of Object.entries(DMC12_DOCUMENTED_LEGACY_PAIRS))
        if (other !== code) expect(() => buildDmc12Error(code, { tool: 't', legacyError: legacy })).toThrow(/documented as/);
    }
  });

  it('AapError → toAapErrorMember: every code × form × retryable × details, with a cause kept off the wire', () => {
    for (const code of AAP)
      for (const form of ['2.0', 'released'] as const)
        for (const retryable of [undefined, true, false])
          for (const details of detailVariants(code)) {
            const err = new AapError(code, 'Something went wrong for this request.', {
              cause: new TypeError('boom'),
              ...(retryable !== undefined ? { retryable } : {}),
              ...(details !== undefined ? { details } : {}),
            });
            const found = checkConformance(errorResponse('r', toAapErrorMember(err, form)), { form, family: 'aap' });
            expect(found, `${code} ${form}`).toEqual([]);
          }
  });

  it('refuses RATE_LIMITED without a retry hint and draft identifiers anywhere', () => {
    expect(() => buildAapError('RATE_LIMITED', { form: '2.0', message: 'Slow down.' })).toThrow(/retry_after_ms/);
    expect(() => buildAapError('VEHICLE_NOT_FOUND', { form: '2.0', message: 'See https://draft.autoagentprotocol.invalid/x' })).toThrow(/draft/);
    expect(() => buildAapError('VEHICLE_NOT_FOUND', { form: '2.0', message: 'x', details: { spec: 'draft.autoagentprotocol.invalid' } })).toThrow(/draft/);
  });
});
