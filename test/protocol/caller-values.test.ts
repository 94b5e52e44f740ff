/**
 * Caller-controlled values (issue 16), the parts already on main, held with plain data: every
 * machine field from the wire passes its own pattern (src/protocol/value-patterns.ts) or is
 * replaced; a caller's text loses its stack frames before a builder sees it; an AapError prints
 * only its code, error id and message however it is printed.
 */
import { format, inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AapError,
  VALUE_OTHER,
  checkEventValues,
  safeCode,
  safeErrorId,
  safeKeyword,
  safeLegacyError,
  safeMethodOriginal,
  safeRequestId,
  safeUpstreamTraceId,
  stripStackTrace,
} from '../../src/protocol/index.js';
import { makeEvent } from '../audit/helpers.js';

const EMAIL = 'jane.buyer@example.com';
const PHONE = '+15550123456';
const VIN = '1HGCM82633A004352';
const HOSTILE = [EMAIL, PHONE, VIN, 'limit hit for jane@example.com', ' ', '', 'x'.repeat(300), '__proto__'];

describe('value patterns', () => {
  it('keeps our own and DMC-12 ids, and refuses every hostile value as an error id or upstream trace id', () => {
    expect(safeErrorId('err_0190f5c2a3b47c1d8e9f0a1b2c3d4e5f')).toBe('err_0190f5c2a3b47c1d8e9f0a1b2c3d4e5f');
    expect(safeUpstreamTraceId('trc_0123456789abcdef01234567')).toBe('trc_0123456789abcdef01234567');
    for (const v of [...HOSTILE, `err_${EMAIL}`, `trc_${PHONE}`, 42, null]) {
      expect(safeErrorId(v), String(v)).toBeNull();
      expect(safeUpstreamTraceId(v), String(v)).toBeNull();
    }
  });

  it('keeps codes from the code tables and HTTP/JSON-RPC stand-ins; anything else is _OTHER', () => {
    for (const c of ['RATE_LIMITED', 'VEHICLE_UNAVAILABLE', 'TASK_NOT_FOUND', '-32601', 'HTTP_413', '-32001']) expect(safeCode(c)).toBe(c);
    for (const v of [...HOSTILE, 'HTTP_999', '-1', 7]) expect(safeCode(v), String(v)).toBe(VALUE_OTHER);
  });

  it('keeps a JSON-RPC id only as a small number or a short safe token, and a method only when method-like', () => {
    expect(safeRequestId(17)).toBe('17');
    expect(safeRequestId('req-7f3a')).toBe('req-7f3a');
    for (const v of [EMAIL, PHONE, 15550123456, 'a b', 'x'.repeat(65), 1.5, null]) expect(safeRequestId(v), String(v)).toBeNull();
    expect(safeMethodOriginal('tools/list_all')).toBe('tools/list_all');
    for (const v of [EMAIL, 'send message', '', 'x'.repeat(70), '../etc']) expect(safeMethodOriginal(v), v).toBeNull();
  });

  it('keeps legacy strings and violation keywords only from their alphabets and lists', () => {
    expect(safeLegacyError('quote_expired')).toBe('quote_expired');
    expect(safeLegacyError(EMAIL)).toBeNull();
    expect(safeKeyword('additionalProperties')).toBe('additionalProperties');
    expect(safeKeyword(EMAIL)).toBe(VALUE_OTHER);
  });

  it('checkEventValues mints a new error_id for a hostile one and keeps the wire id nowhere', () => {
    const e = checkEventValues(
      makeEvent(1, { error_id: EMAIL, upstream_trace_id: PHONE, code: `limit hit for ${EMAIL}`, legacy_error: VIN, violations: [{ location: '/a', keyword: EMAIL }] }),
    );
    expect(e.error_id).toMatch(/^err_[0-9a-f]{32}$/);
    expect(JSON.stringify(e)).not.toMatch(/jane|15550123456|1HGCM/);
    expect(e).toMatchObject({ upstream_trace_id: null, code: VALUE_OTHER, legacy_error: null, violations: [{ location: '/a', keyword: VALUE_OTHER }] });
  });
});

describe('stripStackTrace', () => {
  it('drops the frame lines of a caller text and falls back when nothing else is left', () => {
    const text = `No vehicle ${VIN}\n    at Object.<anonymous> (/srv/app.js:12:7)\n    at node:internal/main:1:1`;
    expect(stripStackTrace(text, 'fallback')).toBe(`No vehicle ${VIN}`);
    expect(stripStackTrace('    at f (/srv/app.js:1:1)', 'fallback')).toBe('fallback');
    expect(stripStackTrace(42, 'fallback')).toBe('fallback');
  });
});

describe('AapError printed', () => {
  it('shows only code, error id and message in inspect, String, template strings, format and JSON', () => {
    const err = new AapError('INVALID_CONSENT', 'Consent expired.', { details: { customer: { email: EMAIL, phone: PHONE } } });
    const printed = [inspect(err), String(err), `${err}`, format('%o', err), format(err), JSON.stringify(err), JSON.stringify({ err })];
    for (const p of printed) {
      expect(p).toContain('INVALID_CONSENT');
      expect(p).not.toContain(EMAIL);
      expect(p).not.toContain(PHONE);
    }
    expect(JSON.parse(JSON.stringify(err))).toEqual({ name: 'AapError', code: 'INVALID_CONSENT', error_id: err.errorId, message: 'Consent expired.' });
    expect(String(err)).toBe(`AapError [INVALID_CONSENT] ${err.errorId}: Consent expired.`);
  });
});
