/**
 * The misbehaving buyers. They use `aap-triage/client`'s adapter but bypass its retry policy on
 * purpose (`once`, no `withRetries`): each repeats one identical request far faster than any
 * backoff allows, whatever the answer says, so the storm detector (DESIGN §6: > 20 % retries with ≥ 10 retries a
 * minute, or flagged retries that repeat) finds each of them within a 15 s run.
 */
import type { AapBuyer } from './aap-buyer.js';
import type { BuyerContext } from './context.js';
import type { Dmc12Buyer } from './dmc12-buyer.js';
import { HELD_VIN } from './healthy.js';
import type { CallResult } from './outcome.js';

async function repeat(ctx: BuyerContext, minMs: number, maxMs: number, call: () => Promise<CallResult>): Promise<void> {
  for (let i = 0; ctx.live() && i < 100_000; i++) {
    await call();
    if (i > 0) ctx.countRepeat();
    if (!(await ctx.pause(minMs, maxMs))) return;
  }
}

/** sloppy-sam: an inventory.search with five schema errors, resent unchanged (retried_non_retryable). */
export async function sloppySam(ctx: BuyerContext, aap: AapBuyer): Promise<void> {
  const bad = {
    type: 'inventory.search.request',
    filters: { year_min: '2020', colour: ['red'], price_max: -5000, condition: ['brand-new'] },
    pagination: { limit: 500 },
  };
  await repeat(ctx, 200, 300, () => aap.once(bad));
}

/** hammering-harry: the same search every ~80 ms, straight through RATE_LIMITED (ignored_retry_after, no_backoff). */
export async function hammeringHarry(ctx: BuyerContext, aap: AapBuyer): Promise<void> {
  const search = { type: 'inventory.search.request', filters: { make: ['Toyota'], condition: ['new'] } };
  await repeat(ctx, 60, 100, () => aap.once(search));
}

/**
 * stubborn-stella: keeps reserving a VIN another buyer holds (RESERVATION_CONFLICT retried), a
 * little faster than the DMC-12 rate limit allows, so RATE_LIMITED answers are mixed in.
 */
export async function stubbornStella(ctx: BuyerContext, dmc: Dmc12Buyer): Promise<void> {
  await ctx.scenario.held;
  const quote = await dmc.once('request_quote', { vin: HELD_VIN });
  if (!quote.ok) return;
  const quoteId = String(quote.data.quote_id);
  await repeat(ctx, 80, 150, () => dmc.once('create_reservation', { quote_id: quoteId }));
}

/** legacy-larry: never activates the AAP extension, so every call is -32008, and he retries it. */
export async function legacyLarry(ctx: BuyerContext, aap: AapBuyer): Promise<void> {
  const search = { type: 'inventory.search.request', filters: { body: ['suv'] } };
  await repeat(ctx, 300, 400, () => aap.once(search));
}
