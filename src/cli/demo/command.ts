/**
 * `aap-triage demo`: removes an old demo database (saying so), starts both dealer agents on
 * loopback ports, runs the buyer simulator with a progress bar on stderr, flushes the audit
 * store, then opens the terminal UI on the database (in a terminal) or prints the storms, the
 * incident draft for the worst one and the commands to explore further (otherwise).
 * `--keep-serving` leaves the dealer agents running until Ctrl+C and prints their URLs.
 * The operator's side of the demo: the dealers and buyers (src/demo) use the package's public
 * entry points only, as a user's would (DESIGN §3); the store is prepared, read and shown here.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { personas } from '../../demo/buyers/personas.js';
import { AAP_EXTENSION_URI, A2A_VERSION, DEMO_DEFAULTS } from '../../demo/constants.js';
import { createProgressBar } from '../../demo/progress.js';
import { runDemoTraffic, type DemoTraffic } from '../../demo/run-demo.js';
import { computeStats, searchErrors } from '../../triage/index.js';
import { AuditStoreError, isPostgresUrl, loadPseudonymizer, openStoreReader, resolveDbPath, storeLabel, truncatePostgresStore } from '../../triage/store.js';
import { analyseDemo, clientLabel, renderDemoReport, shellQuote, type DemoAnalysis } from './report.js';

/** Options of {@link runDemoCommand}. */
export interface DemoCommandOptions {
  /** Traffic duration, ms. @default 60_000 */
  durationMs?: number;
  /** Database path as typed. @default ./aap-triage-demo.db */
  db?: string;
  /**
   * After the report (or when the terminal UI closes), leave both dealer agents listening on
   * their loopback ports, print their URLs and sample `curl` commands, and wait for SIGINT or
   * SIGTERM; then stop them and flush the audit store (calls made meanwhile are recorded).
   * @default false
   */
  keepServing?: boolean;
  /**
   * How the user starts aap-triage, for the printed hints (`invocationOf`, src/cli/invocation.ts).
   * @default 'aap-triage'
   */
  invocation?: string;
  /**
   * Seed of the simulation's PRNG: the buyers' API keys (so their `client` pseudonyms) and which
   * calls hit the injected faults. The same seed gives the same scenario; timings still vary.
   * Non-negative integer. @default 12
   */
  seed?: number;
}

