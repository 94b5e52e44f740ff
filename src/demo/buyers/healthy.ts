/**
 * The well-behaved buyers, written on `aap-triage/client` as a buyer-agent developer would: every
 * call goes through `withRetries` with the client's default policy (aap-buyer.ts, dmc12-buyer.ts).
 * Every request they make is a new one (different filters, VIN, quote or idempotency key), so the
 * retry tracker sees retries only where they are meant: a retryable answer, retried after
 * max(retry_after_ms, the equal-jittered backoff). Each also makes the
 * ordinary mistakes real buyers make, once, and fixes them the way the spec says (re-quote, pick
 * another VIN, fix the payload, refresh consent) rather than retrying as-is.
 */
import { demoInventory } from '../inventory.js';
import type { AapBuyer } from './aap-buyer.js';
import type { BuyerContext } from './context.js';
import type { Dmc12Buyer } from './dmc12-buyer.js';
import { BAD_PHONE, fakeCustomer, type FakeCustomer } from './personas.js';

type Obj = Record<string, unknown>;

/** A well-formed VIN that is not in the inventory. */
export const UNKNOWN_VIN = '1HGCY2F52RA999999';
/** The VIN holding-hana holds (and stubborn-stella keeps trying to reserve). */
export const HELD_VIN = '2HKRW2H88PH123456';

const INVENTORY = demoInventory();
const AVAILABLE_VINS = INVENTORY.filter((v) => v.status === 'available').map((v) => v.vin);
const SOLD_VIN = INVENTORY.find((v) => v.status === 'sold')?.vin ?? UNKNOWN_VIN;
const MAKES = [...new Set(INVENTORY.map((v) => v.make))];

/** careful-carla: browses the AAP dealer, never the same request twice. */
export async function carefulCarla(ctx: BuyerContext, aap: AapBuyer): Promise<void> {
  await aap.call({ type: 'dealer.information.request' });
  const vins = [UNKNOWN_VIN, ...INVENTORY.map((v) => v.vin)];
  const conditions = [undefined, 'new', 'used', 'cpo'];
  const sorts = [
    { field: 'price', order: 'asc' },
    { field: 'year', order: 'desc' },
    { field: 'mileage', order: 'asc' },
  ];
  const prices = [20000, 25000, 30000, 40000, 60000];
  let k = 0;
  let facet = 0;
  for (let step = 0; ctx.live() && step < 100_000; step++) {
    if (step % 4 === 0 && facet < MAKES.length * conditions.length) {
      const make = MAKES[facet % MAKES.length] as string;
      const condition = conditions[Math.floor(facet / MAKES.length)];
      facet += 1;
      await aap.call({ type: 'inventory.facets.request', filters: { make: [make], ...(condition ? { condition: [condition] } : {}) } });
    } else if (step % 4 === 3 && vins.length > 0) {
      const vin = vins.shift() as string;
      await aap.call({ type: 'inventory.vehicle.request', vin });
    } else {
      const condition = conditions[Math.floor(k / 10) % 4];
      const request = {
        type: 'inventory.search.request',
        filters: { make: [MAKES[k % MAKES.length]], price_max: prices[Math.floor(k / 120) % 5], ...(condition ? { condition: [condition] } : {}) },
        sort: sorts[Math.floor(k / 40) % 3],
        pagination: { skip: 0, limit: 10 + Math.floor(k / 600) },
      };
      k += 1;
      await aap.call(request);
    }
    if (!(await ctx.pause(300, 600))) return;
  }
}

function consent(now: number, overrides: Obj = {}): Obj {
  return {
    granted_at: new Date(now - 5 * 60_000).toISOString(),
    allowed_channels: ['email', 'phone'],
    consent_text: 'I agree that Demo Motors may contact me by email or phone about this enquiry. (Demo consent, fake customer.)',
    scope: ['lead_submission'],
    ...overrides,
  };
}

function lead(c: FakeCustomer, key: string, extra: Obj = {}): Obj {
  return {
    type: 'lead.submit.request',
    customer: { first_name: c.first_name, last_name: c.last_name, email: c.email, phone: c.phone, preferred_contact: 'email' },
    consent: consent(Date.now()),
    message: c.notes,
    source_agent: { name: 'patient-pete-agent', url: 'https://buyer-agent.example.com' },
    idempotency_key: key,
    ...extra,
  };
}

/**
 * patient-pete: submits consented leads. Early in the run it makes each lead mistake once
 * (no consent, expired consent, wrong condition vocabulary, test drive without a vehicle, sold
 * or unknown VIN, past appointment, a key reused with another body, an exact resend) and fixes it.
 */
