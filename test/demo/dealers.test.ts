/**
 * The demo dealers' skill and tool logic, without transport: which code arises when
 * (spec/aap-errors.txt "Per-code semantics", spec/dmc12-errors.txt "The full code set").
 */
import { describe, expect, it } from 'vitest';
import { isAapError } from '../../src/protocol/index.js';
import { AapDealer } from '../../src/demo/aap/dealer.js';
import { Dmc12Dealer, Dmc12Failure } from '../../src/demo/dmc12/dealer.js';
import { demoInventory } from '../../src/demo/inventory.js';
import { createRng } from '../../src/demo/rng.js';
import { TokenBuckets } from '../../src/demo/rate-limit.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const available = demoInventory().find((v) => v.status === 'available')!;
const sold = demoInventory().find((v) => v.status === 'sold')!;

function aapDealer(overrides: { leadFaultRate?: number; capacity?: number } = {}) {
  return new AapDealer({
    inventory: demoInventory(),
    rng: createRng(1),
    rateLimit: { capacity: overrides.capacity ?? 100, refillPerSecond: 1 },
    minRetryAfterMs: 1000,
    leadFaultRate: overrides.leadFaultRate ?? 0,
    now: () => NOW,
  });
}

/** The AAP code (and details) a call throws, or 'ok'. */
function aapCode(dealer: AapDealer, payload: unknown, client = 'k1'): { code: string; details?: Record<string, unknown>; retryable?: boolean } {
  try {
    dealer.handle(payload, client);
    return { code: 'ok' };
  } catch (err) {
    if (!isAapError(err)) throw err;
    return { code: err.code, ...(err.details ? { details: err.details } : {}), retryable: err.retryable };
  }
}

const lead = (extra: Record<string, unknown> = {}) => ({
  type: 'lead.submit.request',
  customer: { first_name: 'Test', last_name: 'Buyer-unit', email: 'test.buyer.unit@example.com', preferred_contact: 'email' },
  consent: { granted_at: '2026-11-30T11:00:00Z', allowed_channels: ['email'], consent_text: 'Demo consent.', scope: ['lead_submission'] },
  source_agent: { name: 'unit-test' },
  ...extra,
});

