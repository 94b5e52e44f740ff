/**
 * Skill logic of the demo AAP dealer agent (spec/aap-errors.txt "Per-code semantics"): takes the
 * skill request payload and the caller's credential, returns the response payload, or throws an
 * `AapError` with the code the spec names for the situation. No transport here; `server.ts`
 * puts it behind `@a2a-js/sdk`.
 */
import { createHash } from 'node:crypto';
import { AapError } from '../../protocol/index.js';
import { DEALER, SELLABLE_STATUSES, type DemoVehicle } from '../inventory.js';
import { TokenBuckets } from '../rate-limit.js';
import type { Rng } from '../rng.js';
import { isAapSkill, validateSkillRequest, type AapSkill } from './schemas.js';

/** Options of {@link AapDealer}. */
export interface AapDealerOptions {
  inventory: DemoVehicle[];
  rng: Rng;
  /** Per-client token bucket: burst (requests) and refill (requests per second). */
  rateLimit: { capacity: number; refillPerSecond: number };
  /** Smallest `retry_after_ms` sent with RATE_LIMITED, ms. */
  minRetryAfterMs: number;
  /** Probability in [0, 1] that a lead hits the injected CRM fault (INTERNAL_ERROR); the 2nd new lead always does. */
  leadFaultRate: number;
  /** Clock, epoch ms. */
  now?: () => number;
}

type Payload = Record<string, unknown>;

interface StoredLead {
  bodyHash: string;
  leadId: string;
}

/** The demo AAP dealer: inventory, leads, idempotency keys and rate limits, all in memory. */
export class AapDealer {
  private readonly buckets: TokenBuckets;
  private readonly leads = new Map<string, StoredLead>();
  private readonly now: () => number;
  private leadSeq = 0;
  private newLeads = 0;

  constructor(private readonly options: AapDealerOptions) {
    this.now = options.now ?? Date.now;
    this.buckets = new TokenBuckets({ ...options.rateLimit, now: this.now });
  }

