import { describe, expect, it } from 'vitest';
import { DEFAULT_KNOWN_NAMES, retryAfterFromDetails, sanitizeLegacyError, sanitizePointer } from '../../src/audit/index.js';

describe('sanitizePointer()', () => {
  it('keeps known schema property names and array indices, and stars everything else', () => {
    expect(sanitizePointer('/customer/email')).toBe('/customer/email');
    expect(sanitizePointer('/params/message/parts/0/data/filters/jane.doe@example.com')).toBe('/params/message/parts/0/data/filters/*');
    expect(sanitizePointer('#/vehicle_of_interest/vin')).toBe('#/vehicle_of_interest/vin');
    expect(sanitizePointer('/trade_in/1HGCM82633A004352')).toBe('/trade_in/*');
    expect(sanitizePointer('')).toBe('');
  });

  it('does not keep a long number as an index (it may be a phone)', () => {
    expect(sanitizePointer('/filters/15555550123')).toBe('/filters/*');
    expect(sanitizePointer('/photos/12345')).toBe('/photos/12345');
  });

  it('compares RFC 6901-escaped segments by their decoded name', () => {
    const names = new Set(['a/b']);
    expect(sanitizePointer('/a~1b/c~0d', names)).toBe('/a~1b/*');
  });

  it('sanitises dotted and bracket paths token by token', () => {
    expect(sanitizePointer('customer.phone')).toBe('customer.phone');
    expect(sanitizePointer('filters[0].jane@example.com')).toBe('filters[0].*');
    expect(sanitizePointer('filters.jane.doe@example.com.make')).toBe('filters.*.make');
  });

  it('returns an empty string for a non-string', () => {
    expect(sanitizePointer(42)).toBe('');
    expect(sanitizePointer(undefined)).toBe('');
  });

  it('knows the AAP request schema names and the DMC-12 argument names', () => {
    for (const name of ['vehicle_of_interest', 'trade_in', 'consent', 'filters', 'vin', 'quote_id', 'reservation_token', 'customer', 'email', 'phone', 'expires_at']) {
      expect(DEFAULT_KNOWN_NAMES.has(name)).toBe(true);
    }
  });
});

describe('sanitizeLegacyError()', () => {
  it('keeps only ^[a-z0-9_]{1,64}$', () => {
    expect(sanitizeLegacyError('vehicle_unavailable')).toBe('vehicle_unavailable');
    expect(sanitizeLegacyError('Invalid phone +15555550123')).toBeNull();
    expect(sanitizeLegacyError('a'.repeat(65))).toBeNull();
    expect(sanitizeLegacyError('')).toBeNull();
    expect(sanitizeLegacyError(7)).toBeNull();
  });
});

describe('retryAfterFromDetails()', () => {
  it('reads retry_after_ms, else retry_after_seconds × 1000, else null', () => {
    expect(retryAfterFromDetails({ retry_after_ms: 30_000 })).toBe(30_000);
    expect(retryAfterFromDetails({ retry_after_seconds: 2.5 })).toBe(2_500);
    expect(retryAfterFromDetails({ retry_after_ms: 100, retry_after_seconds: 9 })).toBe(100);
    expect(retryAfterFromDetails({ retry_after_ms: '100' })).toBeNull();
    expect(retryAfterFromDetails({ retry_after_ms: -1 })).toBeNull();
    expect(retryAfterFromDetails(null)).toBeNull();
    expect(retryAfterFromDetails([1])).toBeNull();
  });
});
