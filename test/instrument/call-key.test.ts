import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callKey, idempotencyKey } from '../../src/instrument/call-key.js';

const sha1 = (s: string): string => createHash('sha1').update(s, 'utf8').digest('base64');

describe('retry tracker call key', () => {
  it('is the SHA-1 of method, skill and the params with keys sorted and message.messageId left out', () => {
    const params = { message: { role: 'ROLE_USER', messageId: 'm-1', parts: [{ data: { z: 1, a: 'x' } }] } };
    const canonical = 'SendMessage\u0000inventory.search\u0000{"message":{"parts":[{"data":{"a":"x","z":1}}],"role":"ROLE_USER"}}';
    expect(callKey('SendMessage', 'inventory.search', params)).toBe(sha1(canonical));
  });

  it('ignores key order and the A2A messageId, and tells different params apart', () => {
    const a = callKey('SendMessage', null, { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [] } });
    const b = callKey('SendMessage', null, { message: { parts: [], role: 'ROLE_USER', messageId: 'm-2' } });
    const c = callKey('SendMessage', null, { message: { parts: [1], role: 'ROLE_USER', messageId: 'm-1' } });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('keeps a messageId that is not directly under params.message', () => {
    expect(callKey('tools/call', 'get_vehicle', { arguments: { messageId: 'a' } })).not.toBe(callKey('tools/call', 'get_vehicle', { arguments: { messageId: 'b' } }));
  });

  it('ends on cyclic and very deep values instead of hanging', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    cyclic.again = cyclic;
    let deep: unknown = 'leaf';
    for (let i = 0; i < 500; i++) deep = { d: deep };
    expect(callKey('m', null, cyclic)).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(callKey('m', null, deep)).toMatch(/^[A-Za-z0-9+/]{27}=$/);
  });

  it('keys an idempotency key by an unkeyed hash in its own domain', () => {
    expect(idempotencyKey('idem-1')).toBe(sha1('idempotency\u0000idem-1'));
    expect(idempotencyKey('idem-1')).not.toBe(idempotencyKey('idem-2'));
  });
});
