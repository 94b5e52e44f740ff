/**
 * `mintErrorId` / `uuidv7Hex`: RFC 9562 UUIDv7 ids, time-ordered within a process.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_ID_PATTERN, mintErrorId, uuidv7Hex } from '../../src/protocol/error-id.js';

describe('uuidv7Hex', () => {
  it('has version 7, the RFC 4122 variant and the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = uuidv7Hex();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    const ms = parseInt(id.slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sorts in creation order, also many within one millisecond, and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7Hex());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('mintErrorId', () => {
  it('is err_ and 32 lowercase hex digits', () => {
    expect(mintErrorId()).toMatch(ERROR_ID_PATTERN);
  });
});