  /**
   * Handles one skill call. `payload` is the message's first data part; `client` the caller's
   * credential (or a fallback such as the remote address).
   * @throws AapError with the code the spec prescribes (RATE_LIMITED first, then
   *   UNSUPPORTED_SKILL, SCHEMA_VALIDATION_FAILED, then the skill's own codes).
   */
  handle(payload: unknown, client: string): Payload {
    const taken = this.buckets.take(client);
    if (!taken.ok) {
      const retryAfterMs = Math.max(this.options.minRetryAfterMs, taken.retryAfterMs);
      throw new AapError('RATE_LIMITED', 'Per-key rate limit exceeded.', {
        details: { retry_after_ms: retryAfterMs },
        retryable: true,
      });
    }
    const type = isObject(payload) && typeof payload.type === 'string' ? payload.type : '';
    const skill = type.endsWith('.request') ? type.slice(0, -'.request'.length) : '';
    if (!isAapSkill(skill)) {
      throw new AapError('UNSUPPORTED_SKILL', 'This dealer agent does not implement the requested skill; see the agent card for the skills it declares.', {
        details: { supported: ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit'] },
      });
    }
    const issues = validateSkillRequest(skill, payload);
    if (issues.length > 0) {
      throw new AapError('SCHEMA_VALIDATION_FAILED', `request failed validation with ${issues.length} error${issues.length === 1 ? '' : 's'}`, {
        details: { errors: issues },
      });
    }
    return this.dispatch(skill, payload as Payload, client);
  }

  private dispatch(skill: AapSkill, req: Payload, client: string): Payload {
    switch (skill) {
      case 'dealer.information':
        return { type: 'dealer.information.response', data: dealerInformation() };
      case 'inventory.facets':
        return { type: 'inventory.facets.response', data: facets(this.filter((req.filters ?? {}) as Payload)) };
      case 'inventory.search':
        return { type: 'inventory.search.response', data: this.search(req) };
      case 'inventory.vehicle':
        return { type: 'inventory.vehicle.response', data: this.vehicle(req) };
      case 'lead.submit':
        return { type: 'lead.submit.response', data: this.submitLead(req, client) };
    }
  }

  private filter(f: Payload): DemoVehicle[] {
    const inList = (list: unknown, v: string) => !Array.isArray(list) || list.some((x) => String(x).toLowerCase() === v.toLowerCase());
    const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
    return this.options.inventory.filter(
      (v) =>
        inList(f.make, v.make) &&
        inList(f.model, v.model) &&
        inList(f.trim, v.trim) &&
        inList(f.condition, v.condition) &&
        inList(f.body, v.body) &&
        inList(f.fuel, v.fuel) &&
        inList(f.driveline, v.driveline) &&
        inList(f.transmission, v.transmission) &&
        inList(f.rooftops, v.rooftop) &&
        v.year >= (num(f.year_min) ?? 0) &&
        v.year <= (num(f.year_max) ?? 9999) &&
        v.price >= (num(f.price_min) ?? 0) &&
        v.price <= (num(f.price_max) ?? Infinity) &&
        v.mileage <= (num(f.mileage_max) ?? Infinity) &&
        (f.vin === undefined || f.vin === v.vin) &&
        (f.stock === undefined || f.stock === v.stock),
    );
  }

  private search(req: Payload): Payload {
    const matches = this.filter((req.filters ?? {}) as Payload).filter((v) => v.status !== 'sold');
    const sort = req.sort as { field: keyof DemoVehicle; order: 'asc' | 'desc' } | undefined;
    if (sort) {
      const dir = sort.order === 'asc' ? 1 : -1;
      matches.sort((a, b) => (a[sort.field] < b[sort.field] ? -dir : a[sort.field] > b[sort.field] ? dir : 0));
    }
    const page = (req.pagination ?? {}) as { skip?: number; limit?: number };
    const skip = page.skip ?? 0;
    const limit = page.limit ?? 25;
    return { total: matches.length, skip, limit, vehicles: matches.slice(skip, skip + limit) };
  }

  private findVehicle(ref: Payload): DemoVehicle | undefined {
    return this.options.inventory.find(
      (v) => (ref.vin !== undefined && ref.vin === v.vin) || (ref.stock !== undefined && ref.stock === v.stock) || (ref.vehicle_id !== undefined && ref.vehicle_id === v.vehicle_id),
    );
  }

  private vehicle(req: Payload): DemoVehicle {
    const v = this.findVehicle(req);
    if (!v) {
      throw new AapError('VEHICLE_NOT_FOUND', 'No listing matches the supplied identifiers.', {
        details: { identifiers: Object.keys(req).filter((k) => k !== 'type') },
      });
    }
    if (!SELLABLE_STATUSES.has(v.status)) {
      throw new AapError('VEHICLE_UNAVAILABLE', 'The vehicle is no longer available; recompute your search results.', {
        details: { vehicle_id: v.vehicle_id, status: v.status },
      });
    }
    return v;
  }

  private submitLead(req: Payload, client: string): Payload {
    const customer = req.customer as Payload;
    const consent = req.consent as Payload | undefined;
    if (!consent) {
      throw new AapError('CONTACT_CONSENT_REQUIRED', "Customer info present but no ConsentGrant. Provide a 'consent' block with scope ['lead_submission'].", {
        details: { missing: 'consent', expected_scope: 'lead_submission' },
      });
    }
    const now = this.now();
    const scope = consent.scope as string[];
    const problems: string[] = [];
    if (scope.length !== 1 || scope[0] !== 'lead_submission') problems.push('scope');
    if (Date.parse(String(consent.granted_at)) > now + 60_000) problems.push('granted_at');
    if (consent.expires_at !== undefined && Date.parse(String(consent.expires_at)) <= now) problems.push('expires_at');
    if (String(consent.consent_text).trim() === '') problems.push('consent_text');
    if (problems.length > 0) {
      throw new AapError('INVALID_CONSENT', 'The consent grant cannot be used: it is expired, not yet valid, empty or out of scope. Ask the customer to consent again.', {
        details: { fields: problems.map((p) => `/consent/${p}`) },
      });
    }
    const channels = consent.allowed_channels as string[];
    const preferred = customer.preferred_contact as string | undefined;
    if (preferred && preferred !== 'any' && !channels.includes(preferred)) {
      throw new AapError('CONTACT_CONSENT_REQUIRED', 'The preferred contact channel is not among the channels the customer consented to.', {
        details: { missing_channel: preferred },
      });
    }
    const voi = req.vehicle_of_interest as Payload | undefined;
    const tradeIn = req.trade_in as Payload | undefined;
    const badVoi = voi?.condition !== undefined && !['new', 'used', 'cpo'].includes(String(voi.condition));
    const badTrade = tradeIn?.condition !== undefined && !['excellent', 'good', 'fair', 'poor'].includes(String(tradeIn.condition));
    if (badVoi || badTrade) {
      throw new AapError('INVALID_CONDITION', 'A condition value is from the wrong vocabulary for its context.', { details: {
          errors: [
            ...(badVoi ? [{ instanceLocation: '/vehicle_of_interest/condition', keyword: 'enum', error: 'must be one of new, used, cpo' }] : []),
            ...(badTrade ? [{ instanceLocation: '/trade_in/condition', keyword: 'enum', error: 'must be one of excellent, good, fair, poor' }] : []),
          ],
        },
      });
    }
    const appointment = req.appointment as Payload | undefined;
    if (appointment?.appointment_type === 'test_drive' && !voi) {
      throw new AapError('MISSING_REQUIRED_FIELD', 'A test drive needs a vehicle_of_interest.', {
        details: { errors: [{ instanceLocation: '/vehicle_of_interest', keyword: 'required', error: 'is required for a test_drive appointment' }] },
      });
    }
    if (voi && (voi.vin !== undefined || voi.stock !== undefined || voi.vehicle_id !== undefined)) {
      const v = this.findVehicle(voi);
      if (!v) throw new AapError('VEHICLE_NOT_FOUND', 'vehicle_of_interest matches no listing.', { details: { field: '/vehicle_of_interest' } });
      if (!SELLABLE_STATUSES.has(v.status)) {
        throw new AapError('VEHICLE_UNAVAILABLE', 'vehicle_of_interest is no longer available.', { details: { vehicle_id: v.vehicle_id, status: v.status } });
      }
    }

    const key = typeof req.idempotency_key === 'string' ? `${client}\u0000${req.idempotency_key}` : undefined;
    const bodyHash = createHash('sha256').update(canonicalJson(req)).digest('hex');
    const previous = key ? this.leads.get(key) : undefined;
    if (previous) {
      if (previous.bodyHash !== bodyHash) {
        throw new AapError('IDEMPOTENCY_CONFLICT', 'This idempotency_key was already used with a different request. Use a fresh key for a new lead.', {
        details: { original_lead_id: previous.leadId },
      });
      }
      return { lead_id: previous.leadId, status: 'duplicate' };
    }
    // The CRM hiccups on the second new lead of every run (so a short demo shows a retryable
    // fault and its polite retry), then at random with the configured rate.
    this.newLeads += 1;
    if (this.newLeads === 2 || this.options.rng.chance(this.options.leadFaultRate)) {
      throw new AapError('INTERNAL_ERROR', 'The lead could not be stored: the CRM did not answer. Retry with backoff.', {
        details: { dependency: 'crm' },
        retryable: true,
      });
    }
    if (appointment) {
      const at = Date.parse(String(appointment.appointment_at));
      if (at < now) {
        throw new AapError('APPOINTMENT_TIME_UNAVAILABLE', 'The requested appointment time has passed and no alternative can be offered.', {
        details: { field: '/appointment/appointment_at' },
      });
      }
    }
    this.leadSeq += 1;
    const leadId = `lead_demo_${String(this.leadSeq).padStart(5, '0')}`;
    if (key) this.leads.set(key, { bodyHash, leadId });
    return {
      lead_id: leadId,
      status: 'received',
      ...(appointment ? { appointment: { appointment_id: `appt_${leadId.slice(5)}`, status: 'confirmed' } } : {}),
    };
  }
}

function dealerInformation(): Payload {
  return {
    name: DEALER.name,
    welcome_message: `Welcome to ${DEALER.name}. Ask about any vehicle in stock or book a test drive.`,
    rooftops: [{ name: DEALER.rooftop, address: DEALER.address, hours: DEALER.hours, phone: DEALER.phone, email: DEALER.email, website: DEALER.website }],
  };
}

function facets(vehicles: DemoVehicle[]): Payload {
  const count = (field: keyof DemoVehicle) => {
    const m = new Map<string | number, number>();
    for (const v of vehicles) m.set(v[field], (m.get(v[field]) ?? 0) + 1);
    return [...m].map(([value, n]) => ({ value, count: n }));
  };
  const prices = vehicles.map((v) => v.price);
  return {
    makes: count('make'),
    models: count('model'),
    years: count('year'),
    conditions: count('condition'),
    statuses: count('status'),
    price_range: prices.length ? { min: Math.min(...prices), max: Math.max(...prices) } : null,
  };
}

function isObject(x: unknown): x is Payload {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** JSON with object keys sorted, so two equal bodies hash the same whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
