/**
 * The buyer-agent simulator: runs every persona against the two dealer agents for a fixed
 * duration and reports progress. Well-behaved and misbehaving buyers run concurrently, each as
 * one sequential flow (a buyer never has two calls in flight).
 */
import { AapBuyer } from './buyers/aap-buyer.js';
import { BuyerContext, type BuyerStats, type ScenarioState } from './buyers/context.js';
import { Dmc12Buyer } from './buyers/dmc12-buyer.js';
import { carefulCarla, holdingHana, patientPete, steadySofia } from './buyers/healthy.js';
import { hammeringHarry, legacyLarry, sloppySam, stubbornStella } from './buyers/misbehaving.js';
import type { Persona } from './buyers/personas.js';
import { createRng } from './rng.js';

/** Options of {@link runSimulation}. */
export interface SimulationOptions {
  /** AAP dealer base URL (agent card at `/.well-known/agent-card.json`). */
  aapBaseUrl: string;
  /** DMC-12 JSON-RPC endpoint. */
  dmc12RpcUrl: string;
  personas: Persona[];
  /** Traffic duration, ms. */
  durationMs: number;
  seed: number;
  /** Scenario facts prepared by the dealer side (stale quote/hold, revoked token). */
  scenario: Omit<ScenarioState, 'held'>;
  /** Called about every 250 ms with the elapsed fraction in [0, 1] and totals so far. */
  onProgress?: (fraction: number, totals: BuyerStats) => void;
  signal?: AbortSignal;
}

/** Per-buyer result. */
export interface BuyerReport {
  persona: Persona;
  stats: BuyerStats;
  /** Set when the buyer's flow threw (it should not). */
  failure?: string;
}

type Flow = (ctx: BuyerContext) => Promise<void>;

/** Runs the simulation; resolves when every buyer has stopped (shortly after `durationMs`). */
export async function runSimulation(options: SimulationOptions): Promise<BuyerReport[]> {
  const started = Date.now();
  const deadline = started + options.durationMs;
  const abort = new AbortController();
  options.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  // At the deadline every buyer stops: waits inside withRetries end, calls in flight are cancelled.
  const stop = setTimeout(() => abort.abort(), options.durationMs);
  let publishHeld: (v: { vin: string; token: string } | null) => void = () => undefined;
  const held = new Promise<{ vin: string; token: string } | null>((resolve) => (publishHeld = resolve));
  const scenario: ScenarioState = { ...options.scenario, held };
  const dmc = (ctx: BuyerContext) => new Dmc12Buyer(ctx, options.dmc12RpcUrl, ctx.persona.apiKey);
  const aap = (ctx: BuyerContext, activate = true) => AapBuyer.connect(ctx, options.aapBaseUrl, { apiKey: ctx.persona.apiKey, activate });

  const flows: Record<string, Flow> = {
    'careful-carla': async (ctx) => carefulCarla(ctx, await aap(ctx)),
    'patient-pete': async (ctx) => patientPete(ctx, await aap(ctx)),
    'steady-sofia': (ctx) => steadySofia(ctx, dmc(ctx)),
    'holding-hana': (ctx) => holdingHana(ctx, dmc(ctx), publishHeld),
    'sloppy-sam': async (ctx) => sloppySam(ctx, await aap(ctx)),
    'hammering-harry': async (ctx) => hammeringHarry(ctx, await aap(ctx)),
    'stubborn-stella': (ctx) => stubbornStella(ctx, dmc(ctx)),
    'legacy-larry': async (ctx) => legacyLarry(ctx, await aap(ctx, false)),
  };

  const contexts = options.personas.map((p, i) => new BuyerContext(p, createRng(options.seed * 1000 + i), deadline, abort.signal, scenario));
  const totals = (): BuyerStats => {
    const t: BuyerStats = { requests: 0, errors: 0, retries: 0, codes: {} };
    for (const c of contexts) {
      t.requests += c.stats.requests;
      t.errors += c.stats.errors;
      t.retries += c.stats.retries;
    }
    return t;
  };
  const ticker = options.onProgress
    ? setInterval(() => options.onProgress?.(Math.min(1, (Date.now() - started) / options.durationMs), totals()), 250)
    : undefined;
  // If holding-hana is not in the roster (or fails), nobody waits for her hold forever.
  const heldFallback = setTimeout(() => publishHeld(null), Math.min(5000, options.durationMs));

  const reports = await Promise.all(
    contexts.map(async (ctx): Promise<BuyerReport> => {
      const make = flows[ctx.persona.name];
      try {
        if (make) await make(ctx);
        return { persona: ctx.persona, stats: ctx.stats };
      } catch (err) {
        if (ctx.persona.name === 'holding-hana') publishHeld(null);
        return { persona: ctx.persona, stats: ctx.stats, failure: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  clearTimeout(heldFallback);
  clearTimeout(stop);
  if (ticker) clearInterval(ticker);
  options.onProgress?.(1, totals());
  return reports;
}