describe('AAP demo dealer', () => {
  it('lists every schema problem of a search at once, as JSON pointers into the payload', () => {
    const r = aapCode(aapDealer(), { type: 'inventory.search.request', filters: { year_min: '2020', colour: ['red'], price_max: -1 }, pagination: { limit: 500 } });
    expect(r.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(r.retryable).toBe(false);
    expect(r.details?.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instanceLocation: '/filters/year_min', keyword: 'type' }),
        expect.objectContaining({ instanceLocation: '/filters/colour', keyword: 'additionalProperties' }),
        expect.objectContaining({ instanceLocation: '/filters/price_max', keyword: 'minimum' }),
        expect.objectContaining({ instanceLocation: '/pagination/limit', keyword: 'maximum' }),
      ]),
    );
    expect(r.details?.errors).toHaveLength(4);
  });

  it('answers unknown and sold VINs with VEHICLE_NOT_FOUND and VEHICLE_UNAVAILABLE', () => {
    const d = aapDealer();
    expect(aapCode(d, { type: 'inventory.vehicle.request', vin: '1HGCY2F52RA999999' }).code).toBe('VEHICLE_NOT_FOUND');
    expect(aapCode(d, { type: 'inventory.vehicle.request', vin: sold.vin }).code).toBe('VEHICLE_UNAVAILABLE');
    expect(aapCode(d, { type: 'inventory.vehicle.request', vin: available.vin }).code).toBe('ok');
  });

  it('applies the consent rules: missing, expired, wrong scope, unconsented channel', () => {
    const d = aapDealer();
    const { consent: _c, ...noConsent } = lead();
    expect(aapCode(d, noConsent).code).toBe('CONTACT_CONSENT_REQUIRED');
    const base = lead().consent as Record<string, unknown>;
    expect(aapCode(d, lead({ consent: { ...base, expires_at: '2026-11-29T00:00:00Z' } })).code).toBe('INVALID_CONSENT');
    expect(aapCode(d, lead({ consent: { ...base, scope: ['marketing'] } })).code).toBe('INVALID_CONSENT');
    expect(aapCode(d, lead({ consent: { ...base, consent_text: ' ' } })).code).toBe('INVALID_CONSENT');
    expect(aapCode(d, lead({ customer: { first_name: 'Test', last_name: 'B', phone: '+15550100001', preferred_contact: 'sms' } })).code).toBe('CONTACT_CONSENT_REQUIRED');
  });

  it('rejects a condition from the wrong vocabulary and a test drive without a vehicle', () => {
    const d = aapDealer();
    expect(aapCode(d, lead({ vehicle_of_interest: { vin: available.vin, condition: 'good' } })).code).toBe('INVALID_CONDITION');
    expect(aapCode(d, lead({ trade_in: { make: 'Ford', condition: 'used' } })).code).toBe('INVALID_CONDITION');
    expect(aapCode(d, lead({ appointment: { appointment_type: 'test_drive', appointment_at: '2026-12-01T10:00:00Z' } })).code).toBe('MISSING_REQUIRED_FIELD');
    expect(aapCode(d, lead({ appointment: { appointment_type: 'service', appointment_at: '2026-11-29T10:00:00Z' } })).code).toBe('APPOINTMENT_TIME_UNAVAILABLE');
  });

  it('treats the same idempotency key with the same body as a duplicate and with another body as a conflict', () => {
    const d = aapDealer();
    const first = d.handle(lead({ idempotency_key: 'k-1' }), 'k1') as { data: { lead_id: string; status: string } };
    expect(first.data.status).toBe('received');
    const again = d.handle(lead({ idempotency_key: 'k-1' }), 'k1') as { data: { lead_id: string; status: string } };
    expect(again.data).toEqual({ lead_id: first.data.lead_id, status: 'duplicate' });
    expect(aapCode(d, lead({ idempotency_key: 'k-1', message: 'another question' })).code).toBe('IDEMPOTENCY_CONFLICT');
    // Keys are per client: another buyer may use the same key (its first try is the run's
    // second new lead, which meets the injected CRM fault; the retry goes through).
    expect(aapCode(d, lead({ idempotency_key: 'k-1', message: 'another question' }), 'k2').code).toBe('INTERNAL_ERROR');
    expect(aapCode(d, lead({ idempotency_key: 'k-1', message: 'another question' }), 'k2').code).toBe('ok');
  });

  it('fails the second new lead with a retryable INTERNAL_ERROR (the injected CRM fault)', () => {
    const d = aapDealer();
    expect(aapCode(d, lead({ idempotency_key: 'a' })).code).toBe('ok');
    const r = aapCode(d, lead({ idempotency_key: 'b' }));
    expect(r).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    expect(aapCode(d, lead({ idempotency_key: 'b' })).code).toBe('ok');
  });

  it('rate-limits per client with retry_after_ms of at least 1000', () => {
    const d = aapDealer({ capacity: 2 });
    const info = { type: 'dealer.information.request' };
    expect(aapCode(d, info).code).toBe('ok');
    expect(aapCode(d, info).code).toBe('ok');
    const r = aapCode(d, info);
    expect(r).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(r.details?.retry_after_ms).toBeGreaterThanOrEqual(1000);
    expect(aapCode(d, info, 'other-client').code).toBe('ok');
  });

  it('answers a skill it does not declare with UNSUPPORTED_SKILL', () => {
    expect(aapCode(aapDealer(), { type: 'inventory.compare.request' }).code).toBe('UNSUPPORTED_SKILL');
  });
});

