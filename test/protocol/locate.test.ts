/** locateAapPayload / locateDmc12Data: the one place the parser, the checker and the probe find the typed errors. */
import { describe, expect, it } from 'vitest';
import { buildAapError, buildDmc12Error, checkConformance, errorResponse, locateAapPayload, locateDmc12Data, parseResponse, successResponse } from '../../src/protocol/index.js';

const AAP_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';

describe('locateAapPayload', () => {
  it('finds the 2.0 entry by @type, never by position, and the released object by type, @type or an AAP code', () => {
    const member = buildAapError('VEHICLE_NOT_FOUND', { form: '2.0', message: 'No such VIN.' });
    expect(locateAapPayload(member)).toMatchObject({ form: '2.0', payload: { '@type': AAP_TYPE, code: 'VEHICLE_NOT_FOUND' } });
    expect(locateAapPayload({ data: [{ type: 'aap.error', code: 'VEHICLE_NOT_FOUND' }] })).toBeNull();
    for (const data of [{ type: 'aap.error' }, { '@type': AAP_TYPE }, { code: 'RATE_LIMITED' }]) expect(locateAapPayload({ data })?.form).toBe('released');
    for (const odd of [null, 'x', 7, {}, { data: null }, { data: { code: 'NOPE' } }, { data: [] }, { data: [null, 1] }]) expect(locateAapPayload(odd)).toBeNull();
  });
});

describe('locateDmc12Data', () => {
  it('finds result.data by error_code or a legacy string, and flags a DMC-12 error sent in an error member', () => {
    const ok = successResponse(1, buildDmc12Error('RATE_LIMITED', { tool: 'search_inventory' }));
    expect(locateDmc12Data(ok)).toMatchObject({ inError: false, data: { error_code: 'RATE_LIMITED' } });
    expect(locateDmc12Data({ result: { data: { error: 'rate_limited' } } })?.inError).toBe(false);
    expect(locateDmc12Data({ error: { code: -32000, message: 'x', data: { error_code: 'RATE_LIMITED' } } })?.inError).toBe(true);
    // An AAP payload is never DMC-12, and a result without error fields is a success.
    expect(locateDmc12Data({ error: { code: -32000, message: 'x', data: { type: 'aap.error', code: 'RATE_LIMITED', error_code: 'x' } } })).toBeNull();
    for (const odd of [null, {}, { result: { data: { vehicles: [] } } }, { result: 'x' }, { error: 'x' }]) expect(locateDmc12Data(odd)).toBeNull();
  });

  it('gives the parser and the checker the same view of a non-string error_code: an error, flagged', () => {
    const body = { jsonrpc: '2.0', id: 1, result: { data: { error_code: 5, retryable: false, error_id: 'err_0123456789abcdef0123456789abcdef' }, _metadata: { trace_id: 'trc_1' } } };
    expect(parseResponse(body)).toMatchObject([{ ok: false, error: { protocol: 'dmc12' } }]);
    expect(checkConformance(body).map((v) => v.rule)).toContain('dmc12.taxonomy-fields');
    expect(checkConformance(errorResponse(1, buildAapError('RATE_LIMITED', { form: 'released', message: 'x', details: { retry_after_ms: 1 } })))).toEqual([]);
  });
});
