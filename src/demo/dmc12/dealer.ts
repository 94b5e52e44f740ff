/**
 * Tool logic of the demo DMC-12 dealer agent (spec/dmc12-errors.txt): quotes and holds that live
 * 30 minutes, one active hold per VIN, a daily reservation budget per client, a per-client rate
 * limit and an injected SMTP fault on hand-off. Returns `{ data }` on success or throws
 * `Dmc12Failure`; `server.ts` puts either inside the result envelope.
 */
import type { Dmc12Code } from '../../protocol/index.js';
import { SELLABLE_STATUSES, type DemoVehicle } from '../inventory.js';
import { TokenBuckets } from '../rate-limit.js';
import type { Rng } from '../rng.js';
import { isDmc12Tool, validateToolArgs, type Dmc12Tool } from './schemas.js';

/** A tool failure: the DMC-12 code, the legacy `error` string and a message for the caller. */
export class Dmc12Failure extends Error {
  constructor(
    readonly code: Dmc12Code,
    message: string,
    readonly legacyError?: string,
  ) {
    super(message);
    this.name = 'Dmc12Failure';
  }
}

/** Options of {@link Dmc12Dealer}. */
export interface Dmc12DealerOptions {
  inventory: DemoVehicle[];
  rng: Rng;
  /** Per-client token bucket: burst (requests) and refill (requests per second). */
  rateLimit: { capacity: number; refillPerSecond: number };
  /** Quote and hold lifetime, ms. */
  ttlMs: number;
  /** Reservations one client may create per day. */
  dailyReservations?: number;
  /** Probability in [0, 1] that a hand-off hits the injected SMTP fault; the first one always does. */
  handoffFaultRate: number;
  now?: () => number;
}

interface Quote {
  id: string;
  vin: string;
  client: string;
  createdAt: number;
  state: 'open' | 'converted';
}

interface Reservation {
  token: string;
  vin: string;
  client: string;
  createdAt: number;
  state: 'active' | 'released' | 'converted';
}

type Args = Record<string, unknown>;

/** The demo DMC-12 dealer: quotes, holds and hand-offs, in memory. */
export class Dmc12Dealer {
  private readonly quotes = new Map<string, Quote>();
  private readonly reservations = new Map<string, Reservation>();
  private readonly reservationsToday = new Map<string, number>();
  private readonly buckets: TokenBuckets;
  private readonly now: () => number;
  private seq = 0;
  private handoffs = 0;

  constructor(private readonly options: Dmc12DealerOptions) {
    this.now = options.now ?? Date.now;
    this.buckets = new TokenBuckets({ ...options.rateLimit, now: this.now });
  }

  /**
   * Seeds a quote and a hold created `ageMs` ago for `client` (a session resumed from earlier in
   * the day, so QUOTE_EXPIRED and RESERVATION_EXPIRED arise naturally). Returns their ids.
   */
  seedStale(client: string, vin: string, ageMs: number): { quoteId: string; reservationToken: string } {
    const createdAt = this.now() - ageMs;
    const quoteId = this.nextId('q');
    this.quotes.set(quoteId, { id: quoteId, vin, client, createdAt, state: 'open' });
    const token = this.nextId('rsv');
    this.reservations.set(token, { token, vin, client, createdAt, state: 'active' });
    return { quoteId, reservationToken: token };
  }

  /**
   * Runs one `tools/call`. `client` is the caller's (already authenticated) token.
   * @throws Dmc12Failure with the spec's code; `TypeError`-free for any `args`.
   */
  call(tool: string, args: unknown, client: string): Args {
    const taken = this.buckets.take(client);
    if (!taken.ok) throw new Dmc12Failure('RATE_LIMITED', `Rate limit exceeded; retry in ${taken.retryAfterMs} ms.`);
    if (!isDmc12Tool(tool)) throw new Dmc12Failure('VALIDATION_FAILED', `Unknown tool ${JSON.stringify(tool)}.`, 'unknown_tool');
    const problems = validateToolArgs(tool, args ?? {});
    if (problems.length > 0) throw new Dmc12Failure('VALIDATION_FAILED', `Invalid arguments: ${problems.join('; ')}`, 'invalid_arguments');
    return this.dispatch(tool, (args ?? {}) as Args, client);
  }

  private dispatch(tool: Dmc12Tool, a: Args, client: string): Args {
    switch (tool) {
      case 'search_inventory':
        return this.search(a);
      case 'get_vehicle':
        return { vehicle: this.vehicle(String(a.vin)) };
      case 'request_quote':
        return this.quote(String(a.vin), client);
      case 'create_reservation':
        return this.reserve(String(a.quote_id), client);
      case 'release_reservation':
        return this.release(String(a.reservation_token), client);
      case 'initiate_deal_handoff':
        return this.handoff(a, client);
    }
  }