/** Streams and environment of the command. */
export interface DemoIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean; columns?: number };
  stdin: { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Exit codes (the CLI's): 0 ok, 2 usage, 3 environment. */
const EXIT = { OK: 0, USAGE: 2, ENV: 3 } as const;

/** All time, for the questions about a whole database. */
const ALL_TIME = { since: 0, until: Number.MAX_SAFE_INTEGER } as const;

/**
 * Refuses to delete a file that is not a demo database: only a missing file, an empty one, or an
 * audit database whose rows all come from the demo's services may be replaced. Asks the store
 * through the triage functions, as a user would (`searchErrors` with a `-service:` query over all
 * time; `computeStats` for the traffic counters, which carry no query).
 * Returns a one-line reason when it must not be removed, or null.
 * @throws {AuditStoreError} `unreadable` when a PostgreSQL server cannot be reached or read (a
 *   problem of the environment, not of the database named).
 */
export async function notADemoDatabase(dbPath: string): Promise<string | null> {
  if (!isPostgresUrl(dbPath) && !existsSync(dbPath)) return null;
  const label = storeLabel(dbPath);
  const demoServices = `${DEMO_DEFAULTS.aapService},${DEMO_DEFAULTS.dmc12Service}`;
  try {
    const db = await openStoreReader(dbPath);
    try {
      const other = (await searchErrors(db, `-service:${demoServices}`, ALL_TIME, { limit: 1, skipTotal: true })).rows[0];
      if (other) return `${label} holds audit rows of service '${other.service}', not only the demo's`;
      // Traffic counters cannot be asked per service; a store with calls but not one demo error
      // (every demo run records some within its first second) is someone else's.
      const demoError = (await searchErrors(db, `service:${demoServices}`, ALL_TIME, { limit: 1, skipTotal: true })).rows[0];
      if (!demoError && (await computeStats(db, null, ALL_TIME)).traffic !== null) return `${label} holds traffic counters but no demo errors`;
      return null;
    } finally {
      await db.close();
    }
  } catch (err) {
    // A PostgreSQL database without the audit schema yet is a fine place for a demo.
    if (err instanceof AuditStoreError && err.kind === 'missing') return null;
    if (err instanceof AuditStoreError && err.kind === 'unreadable' && isPostgresUrl(dbPath)) throw err;
    return `${label} exists and is not a demo audit database (${(err as Error).message.split('\n')[0]})`;
  }
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

/** Runs the demo command and resolves to its exit code. */
export async function runDemoCommand(options: DemoCommandOptions, io: DemoIo): Promise<number> {
  const durationMs = options.durationMs ?? DEMO_DEFAULTS.durationMs;
  const invocation = options.invocation ?? 'aap-triage';
  const seed = options.seed ?? DEMO_DEFAULTS.seed;
  const typed = options.db ?? DEMO_DEFAULTS.dbPath;
  const dbPath = resolveDbPath(typed);
  // What the demo prints: never a PostgreSQL password.
  const dbLabel = isPostgresUrl(typed) ? storeLabel(typed) : typed;
  let refuse: string | null;
  try {
    refuse = await notADemoDatabase(dbPath);
  } catch (err) {
    io.stderr.write(`aap-triage: ${(err as Error).message.split('\n')[0]}\n`);
    return EXIT.ENV;
  }
  if (refuse) {
    io.stderr.write(`aap-triage: ${refuse} — the demo replaces its database; pass another --db\n`);
    return EXIT.USAGE;
  }
  const note = (line: string) => io.stderr.write(`${line}\n`);

  // Ctrl+C during the traffic ends it early (the report still follows); a second one quits.
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let run: DemoTraffic | undefined;
  try {
    const buyers = personas(seed).length;
    note(`aap-triage demo: Demo Motors dealer agents (AAP on @a2a-js/sdk, DMC-12) and ${buyers} buyer agents, ${Math.round(durationMs / 1000)} s; audit database ${dbLabel}`);
    const bar = createProgressBar(io.stderr, 'traffic');
    try {
      if (await removeOldDatabase(dbPath)) note(`removed the old demo database ${storeLabel(dbPath)}`);
      // One key for both services, created quietly beside the database (<db>.key, mode 0600).
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      const pseudonymizer = loadPseudonymizer({ dbPath, create: true, logger: quiet, env: io.env });
      run = await runDemoTraffic({
        durationMs,
        dbPath,
        seed,
        pseudonymizer,
        keepServing: options.keepServing ?? false,
        signal: abort.signal,
        onProgress: (f, t) => bar.update(f, `${t.requests} calls, ${t.errors} errors, ${t.retries} retries`),
      });
    } catch (err) {
      bar.done();
      const e = err as NodeJS.ErrnoException;
      note(`aap-triage: the demo could not run: ${String(e.message).split('\n')[0]}${e.code ? ` (${e.code})` : ''} — check that loopback sockets and the native SQLite module work (aap-triage doctor)`);
      return EXIT.ENV;
    }
    bar.done();
    // With the servers still up, the traffic counters reach the store on their next periodic flush.
    if (options.keepServing) await new Promise((r) => setTimeout(r, DEMO_DEFAULTS.trafficFlushIntervalMs + DEMO_DEFAULTS.trafficFlushSlackMs));
    const window = { since: run.startedAt - DEMO_DEFAULTS.analysisMarginMs, until: Date.now() + DEMO_DEFAULTS.analysisMarginMs };
    const analysis = await analyseDemo(run.dbPath, run.roster, window);
    const label = relativeLabel(dbLabel, dbPath);
    const interactive = await isInteractive(io);

    if (interactive) {
      note(stormLines(analysis).join('\n'));
      if (options.keepServing) note(servingText(run, isPostgresUrl(dbPath) ? label : dbPath, invocation));
      const { runTui } = await import('../../tui/index.js');
      let pseudonymizer = null;
      try {
        pseudonymizer = loadPseudonymizer({ dbPath, create: false, env: io.env });
      } catch {
        pseudonymizer = null;
      }
      process.off('SIGINT', onSignal);
      const code = await runTui({ dbPath, since: '1h', view: 'storms', pseudonymizer });
      process.on('SIGINT', onSignal);
      if (code !== EXIT.OK) return code;
    } else {
      io.stdout.write(renderDemoReport({ dbLabel: label, durationMs: run.endedAt - run.startedAt, aapBaseUrl: run.aapBaseUrl, dmc12RpcUrl: run.dmc12RpcUrl, buyers: run.buyers, invocation, hintDb: isPostgresUrl(dbPath) ? label : dbPath }, analysis));
      if (options.keepServing) io.stdout.write(`${servingText(run, isPostgresUrl(dbPath) ? label : dbPath, invocation)}\n`);
    }
    if (options.keepServing && !abort.signal.aborted) {
      note('Dealer agents keep serving; press Ctrl+C to stop them.');
      await new Promise<void>((r) => abort.signal.addEventListener('abort', () => r(), { once: true }));
      note('stopping the dealer agents and flushing the audit store…');
    }
    return EXIT.OK;
  } finally {
    await run?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function isInteractive(io: DemoIo): Promise<boolean> {
  const { interactiveProblem } = await import('../../tui/interactive.js');
  return interactiveProblem(io.stdin, io.stdout, io.env) === null;
}

function relativeLabel(typed: string, abs: string): string {
  if (isPostgresUrl(abs)) return typed;
  const rel = relative(process.cwd(), abs);
  return typed.startsWith('/') || rel.startsWith('..') ? abs : rel.startsWith('.') ? rel : `./${rel}`;
}

function stormLines(a: DemoAnalysis): string[] {
  const lines = [`${a.errors} errors recorded; ${a.storms.length} retry storms found:`];
  for (const { episode: e, buyer } of a.storms) lines.push(`  ${e.id}  ${clientLabel(e.client, buyer)}  ${e.codes.map((c) => c.code).join(', ')}`);
  if (a.dealerEpisodes.length > 0) lines.push(`${a.dealerEpisodes.length} dealer-side episode${a.dealerEpisodes.length === 1 ? '' : 's'} (retries of retryable dealer faults, as the policy allows).`);
  lines.push(a.healthyFlagged.length === 0 ? 'Healthy buyers flagged: none. Opening the terminal UI on the Storms view (q quits)…' : `Healthy buyers flagged: ${a.healthyFlagged.map((p) => p.name).join(', ')}`);
  return lines;
}

function servingText(run: DemoTraffic, dbLabel: string, invocation: string): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'curl-1', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: { make: ['Toyota'] } }, mediaType: 'application/json' }] } },
  });
  const key = run.roster.find((p) => p.name === 'careful-carla')?.apiKey ?? 'demo';
  return [
    '',
    'Dealer agents (loopback, until Ctrl+C):',
    `  AAP (A2A ${A2A_VERSION})  agent card ${run.aapBaseUrl}/.well-known/agent-card.json   JSON-RPC ${run.aapBaseUrl}/a2a`,
    `  DMC-12           JSON-RPC ${run.dmc12RpcUrl}   (tools/call; bearer token required)`,
    '',
    'Try:',
    `  curl -s ${run.aapBaseUrl}/a2a -H 'content-type: application/json' -H 'A2A-Version: ${A2A_VERSION}' \\`,
    `    -H 'A2A-Extensions: ${AAP_EXTENSION_URI}' -d '${body}'`,
    `  curl -s ${run.dmc12RpcUrl} -H 'content-type: application/json' -H 'authorization: Bearer ${key}' \\`,
    `    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_vehicle","arguments":{"vin":"1HGCY2F52RA999999"}}}'`,
    `  ${invocation} tail --db ${shellQuote(dbLabel)}      (watch the errors your calls cause)`,
  ].join('\n');
}