export async function patientPete(ctx: BuyerContext, aap: AapBuyer): Promise<void> {
  let n = 0;
  const next = () => {
    n += 1;
    return { c: fakeCustomer('patient-pete', n), key: `idem-pete-${String(n).padStart(4, '0')}` };
  };
  const submit = (body: Obj) => aap.call(body);
  const available = AVAILABLE_VINS.filter((v) => v !== HELD_VIN);
  const voi = (i: number) => {
    const v = INVENTORY.find((x) => x.vin === available[i % available.length]);
    return v ? { vin: v.vin, year: v.year, make: v.make, model: v.model, condition: v.condition } : {};
  };
  const tomorrow = () => new Date(Date.now() + 26 * 3600_000).toISOString();

  // Each step: a mistake and its fix (or an ordinary lead), in order.
  const first = next();
  const firstBody = lead(first.c, first.key, { vehicle_of_interest: voi(0) });
  const steps: Array<() => Promise<unknown>> = [
    () => submit(firstBody),
    async () => {
      const { c, key } = next();
      const { consent: _omit, ...noConsent } = lead(c, key);
      const r = await submit(noConsent);
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key)));
    },
    async () => {
      const { c, key } = next();
      const r = await submit(lead(c, key, { consent: consent(Date.now() - 400 * 86_400_000, { expires_at: new Date(Date.now() - 86_400_000).toISOString() }) }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key)));
    },
    async () => {
      const { c, key } = next();
      const r = await submit(lead(c, key, { vehicle_of_interest: { ...voi(1), condition: 'good' } }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { vehicle_of_interest: voi(1) })));
    },
    async () => {
      const { c, key } = next();
      const appointment = { appointment_type: 'test_drive', appointment_at: tomorrow(), duration_minutes: 30, notes: c.notes };
      const r = await submit(lead(c, key, { appointment }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { appointment, vehicle_of_interest: voi(2) })));
    },
    async () => {
      const { c, key } = next();
      const r = await submit(lead(c, key, { vehicle_of_interest: { vin: SOLD_VIN } }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { vehicle_of_interest: voi(3) })));
    },
    async () => {
      const { c, key } = next();
      const r = await submit(lead(c, key, { vehicle_of_interest: { vin: UNKNOWN_VIN } }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { vehicle_of_interest: voi(4) })));
    },
    async () => {
      const { c, key } = next();
      const past = { appointment_type: 'sales_consultation', appointment_at: new Date(Date.now() - 3 * 3600_000).toISOString() };
      const r = await submit(lead(c, key, { appointment: past }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { appointment: { ...past, appointment_at: tomorrow() } })));
    },
    async () => {
      // The same lead again, same key and same body: the dealer answers "duplicate", not an error.
      await aap.once(firstBody);
      ctx.countRepeat();
    },
    async () => {
      // Reusing the first lead's key for another lead: IDEMPOTENCY_CONFLICT. Waits like a
      // backoff would, so reusing the key is not also a too-early retry.
      await ctx.sleep(2000);
      const { c } = next();
      const r = await submit(lead(c, first.key, { message: 'A different question under a reused key.' }));
      if (!r.ok) await ctx.pause(100, 200).then(() => submit(lead(c, next().key, { message: 'A different question under a reused key.' })));
    },
  ];
  for (const step of steps) {
    if (!ctx.live()) return;
    await step();
    if (!(await ctx.pause(150, 300))) return;
  }
  for (let i = 0; ctx.live() && i < 100_000; i++) {
    const { c, key } = next();
    await submit(lead(c, key, i % 2 === 0 ? { vehicle_of_interest: voi(i + 5) } : {}));
    if (!(await ctx.pause(700, 1200))) return;
  }
}

function handoffArgs(token: string, c: FakeCustomer, overrides: Obj = {}): Obj {
  return {
    reservation_token: token,
    customer: { name: c.full_name, email: c.email, phone: c.phone },
    customer_consent: { granted_at: new Date(Date.now() - 10 * 60_000).toISOString(), expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() },
    notes: c.notes,
    ...overrides,
  };
}

/** holding-hana: holds one VIN for the whole run, then browses slowly. */
export async function holdingHana(ctx: BuyerContext, dmc: Dmc12Buyer, publish: (held: { vin: string; token: string } | null) => void): Promise<void> {
  let held: { vin: string; token: string } | null = null;
  const quote = await dmc.call('request_quote', { vin: HELD_VIN });
  if (quote.ok) {
    const rsv = await dmc.call('create_reservation', { quote_id: String(quote.data.quote_id) });
    if (rsv.ok) held = { vin: HELD_VIN, token: String(rsv.data.reservation_token) };
  }
  publish(held);
  const conditions = ['new', 'used', 'cpo'];
  for (let i = 0; ctx.live() && i < 100_000; i++) {
    if (!(await ctx.pause(1500, 2500))) return;
    const make = MAKES[i % MAKES.length] as string;
    await dmc.call('search_inventory', { make, condition: conditions[Math.floor(i / MAKES.length) % 3], page: 1 + Math.floor(i / (MAKES.length * 3)) });
  }
}

