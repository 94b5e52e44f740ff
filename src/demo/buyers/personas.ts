/**
 * The demo's buyer agents and their obviously fake customers. Each buyer has its own API key, so
 * its own `client` pseudonym in the audit store; the demo (and only the demo) keeps the map
 * buyer → key so its output can say which buyer a storm is.
 */

/** How a buyer behaves. */
export type BuyerKind = 'healthy' | 'misbehaving';

/** One simulated buyer agent. */
export interface Persona {
  /** Short name printed by the demo (`hammering-harry`). */
  name: string;
  kind: BuyerKind;
  /** Which dealer agent it talks to. */
  protocol: 'aap' | 'dmc12';
  /** One line: what it does. */
  behaviour: string;
  /** API key / bearer token (fake, demo only). */
  apiKey: string;
}

const key = (name: string, seed: number) => `demo-sk-${name}-${(seed * 2654435761 >>> 0).toString(16).padStart(8, '0')}`;

/** The buyer roster for a seed (keys differ per seed so runs do not share pseudonyms by accident). */
export function personas(seed: number): Persona[] {
  const p = (name: string, kind: BuyerKind, protocol: 'aap' | 'dmc12', behaviour: string): Persona => ({ name, kind, protocol, behaviour, apiKey: key(name, seed) });
  return [
    p('careful-carla', 'healthy', 'aap', 'browses: dealer info, facets, varied searches, vehicle details'),
    p('patient-pete', 'healthy', 'aap', 'submits consented leads; backs off on INTERNAL_ERROR and RATE_LIMITED'),
    p('steady-sofia', 'healthy', 'dmc12', 'quotes, holds and hands off deals; re-quotes when a quote or hold expired'),
    p('holding-hana', 'healthy', 'dmc12', 'holds one VIN, then browses slowly'),
    p('sloppy-sam', 'misbehaving', 'aap', 'resends an invalid inventory.search without fixing it'),
    p('hammering-harry', 'misbehaving', 'aap', 'hammers inventory.search past RATE_LIMITED, ignoring retry_after_ms'),
    p('stubborn-stella', 'misbehaving', 'dmc12', 'keeps reserving a VIN another buyer already holds'),
    p('legacy-larry', 'misbehaving', 'aap', 'never activates the AAP extension (A2A-Extensions)'),
  ];
}

/** A fake customer: every value is reserved for documentation or obviously synthetic. */
export interface FakeCustomer {
  first_name: string;
  last_name: string;
  /** `first last`, for DMC-12's single `name` field. */
  full_name: string;
  email: string;
  /** E.164, in the +1 555 fictional range. */
  phone: string;
  notes: string;
}

/** The n-th fake customer of a buyer (deterministic). */
export function fakeCustomer(buyer: string, n: number): FakeCustomer {
  const tag = `${buyer.split('-')[1] ?? buyer}${String(n).padStart(3, '0')}`;
  const last = `Buyer-${tag}`;
  return {
    first_name: 'Test',
    last_name: last,
    full_name: `Test ${last}`,
    email: `test.buyer.${tag}@example.com`,
    phone: `+1555010${String(1000 + ((n * 37 + buyer.length * 101) % 9000)).padStart(4, '0')}`,
    notes: `Fake note ${tag}: prefers weekday mornings, has a trade-in.`,
  };
}

/** The malformed phone a DMC-12 hand-off sends once (echoed by the server; never audited). */
export const BAD_PHONE = '+1555-CALL-ME-NOW';
