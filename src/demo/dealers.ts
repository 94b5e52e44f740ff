/**
 * Starts the two demo dealer agents on loopback ports the OS picks: the AAP agent (Express +
 * `@a2a-js/sdk`) and the DMC-12 agent (`node:http`). The caller passes the aap-triage hooks it
 * wants mounted (`triage.middleware()` and `triage.wrap`), so the servers are instrumented
 * exactly as a user would instrument them.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { AapDealer } from './aap/dealer.js';
import { createAapApp, type Middleware } from './aap/server.js';
import type { ScenarioState } from './buyers/context.js';
import { HELD_VIN } from './buyers/healthy.js';
import type { Persona } from './buyers/personas.js';
import { DEALER_DEFAULTS } from './constants.js';
import { Dmc12Dealer } from './dmc12/dealer.js';
import { createDmc12Listener } from './dmc12/server.js';
import { closeServer, listenLoopback } from './http-util.js';
import { demoInventory } from './inventory.js';
import { createRng } from './rng.js';
import { condenseSdkErrors } from './sdk-log.js';

/** Options of {@link startDealers}. */
export interface DealersOptions {
  personas: Persona[];
  seed: number;
  /** Mounted first on the AAP Express app (e.g. `triage.middleware()`). */
  aapMiddleware?: Middleware;
  /** Wraps the DMC-12 listener (e.g. `(l) => triage.wrap(l)`). */
  wrapDmc12?: (listener: RequestListener) => RequestListener;
  /** Overrides of DEALER_DEFAULTS (tests). */
  tuning?: Partial<{ leadFaultRate: number; handoffFaultRate: number }>;
}

/** Two running dealer agents. */
export interface RunningDealers {
  /** AAP base URL; the agent card is at `${aapBaseUrl}/.well-known/agent-card.json`, JSON-RPC at `/a2a`. */
  aapBaseUrl: string;
  /** DMC-12 JSON-RPC endpoint (`…/rpc`). */
  dmc12RpcUrl: string;
  /** Scenario facts for the simulator (stale quote and hold, revoked token). */
  scenario: Omit<ScenarioState, 'held'>;
  /** Stops both servers. */
  close(): Promise<void>;
}

/** Starts both dealer agents on 127.0.0.1 (port 0). */
export async function startDealers(options: DealersOptions): Promise<RunningDealers> {
  const inventory = demoInventory();
  const aapDealer = new AapDealer({
    inventory,
    rng: createRng(options.seed),
    rateLimit: DEALER_DEFAULTS.aapRateLimit,
    minRetryAfterMs: DEALER_DEFAULTS.aapMinRetryAfterMs,
    leadFaultRate: options.tuning?.leadFaultRate ?? DEALER_DEFAULTS.leadFaultRate,
  });
  const dmcDealer = new Dmc12Dealer({
    inventory,
    rng: createRng(options.seed + 1),
    rateLimit: DEALER_DEFAULTS.dmc12RateLimit,
    ttlMs: DEALER_DEFAULTS.dmc12TtlMs,
    handoffFaultRate: options.tuning?.handoffFaultRate ?? DEALER_DEFAULTS.handoffFaultRate,
  });
  const sofia = options.personas.find((p) => p.name === 'steady-sofia');
  const staleVin = inventory.find((v) => v.status === 'available' && v.vin !== HELD_VIN)?.vin ?? HELD_VIN;
  const stale = dmcDealer.seedStale(sofia?.apiKey ?? 'nobody', staleVin, 45 * 60_000);

  // The SDK's own error lines come out as one line each, without stack traces.
  const restoreConsole = condenseSdkErrors();
  const aap = createAapApp(aapDealer, options.aapMiddleware);
  const aapServer: Server = createServer(aap.app);
  const aapBaseUrl = await listenLoopback(aapServer);
  aap.setBaseUrl(aapBaseUrl);

  const listener = createDmc12Listener(dmcDealer, new Set(options.personas.map((p) => p.apiKey)));
  const dmcServer = createServer(options.wrapDmc12 ? options.wrapDmc12(listener) : listener);
  const dmcBase = await listenLoopback(dmcServer);

  return {
    aapBaseUrl,
    dmc12RpcUrl: `${dmcBase}/rpc`,
    scenario: { stale, revokedToken: `demo-sk-steady-sofia-revoked-${options.seed}` },
    async close() {
      await Promise.all([closeServer(aapServer), closeServer(dmcServer)]);
      restoreConsole();
    },
  };
}