  private search(a: Args): Args {
    const hits = this.options.inventory.filter(
      (v) =>
        v.status === 'available' &&
        (a.make === undefined || String(a.make).toLowerCase() === v.make.toLowerCase()) &&
        (a.model === undefined || String(a.model).toLowerCase() === v.model.toLowerCase()) &&
        (a.condition === undefined || a.condition === v.condition) &&
        (a.max_price === undefined || v.price <= Number(a.max_price)),
    );
    const page = typeof a.page === 'number' ? a.page : 1;
    return { total: hits.length, page, vehicles: hits.slice((page - 1) * 10, page * 10).map(({ vin, year, make, model, trim, price, mileage }) => ({ vin, year, make, model, trim, price, mileage })) };
  }

  private vehicle(vin: string): DemoVehicle {
    const v = this.options.inventory.find((x) => x.vin === vin);
    if (!v) throw new Dmc12Failure('VEHICLE_NOT_FOUND', `VIN ${vin} is not in inventory.`, 'vehicle_not_found');
    return v;
  }

  private quote(vin: string, client: string): Args {
    const v = this.vehicle(vin);
    if (!SELLABLE_STATUSES.has(v.status) || v.status !== 'available') {
      throw new Dmc12Failure('VEHICLE_UNAVAILABLE', `Vehicle ${vin} is ${v.status}.`, 'vehicle_not_available');
    }
    const id = this.nextId('q');
    const createdAt = this.now();
    this.quotes.set(id, { id, vin, client, createdAt, state: 'open' });
    const fees = 899;
    return { quote_id: id, vin, price: v.price, fees, total: v.price + fees, expires_at: new Date(createdAt + this.options.ttlMs).toISOString() };
  }

  private reserve(quoteId: string, client: string): Args {
    const q = this.quotes.get(quoteId);
    if (!q || q.client !== client) throw new Dmc12Failure('QUOTE_NOT_FOUND', `Unknown quote_id ${quoteId}.`, 'quote_not_found');
    if (q.state !== 'open') throw new Dmc12Failure('QUOTE_STATE', `Quote ${quoteId} is ${q.state}.`, 'quote_not_open');
    const now = this.now();
    if (now - q.createdAt > this.options.ttlMs) throw new Dmc12Failure('QUOTE_EXPIRED', `Quote ${quoteId} expired; request a new quote.`, 'quote_expired');
    const held = [...this.reservations.values()].find((r) => r.vin === q.vin && r.state === 'active' && now - r.createdAt <= this.options.ttlMs);
    if (held) throw new Dmc12Failure('RESERVATION_CONFLICT', `VIN ${q.vin} already has an active hold.`, 'vin_already_reserved');
    const used = this.reservationsToday.get(client) ?? 0;
    if (used >= (this.options.dailyReservations ?? 50)) throw new Dmc12Failure('RESERVATION_LIMIT', 'Daily reservation budget exhausted.', 'reservation_limit');
    this.reservationsToday.set(client, used + 1);
    q.state = 'converted';
    const token = this.nextId('rsv');
    this.reservations.set(token, { token, vin: q.vin, client, createdAt: now, state: 'active' });
    return { reservation_token: token, vin: q.vin, status: 'active', expires_at: new Date(now + this.options.ttlMs).toISOString() };
  }

  private ownReservation(token: string, client: string): Reservation {
    const r = this.reservations.get(token);
    if (!r) throw new Dmc12Failure('RESERVATION_NOT_FOUND', `Unknown reservation_token ${token}.`, 'reservation_not_found');
    if (r.client !== client) throw new Dmc12Failure('NOT_AUTHORIZED', 'The reservation belongs to another agent.', 'not_owner');
    return r;
  }

  private release(token: string, client: string): Args {
    const r = this.ownReservation(token, client);
    if (r.state !== 'active') throw new Dmc12Failure('RESERVATION_STATE', `Reservation is ${r.state}.`, 'reservation_not_active');
    r.state = 'released';
    return { reservation_token: token, status: 'released' };
  }

  private handoff(a: Args, client: string): Args {
    const r = this.ownReservation(String(a.reservation_token), client);
    if (r.state !== 'active') throw new Dmc12Failure('RESERVATION_STATE', `Reservation is ${r.state}.`, 'reservation_not_active');
    const now = this.now();
    if (now - r.createdAt > this.options.ttlMs) throw new Dmc12Failure('RESERVATION_EXPIRED', 'The hold expired before the hand-off; re-quote and reserve again.', 'reservation_expired');
    const consent = a.customer_consent as { expires_at: string };
    if (Date.parse(consent.expires_at) <= now) throw new Dmc12Failure('CONSENT_INVALID', 'customer_consent.expires_at is in the past; refresh consent.', 'consent_expired');
    // SMTP fails on the first hand-off attempt of every run (so a short demo shows it and the
    // polite retry), then at random with the configured rate.
    this.handoffs += 1;
    if (this.handoffs === 1 || this.options.rng.chance(this.options.handoffFaultRate)) {
      throw new Dmc12Failure('UPSTREAM_UNAVAILABLE', 'The hand-off email could not be sent (SMTP unavailable); retry with backoff.', 'smtp_unavailable');
    }
    r.state = 'converted';
    return { handoff_id: this.nextId('ho'), reservation_token: r.token, status: 'sent' };
  }

  private nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${this.now().toString(36)}${String(this.seq).padStart(4, '0')}`;
  }
}
