/**
 * The demo, end to end (issue 7): both dealer agents instrumented with aap-triage exactly as a
 * user would (`createTriage` from the package's main entry; `app.use(triage.middleware())` on the
 * AAP Express app, `triage.wrap(listener)` on the DMC-12 server), both writing one audit
 * database; the buyer simulator against them; then shutdown (flush) and analysis with the
 * triage functions the CLI and TUI use.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { isPostgresUrl, loadPseudonymizer, resolveDbPath, storeLabel, truncatePostgresStore } from '../audit/index.js';
import { createTriage } from '../instrument/index.js';
import type { Triage } from '../instrument/index.js';
import { personas, type Persona } from './buyers/personas.js';
import { AAP_EXTENSION_URI, DEMO_DEFAULTS } from './constants.js';
import { startDealers, type DealersOptions, type RunningDealers } from './dealers.js';
import { runSimulation, type BuyerReport, type SimulationOptions } from './simulator.js';

/** Options of {@link runDemoTraffic}. */
export interface DemoTrafficOptions {
  /** Simulated traffic, ms. @default 60_000 */
  durationMs?: number;
  /** Audit database; an existing file (and its -wal/-shm) is removed first. @default ./aap-triage-demo.db */
  dbPath?: string;
  /** PRNG seed (API keys, which buyer hits which fault). @default 12 */
  seed?: number;
  /** Keep the dealer agents running after the traffic (caller closes them with `stop`). */
  keepServing?: boolean;
  /** Progress callback, forwarded to the simulator. */
  onProgress?: SimulationOptions['onProgress'];
  /** Told what happens ("removed old demo database …"). */
  onNotice?: (line: string) => void;
  /** Dealer tuning for tests (fault rates). */
  tuning?: DealersOptions['tuning'];
  signal?: AbortSignal;
  /** Where `AAP_TRIAGE_KEY` is read (the CLI's environment). @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** What a demo run produced. */
export interface DemoTraffic {
  /** Absolute path of the audit database. */
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

/** Removes an old demo database and its companions (not its key file). Returns true if one existed. */
export async function removeOldDatabase(dbPath: string): Promise<boolean> {
  // A PostgreSQL demo store keeps its tables; only its rows go.
  if (isPostgresUrl(dbPath)) return truncatePostgresStore(dbPath);
  // Health files are one per writing service and process: `<db>.health.<service>.<pid>.json`.
  let health: string[] = [];
  try {
    health = readdirSync(dirname(dbPath))
      .filter((f) => f.startsWith(`${basename(dbPath)}.health.`) && f.endsWith('.json'))
      .map((f) => join(dirname(dbPath), f));
  } catch {
    // no folder yet: nothing to remove
  }
  const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`, ...health];
  const existed = existsSync(dbPath);
  for (const f of files) rmSync(f, { force: true });
  return existed;
}

/**
 * Runs the dealers and the simulator; resolves once the traffic is over and (unless
 * `keepServing`) the servers are closed and the audit store flushed.
 */
export async function runDemoTraffic(options: DemoTrafficOptions = {}): Promise<DemoTraffic> {
  const dbPath = resolveDbPath(options.dbPath ?? DEMO_DEFAULTS.dbPath);
  const seed = options.seed ?? DEMO_DEFAULTS.seed;
  const durationMs = options.durationMs ?? DEMO_DEFAULTS.durationMs;
  if (await removeOldDatabase(dbPath)) options.onNotice?.(`removed the old demo database ${storeLabel(dbPath)}`);

  // What a dealer's own OpenTelemetry setup provides: spans with real trace ids (no exporter).
  const tracerProvider = new NodeTracerProvider();
  // One key for both services, created quietly beside the database (<db>.key, mode 0600).
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const pseudonymizer = loadPseudonymizer({ dbPath, create: true, logger: quiet, ...(options.env ? { env: options.env } : {}) });
  const common = { auditDb: dbPath, tracerProvider, pseudonymizer, logger: false as const, ...(options.keepServing ? { trafficFlushIntervalMs: DEMO_DEFAULTS.trafficFlushIntervalMs } : {}) };
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
