import { describe, expect, it } from 'vitest';
import {
  A2A_ERRORS,
  AAP_CODES,
  DMC12_AUTH_FAILURE,
  DMC12_CODES,
  DMC12_JSONRPC_ERRORS,
  JSONRPC_ERRORS,
  TASK_FAILED_INFO,
  dmc12CodeForLegacyError,
  isDmc12Code,
  lookupCode,
} from '../../src/protocol/index.js';
import { HAVE_REFERENCE, HAVE_SPEC, readReference, readSpec } from './reference.js';

const ALL = [
  ...Object.values(AAP_CODES),
  ...Object.values(A2A_ERRORS),
  ...Object.values(JSONRPC_ERRORS),
  ...Object.values(DMC12_CODES),
  ...Object.values(DMC12_JSONRPC_ERRORS),
];

describe('code tables', () => {
  it('hold 12 AAP codes plus the legacy AUTH_REQUIRED, 9 A2A errors, 5 JSON-RPC errors and 21 DMC-12 codes', () => {
    expect(Object.values(AAP_CODES).filter((c) => !c.legacy)).toHaveLength(12);
    expect(Object.values(AAP_CODES).filter((c) => c.legacy).map((c) => c.code)).toEqual(['AUTH_REQUIRED']);
    expect(Object.values(A2A_ERRORS).map((c) => c.jsonrpcCode)).toEqual([-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);
    expect(Object.keys(JSONRPC_ERRORS).sort()).toEqual(['-32600', '-32601', '-32602', '-32603', '-32700']);
    expect(Object.keys(DMC12_CODES)).toHaveLength(21);
  });

  it('give every entry a meaning, a one-line client action and a spec section, keyed by its own code', () => {
    for (const table of [AAP_CODES, A2A_ERRORS, JSONRPC_ERRORS, DMC12_CODES, DMC12_JSONRPC_ERRORS]) {
      for (const [key, info] of Object.entries(table)) {
        expect(info.code).toBe(key);
        expect(info.meaning.length).toBeGreaterThan(5);
        expect(info.clientAction.length).toBeGreaterThan(5);
        expect(info.clientAction).not.toContain('\n');
        expect(info.specSection.length).toBeGreaterThan(5);
        expect(typeof info.retryable).toBe('boolean');
      }
    }
    expect(ALL.every((i) => Object.isFrozen(i) || Object.isFrozen(AAP_CODES))).toBe(true);
  });

  it('match the spec table for AAP JSON-RPC codes and retryable defaults (2.0 and released forms)', () => {
    const row = (c: keyof typeof AAP_CODES) => [AAP_CODES[c].jsonrpcCode, AAP_CODES[c].releasedJsonrpcCode, AAP_CODES[c].retryable];
    expect(row('UNSUPPORTED_SKILL')).toEqual([-32004, -32601, false]);
    expect(row('SCHEMA_VALIDATION_FAILED')).toEqual([-32602, -32602, false]);
    expect(row('MISSING_REQUIRED_FIELD')).toEqual([-32602, -32602, false]);
    expect(row('INVALID_CONDITION')).toEqual([-32602, -32602, false]);
    for (const c of ['VEHICLE_NOT_FOUND', 'VEHICLE_UNAVAILABLE', 'CONTACT_CONSENT_REQUIRED', 'INVALID_CONSENT', 'APPOINTMENT_TIME_UNAVAILABLE', 'IDEMPOTENCY_CONFLICT'] as const) {
      expect(row(c)).toEqual([-32000, -32000, false]);
    }
    expect(row('RATE_LIMITED')).toEqual([-32000, -32002, true]);
    expect(row('INTERNAL_ERROR')).toEqual([-32603, -32603, true]);
  });

  it('fix DMC-12 retryable true for exactly RATE_LIMITED, UPSTREAM_UNAVAILABLE, INTERNAL_ERROR', () => {
    const retryable = Object.values(DMC12_CODES).filter((c) => c.retryable).map((c) => c.code);
    expect(retryable.sort()).toEqual(['INTERNAL_ERROR', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE']);
  });

  it('map known DMC-12 legacy error strings to their codes, exactly', () => {
    expect(dmc12CodeForLegacyError('vin_already_reserved')).toBe('RESERVATION_CONFLICT');
    expect(dmc12CodeForLegacyError('vehicle_not_available')).toBe('VEHICLE_UNAVAILABLE');
    expect(dmc12CodeForLegacyError('email_send_failed')).toBe('UPSTREAM_UNAVAILABLE');
    expect(dmc12CodeForLegacyError('reservation_expired')).toBe('RESERVATION_EXPIRED');
    expect(dmc12CodeForLegacyError('rate_limited')).toBe('RATE_LIMITED');
    expect(dmc12CodeForLegacyError('RATE_LIMITED')).toBeUndefined();
    expect(dmc12CodeForLegacyError('__proto__')).toBeUndefined();
  });

  it('carry the clients actions the DMC-12 page names per code', () => {
    expect(DMC12_CODES.RESERVATION_CONFLICT.clientAction).toMatch(/another VIN/);
    expect(DMC12_CODES.QUOTE_EXPIRED.clientAction).toMatch(/Re-quote/);
    expect(DMC12_CODES.CONSENT_INVALID.clientAction).toMatch(/Refresh consent/);
    expect(DMC12_CODES.VALIDATION_FAILED.clientAction).toMatch(/Fix the payload/);
    expect(DMC12_CODES.NOT_AUTHORIZED.clientAction).toMatch(/scopes/);
    expect(DMC12_CODES.RATE_LIMITED.clientAction).toMatch(/Back off and retry/);
    expect(DMC12_CODES.NOT_CONFIGURED.clientAction).toMatch(/operator/);
  });
});

describe('lookupCode', () => {
  it('finds entries by protocol and code, numbers and strings alike', () => {
    expect(lookupCode('aap', 'RATE_LIMITED')).toBe(AAP_CODES.RATE_LIMITED);
    expect(lookupCode('aap', 'AUTH_REQUIRED')?.specSection).toContain('v0.1');
    expect(lookupCode('a2a', 'EXTENSION_SUPPORT_REQUIRED')?.jsonrpcCode).toBe(-32008);
    expect(lookupCode('a2a', -32009)?.code).toBe('VERSION_NOT_SUPPORTED');
    expect(lookupCode('a2a', '-32001')?.code).toBe('TASK_NOT_FOUND');
    expect(lookupCode('a2a', 'TASK_FAILED')).toBe(TASK_FAILED_INFO);
    expect(lookupCode('jsonrpc', -32700)?.code).toBe('-32700');
    expect(lookupCode('jsonrpc', '-32603')?.retryable).toBe(true);
    expect(lookupCode('dmc12', 'RESERVATION_CONFLICT')?.retryable).toBe(false);
  });

  it('returns undefined for unknown codes, other families and prototype names', () => {
    expect(lookupCode('aap', 'RESERVATION_CONFLICT')).toBeUndefined();
    expect(lookupCode('dmc12', 'UNSUPPORTED_SKILL')).toBeUndefined();
    expect(lookupCode('jsonrpc', -32000)).toBeUndefined();
    expect(lookupCode('a2a', -32010)).toBeUndefined();
    for (const p of ['aap', 'a2a', 'jsonrpc', 'dmc12'] as const) {
      expect(lookupCode(p, '__proto__')).toBeUndefined();
      expect(lookupCode(p, 'toString')).toBeUndefined();
      expect(lookupCode(p, 'constructor')).toBeUndefined();
    }
  });
});

describe('the DMC-12 auth failure (JSON-RPC -32001, HTTP 401)', () => {
  it('is found by lookupCode under dmc12 with the code as string or number', () => {
    expect(lookupCode('dmc12', '-32001')).toBe(DMC12_AUTH_FAILURE);
    expect(lookupCode('dmc12', -32001)).toBe(DMC12_AUTH_FAILURE);
    expect(DMC12_JSONRPC_ERRORS['-32001']).toBe(DMC12_AUTH_FAILURE);
    // The same number means something else in A2A, and nothing in plain JSON-RPC.
    expect(lookupCode('a2a', -32001)?.code).toBe('TASK_NOT_FOUND');
    expect(lookupCode('jsonrpc', -32001)).toBeUndefined();
    expect(lookupCode('dmc12', -32002)).toBeUndefined();
  });

  it('means a bad, expired or wrong-audience bearer token: not retryable, refresh or fix the token', () => {
    expect(DMC12_AUTH_FAILURE).toEqual({
      code: '-32001',
      protocol: 'dmc12',
      meaning: 'Bad, expired or wrong-audience bearer token (DMC-12 auth failure, HTTP 401); not the data.error envelope.',
      jsonrpcCode: -32001,
      retryable: false,
      clientAction: 'Refresh or fix the bearer token; do not retry as is.',
      specSection: 'DMC-12 "Error taxonomy" page, "Auth failures are different"',
    });
    expect(Object.isFrozen(DMC12_AUTH_FAILURE)).toBe(true);
  });

  it('is not one of the 21 error_codes and maps no legacy string', () => {
    expect(Object.keys(DMC12_CODES)).toHaveLength(21);
    expect(isDmc12Code('-32001')).toBe(false);
    expect(dmc12CodeForLegacyError('-32001')).toBeUndefined();
  });

  it.skipIf(!HAVE_SPEC)('cites a section of spec/dmc12-errors.txt that says -32001 with HTTP 401', () => {
    const spec = readSpec('dmc12-errors.txt');
    const at = spec.indexOf('Auth failures are different');
    expect(at).toBeGreaterThanOrEqual(0);
    const section = spec.slice(at, spec.indexOf('\n', at));
    expect(section).toContain('bad/expired/wrong-audience bearer token');
    expect(section).toContain('-32001');
    expect(section).toContain('HTTP 401');
  });
});

describe.skipIf(!HAVE_REFERENCE)('code tables agree with the published schemas', () => {
  const enumOf = (path: string): string[] => {
    const schema = readReference<{ properties?: { code?: { enum: string[] } }; $defs?: { ErrorCode?: { enum: string[] } } }>(path);
    return (schema.properties?.code?.enum ?? schema.$defs?.ErrorCode?.enum ?? []).slice().sort();
  };

  it('AAP codes equal the v1.3 and 2.0-draft enums; the v0.1 enum adds AUTH_REQUIRED', () => {
    const current = Object.values(AAP_CODES).filter((c) => !c.legacy).map((c) => c.code).sort();
    expect(enumOf('aap-schemas/v1.3/error.schema.json')).toEqual(current);
    expect(enumOf('aap-schemas/latest-2.0-draft/error.schema.json')).toEqual(current);
    expect(enumOf('aap-schemas/v0.1/error.schema.json')).toEqual([...current, 'AUTH_REQUIRED'].sort());
  });

  it('DMC-12 codes equal the ErrorCode enum of dmc12-error.schema.json', () => {
    expect(enumOf('dmc12-error.schema.json')).toEqual(Object.keys(DMC12_CODES).sort());
  });
});
