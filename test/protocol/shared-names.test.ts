/**
 * The method allow-list and the retry-contract numbers both sides read from protocol
 * (`KNOWN_RPC_METHODS` in skills.ts, retry.ts). Expected values are written out from the sources
 * the constants cite: DESIGN §4 and §6, spec/dmc12-errors.txt "Retry strategy".
 */
import { describe, expect, it } from 'vitest';
import {
  A2A_METHODS,
  A2A_RPC_METHODS,
  BACKOFF_BASE_MS,
  BACKOFF_JITTER_FLOOR,
  BACKOFF_MAX_MS,
  backoffCeilingMs,
  backoffFloorMs,
  BACKOFF_MULTIPLIER,
  DMC12_RPC_METHODS,
  KNOWN_RPC_METHODS,
  MAX_ATTEMPTS_CAP,
  METRICS,
  RETRY_WINDOW_MS,
  classifyCall,
} from '../../src/protocol/index.js';

describe('KNOWN_RPC_METHODS', () => {
  it('holds the A2A v1.0 and v0.3 methods, then DMC-12’s MCP methods, once each, frozen', () => {
    expect(KNOWN_RPC_METHODS).toEqual([...A2A_RPC_METHODS, ...DMC12_RPC_METHODS]);
    expect(new Set(KNOWN_RPC_METHODS).size).toBe(KNOWN_RPC_METHODS.length);
    expect(Object.isFrozen(KNOWN_RPC_METHODS)).toBe(true);
    for (const m of ['SendMessage', 'GetTask', 'message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'tools/call', 'tools/list', 'initialize', 'ping']) {
      expect(KNOWN_RPC_METHODS).toContain(m);
    }
  });

  it('is what the request classifier calls A2A (family aap), plus the DMC-12 methods', () => {
    expect([...A2A_METHODS]).toEqual([...A2A_RPC_METHODS]);
    for (const m of A2A_RPC_METHODS) expect(classifyCall({ jsonrpc: '2.0', id: 1, method: m }).family).toBe('aap');
    expect(classifyCall({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_vehicle' } }).family).toBe('dmc12');
  });
});

describe('retry-contract numbers', () => {
  it('are DESIGN §6’s window and DMC-12’s backoff: 10 min; 1 s → 2 s → 4 s, capped at 20 s; 5 attempts; equal jitter', () => {
    expect(RETRY_WINDOW_MS).toBe(10 * 60 * 1000);
    expect([1, 2, 3].map((n) => BACKOFF_BASE_MS * BACKOFF_MULTIPLIER ** (n - 1))).toEqual([1000, 2000, 4000]);
    expect(MAX_ATTEMPTS_CAP).toBe(5);
    expect(BACKOFF_MAX_MS).toBe(20_000);
    expect(BACKOFF_JITTER_FLOOR).toBe(0.5);
  });

  it('give the ceiling and the floor of each retry: 1 s / 0.5 s, 2 s / 1 s, 4 s / 2 s, … 20 s / 10 s', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffCeilingMs(n))).toEqual([1000, 2000, 4000, 8000, 16_000, 20_000]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffFloorMs(n))).toEqual([500, 1000, 2000, 4000, 8000, 10_000]);
    expect(backoffFloorMs(0)).toBe(500);
  });

  it('cap attempts at the top bucket of aap.server.request.attempts', () => {
    expect(METRICS.attempts.buckets.at(-1)).toBe(MAX_ATTEMPTS_CAP);
  });
});
