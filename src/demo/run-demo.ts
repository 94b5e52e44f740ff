/**
 * The demo, end to end (issue 7): both dealer agents instrumented with aap-triage exactly as a
 * user would (`createTriage` from the package's main entry; `app.use(triage.middleware())` on the
 * AAP Express app, `triage.wrap(listener)` on the DMC-12 server), both writing one audit
 * database; the buyer simulator against them; then shutdown (flush). Uses the package's public
 * entry points only (DESIGN §3); preparing the store and analysing it is the CLI's part
 * (src/cli/demo/command.ts).
 */
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createTriage } from '../instrument/index.js';
import type { Pseudonymizer, Triage } from '../instrument/index.js';
import { personas, type Persona } from './buyers/personas.js';
import { AAP_EXTENSION_URI, DEMO_DEFAULTS } from './constants.js';
import { startDealers, type DealersOptions, type RunningDealers } from './dealers.js';
import { runSimulation, type BuyerReport, type SimulationOptions } from './simulator.js';

/** Options of {@link runDemoTraffic}. */
export interface DemoTrafficOptions {
  /** Simulated traffic, ms. @default 60_000 */
  durationMs?: number;
  /** Audit database (a path or a PostgreSQL URL), written as it is: the caller clears an old one first. @default ./aap-triage-demo.db */
  dbPath?: string;
  /**
   * The pseudonymizer both services share (one key, so one buyer is one `client` in both).
   * @default each service loads the key beside `dbPath`, creating it when missing
   */
  pseudonymizer?: Pseudonymizer;
  /** PRNG seed (API keys, which buyer hits which fault). @default 12 */
  seed?: number;
  /** Keep the dealer agents running after the traffic (caller closes them with `stop`). */
  keepServing?: boolean;
  /** Progress callback, forwarded to the simulator. */
  onProgress?: SimulationOptions['onProgress'];
  /** Dealer tuning for tests (fault rates). */
  tuning?: DealersOptions['tuning'];
  signal?: AbortSignal;
}

/** What a demo run produced. */
export interface DemoTraffic {
  /** The audit database, as given. */
  dbPath: string;
  roster: Persona[];
  buyers: BuyerReport[];
  aapBaseUrl: string;
  dmc12RpcUrl: string;
  /** Epoch ms when traffic started and ended. */
  startedAt: number;
  endedAt: number;
  /**
   * Stops the dealer agents and flushes the audit store. Already done when `keepServing` was
   * false; with `keepServing`, call it when done (idempotent).
   */
  stop(): Promise<void>;
}

/**
 * Runs the dealers and the simulator; resolves once the traffic is over and (unless
 * `keepServing`) the servers are closed and the audit store flushed.
 */
export async function runDemoTraffic(options: DemoTrafficOptions = {}): Promise<DemoTraffic> {
  const dbPath = options.dbPath ?? DEMO_DEFAULTS.dbPath;
  const seed = options.seed ?? DEMO_DEFAULTS.seed;
  const durationMs = options.durationMs ?? DEMO_DEFAULTS.durationMs;

  // What a dealer's own OpenTelemetry setup provides: spans with real trace ids (no exporter).
  const tracerProvider = new NodeTracerProvider();
  const common = { auditDb: dbPath, tracerProvider, logger: false as const, ...(options.pseudonymizer ? { pseudonymizer: options.pseudonymizer } : {}), ...(options.keepServing ? { trafficFlushIntervalMs: DEMO_DEFAULTS.trafficFlushIntervalMs } : {}) };
  const aapTriage: Triage = createTriage({ ...common, serviceName: DEMO_DEFAULTS.aapService, requiredExtensionUri: AAP_EXTENSION_URI, aapForm: '2.0' });
  const dmcTriage: Triage = createTriage({ ...common, serviceName: DEMO_DEFAULTS.dmc12Service });

  const roster = personas(seed);
  let dealers: RunningDealers | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await dealers?.close();
      await Promise.all([aapTriage.shutdown(), dmcTriage.shutdown()]);
      await tracerProvider.shutdown();
    })());
  try {
    dealers = await startDealers({
      personas: roster,
      seed,
      aapMiddleware: aapTriage.middleware(),
      wrapDmc12: (listener) => dmcTriage.wrap(listener),
      ...(options.tuning ? { tuning: options.tuning } : {}),
    });
    const startedAt = Date.now();
    const buyers = await runSimulation({
      aapBaseUrl: dealers.aapBaseUrl,
      dmc12RpcUrl: dealers.dmc12RpcUrl,
      personas: roster,
      durationMs,
      seed,
      scenario: dealers.scenario,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const endedAt = Date.now();
    if (!options.keepServing) await stop();
    return { dbPath, roster, buyers, aapBaseUrl: dealers.aapBaseUrl, dmc12RpcUrl: dealers.dmc12RpcUrl, startedAt, endedAt, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