describe('DMC-12 demo dealer', () => {
  let now = NOW;
  const dealer = () =>
    new Dmc12Dealer({ inventory: demoInventory(), rng: createRng(2), rateLimit: { capacity: 100, refillPerSecond: 1 }, ttlMs: 30 * 60_000, handoffFaultRate: 0, now: () => now });
  const code = (d: Dmc12Dealer, tool: string, args: unknown, client = 'c1'): string => {
    try {
      d.call(tool, args, client);
      return 'ok';
    } catch (err) {
      if (err instanceof Dmc12Failure) return err.code;
      throw err;
    }
  };
  const handoff = (token: string, extra: Record<string, unknown> = {}) => ({
    reservation_token: token,
    customer: { name: 'Test Buyer', email: 'test.buyer@example.com', phone: '+15550100002' },
    customer_consent: { granted_at: '2026-11-30T11:00:00Z', expires_at: '2026-12-30T11:00:00Z' },
    ...extra,
  });

  it('holds one VIN per active reservation and answers a second hold with RESERVATION_CONFLICT (vin_already_reserved)', () => {
    now = NOW;
    const d = dealer();
    const q1 = d.call('request_quote', { vin: available.vin }, 'c1') as { quote_id: string };
    const q2 = d.call('request_quote', { vin: available.vin }, 'c2') as { quote_id: string };
    expect(code(d, 'create_reservation', { quote_id: q1.quote_id }, 'c1')).toBe('ok');
    try {
      d.call('create_reservation', { quote_id: q2.quote_id }, 'c2');
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ code: 'RESERVATION_CONFLICT', legacyError: 'vin_already_reserved' });
    }
  });

  it('expires quotes and holds after 30 minutes', () => {
    now = NOW;
    const d = dealer();
    const q = d.call('request_quote', { vin: available.vin }, 'c1') as { quote_id: string };
    const q2 = d.call('request_quote', { vin: available.vin }, 'c1') as { quote_id: string };
    const r = d.call('create_reservation', { quote_id: q.quote_id }, 'c1') as { reservation_token: string };
    now = NOW + 31 * 60_000;
    expect(code(d, 'create_reservation', { quote_id: q2.quote_id })).toBe('QUOTE_EXPIRED');
    expect(code(d, 'initiate_deal_handoff', handoff(r.reservation_token))).toBe('RESERVATION_EXPIRED');
  });

  it('answers bad arguments with VALIDATION_FAILED whose message echoes the bad value', () => {
    now = NOW;
    const d = dealer();
    try {
      d.call('initiate_deal_handoff', handoff('rsv_x', { customer: { name: 'Test', email: 'test@example.com', phone: '+1555-CALL' } }), 'c1');
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect((err as Error).message).toContain('+1555-CALL');
    }
  });

  it('answers another agent’s hold with NOT_AUTHORIZED, a released one with RESERVATION_STATE, lapsed consent with CONSENT_INVALID', () => {
    now = NOW;
    const d = dealer();
    const q = d.call('request_quote', { vin: available.vin }, 'c1') as { quote_id: string };
    const r = d.call('create_reservation', { quote_id: q.quote_id }, 'c1') as { reservation_token: string };
    expect(code(d, 'release_reservation', { reservation_token: r.reservation_token }, 'c2')).toBe('NOT_AUTHORIZED');
    expect(code(d, 'initiate_deal_handoff', handoff(r.reservation_token, { customer_consent: { granted_at: '2026-10-01T00:00:00Z', expires_at: '2026-11-01T00:00:00Z' } }))).toBe('CONSENT_INVALID');
    expect(code(d, 'initiate_deal_handoff', handoff(r.reservation_token))).toBe('UPSTREAM_UNAVAILABLE'); // first hand-off: injected SMTP fault
    expect(code(d, 'initiate_deal_handoff', handoff(r.reservation_token))).toBe('ok');
    expect(code(d, 'release_reservation', { reservation_token: r.reservation_token })).toBe('RESERVATION_STATE');
    expect(code(d, 'request_quote', { vin: sold.vin })).toBe('VEHICLE_UNAVAILABLE');
    expect(code(d, 'get_vehicle', { vin: '1HGCY2F52RA999999' })).toBe('VEHICLE_NOT_FOUND');
  });
});

describe('TokenBuckets', () => {
  it('refills at the configured rate and says how long until the next token', () => {
    let t = 0;
    const b = new TokenBuckets({ capacity: 2, refillPerSecond: 4, now: () => t });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: false, retryAfterMs: 250 });
    t = 250;
    expect(b.take('a')).toEqual({ ok: true });
  });
});