/**
 * steady-sofia: the DMC-12 deal flow (search → quote → hold → hand-off), one VIN after another.
 * She starts with a revoked token and a session resumed from 45 minutes ago, and makes each
 * hand-off mistake once; she backs off on RATE_LIMITED and UPSTREAM_UNAVAILABLE only.
 */
export async function steadySofia(ctx: BuyerContext, dmc: Dmc12Buyer): Promise<void> {
  const { stale, revokedToken } = ctx.scenario;
  dmc.setToken(revokedToken);
  await dmc.call('search_inventory', { make: 'Toyota' });
  dmc.setToken(ctx.persona.apiKey);
  await dmc.call('create_reservation', { quote_id: stale.quoteId }); // QUOTE_EXPIRED: re-quote below
  if (!(await ctx.pause(150, 350))) return;
  let n = 0;
  await dmc.call('initiate_deal_handoff', handoffArgs(stale.reservationToken, fakeCustomer('steady-sofia', ++n))); // RESERVATION_EXPIRED
  if (!(await ctx.pause(150, 350))) return;
  await dmc.call('get_vehicle', { vin: UNKNOWN_VIN });
  if (!(await ctx.pause(150, 350))) return;
  await dmc.call('request_quote', { vin: SOLD_VIN });
  if (!(await ctx.pause(150, 350))) return;

  const held = await ctx.scenario.held;
  if (held) {
    await dmc.call('release_reservation', { reservation_token: held.token }); // NOT_AUTHORIZED: not hers
    if (!(await ctx.pause(150, 350))) return;
  }
  let mistakes = ['bad-phone', 'expired-consent', 'release-twice'];
  for (let round = 0, i = 0; ctx.live() && i < 100_000; i++) {
    const vin = AVAILABLE_VINS[i % AVAILABLE_VINS.length] as string;
    if (i > 0 && i % AVAILABLE_VINS.length === 0) round += 1;
    const listing = INVENTORY.find((v) => v.vin === vin);
    await dmc.call('search_inventory', { make: listing?.make ?? 'Toyota', max_price: listing?.price ?? 50000, page: 1 + round });
    if (!(await ctx.pause(150, 350))) return;
    if (round === 0) {
      await dmc.call('get_vehicle', { vin });
      if (!(await ctx.pause(150, 350))) return;
    }
    const quote = await dmc.call('request_quote', { vin, zip: String(62701 + round) });
    if (!quote.ok || !(await ctx.pause(150, 350))) continue;
    const rsv = await dmc.call('create_reservation', { quote_id: String(quote.data.quote_id) });
    if (!rsv.ok) continue; // RESERVATION_CONFLICT: pick another VIN, never retry as-is
    if (!(await ctx.pause(150, 350))) return;
    const token = String(rsv.data.reservation_token);
    const c = fakeCustomer('steady-sofia', ++n);
    const mistake = mistakes[0];
    mistakes = mistakes.slice(1);
    if (mistake === 'bad-phone') {
      await dmc.call('initiate_deal_handoff', handoffArgs(token, c, { customer: { name: c.full_name, email: c.email, phone: BAD_PHONE } }));
      if (!(await ctx.pause(200, 400))) return;
    } else if (mistake === 'expired-consent') {
      const lapsed = { granted_at: new Date(Date.now() - 40 * 86_400_000).toISOString(), expires_at: new Date(Date.now() - 86_400_000).toISOString() };
      await dmc.call('initiate_deal_handoff', handoffArgs(token, c, { customer_consent: lapsed }));
      if (!(await ctx.pause(200, 400))) return;
    } else if (mistake === 'release-twice') {
      await dmc.call('release_reservation', { reservation_token: token });
      if (!(await ctx.pause(1500, 2000))) return;
      await dmc.once('release_reservation', { reservation_token: token }); // RESERVATION_STATE: the same request again, by hand
      ctx.countRepeat();
      continue;
    }
    const handoff = handoffArgs(token, c); // built once: a retry resends the same request
    await dmc.call('initiate_deal_handoff', handoff);
    if (!(await ctx.pause(150, 350))) return;
  }
}
