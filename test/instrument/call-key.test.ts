import { describe, expect, it } from 'vitest';
import { callKey, idempotencyKey } from '../../src/instrument/exchange/call-key.js';

/** A key is a non-negative safe integer (53 bits). */
const KEY = expect.toSatisfy((k: unknown) => Number.isSafeInteger(k) && (k as number) >= 0);

describe('retry tracker call key', () => {
  it('is a 53-bit integer, the same for the same call, whatever its key order or A2A messageId', () => {
    const a = callKey('SendMessage', 'inventory.search', { message: { role: 'ROLE_USER', messageId: 'm-1', parts: [{ data: { z: 1, a: 'x' } }] } });
    const b = callKey('SendMessage', 'inventory.search', { message: { parts: [{ data: { a: 'x', z: 1 } }], messageId: 'm-2', role: 'ROLE_USER' } });
    expect(a).toEqual(KEY);
    expect(b).toBe(a);
  });

  it('tells apart calls that differ in method, skill, a value, its type or its place', () => {
    const base = { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { make: 'Honda', year: 2020 } }] } };
    const keys = [
      callKey('SendMessage', 'inventory.search', base),
      callKey('SendStreamingMessage', 'inventory.search', base),
      callKey('SendMessage', 'vehicle.details', base),
      callKey('SendMessage', null, base),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [{ data: { make: 'Honda', year: 2021 } }] } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [{ data: { make: 'Honda', year: '2020' } }] } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [{ data: { make: 'Honda' } }, { data: { year: 2020 } }] } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [] } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: {} } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: null } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [true] } }),
      callKey('SendMessage', 'inventory.search', { message: { ...base.message, parts: [false] } }),
      // String boundaries are framed: "ab" + "c" is not "a" + "bc".
      callKey('m', null, ['ab', 'c']),
      callKey('m', null, ['a', 'bc']),
      callKey('m', null, { ab: 'c' }),
      callKey('m', null, { a: 'bc' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('reads values as JSON would: -0 is 0, non-finite numbers and undefined members as null or absent', () => {
    expect(callKey('m', null, { n: -0 })).toBe(callKey('m', null, { n: 0 }));
    expect(callKey('m', null, [Number.NaN])).toBe(callKey('m', null, [null]));
    expect(callKey('m', null, { a: 1, b: undefined })).toBe(callKey('m', null, { a: 1 }));
  });

  it('keeps a messageId that is not directly under params.message', () => {
    expect(callKey('tools/call', 'get_vehicle', { arguments: { messageId: 'a' } })).not.toBe(callKey('tools/call', 'get_vehicle', { arguments: { messageId: 'b' } }));
    expect(callKey('SendMessage', null, { message: { parts: [{ messageId: 'a' }] } })).not.toBe(callKey('SendMessage', null, { message: { parts: [{ messageId: 'b' }] } }));
  });

  it('ends on cyclic and very deep values instead of hanging', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    cyclic.again = cyclic;
    let deep: unknown = 'leaf';
    for (let i = 0; i < 500; i++) deep = { d: deep };
    expect(callKey('m', null, cyclic)).toEqual(KEY);
    expect(callKey('m', null, deep)).toEqual(KEY);
  });

  it('keys an idempotency key in its own domain', () => {
    expect(idempotencyKey('idem-1')).toEqual(KEY);
    expect(idempotencyKey('idem-1')).toBe(idempotencyKey('idem-1'));
    expect(idempotencyKey('idem-1')).not.toBe(idempotencyKey('idem-2'));
    expect(idempotencyKey('idem-1')).not.toBe(callKey('idem-1', null, undefined));
  });

  it('keys the same call of two clients, or of a batch that failed as a whole, apart', () => {
    const params = { message: { parts: [{ data: { make: 'Honda' } }] } };
    const keys = [
      callKey('SendMessage', 'inventory.search', params),
      callKey('SendMessage', 'inventory.search', params, 'cli_a'),
      callKey('SendMessage', 'inventory.search', params, 'cli_b'),
      callKey('SendMessage', 'inventory.search', params, 'cli_a', 3),
      idempotencyKey('idem-1', 'cli_a'),
      idempotencyKey('idem-1', 'cli_b'),
      idempotencyKey('idem-1', 'cli_a', 3),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(callKey('SendMessage', 'inventory.search', params, 'cli_a')).toBe(keys[1]);
  });

  it('spreads 100 000 distinct calls over 100 000 distinct keys', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 100_000; i++) seen.add(callKey('SendMessage', 'inventory.search', { message: { parts: [{ data: { vin: `1HGCM82633A${String(i).padStart(6, '0')}` } }] } }));
    expect(seen.size).toBe(100_000);
  });
});
