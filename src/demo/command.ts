/**
 * `aap-triage demo`: removes an old demo database (saying so), starts both dealer agents on
 * loopback ports, runs the buyer simulator with a progress bar on stderr, flushes the audit
 * store, then opens the terminal UI on the database (in a terminal) or prints the storms, the
 * incident draft for the worst one and the commands to explore further (otherwise).
 * `--keep-serving` leaves the dealer agents running until Ctrl+C and prints their URLs.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { openAuditReader } from '../audit/index.js';
import { AAP_EXTENSION_URI, A2A_VERSION, DEMO_DEFAULTS } from './constants.js';
import { createProgressBar } from './progress.js';
import { analyseDemo, renderDemoReport, shellQuote, type DemoAnalysis } from './report.js';
import { runDemoTraffic, type DemoTraffic } from './run-demo.js';

/** Options of {@link runDemoCommand}. */
export interface DemoCommandOptions {
  /** Traffic duration, ms. @default 60_000 */
  durationMs?: number;
  /** Database path as typed. @default ./aap-triage-demo.db */
  db?: string;
  keepServing?: boolean;
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

/**
 * Refuses to delete a file that is not a demo database: only a missing file, an empty one, or an
 * audit database whose rows all come from the demo's services may be replaced.
 * Returns a one-line reason when it must not be removed.
 */
export function notADemoDatabase(dbPath: string): string | null {
  if (!existsSync(dbPath)) return null;
  try {
    const db = openAuditReader(dbPath);
    try {
      const other = db
        .prepare('SELECT service FROM error_events WHERE service NOT IN (?, ?) UNION SELECT service FROM traffic WHERE service NOT IN (?, ?) LIMIT 1')
        .pluck()
        .get(DEMO_DEFAULTS.aapService, DEMO_DEFAULTS.dmc12Service, DEMO_DEFAULTS.aapService, DEMO_DEFAULTS.dmc12Service) as string | undefined;
      return other === undefined ? null : `${dbPath} holds audit rows of service '${other}', not only the demo's`;
    } finally {
      db.close();
    }
  } catch (err) {
    return `${dbPath} exists and is not a demo audit database (${(err as Error).message.split('\n')[0]})`;
  }
}

/** Runs the demo command and resolves to its exit code. */
export async function runDemoCommand(options: DemoCommandOptions, io: DemoIo): Promise<number> {
  const durationMs = options.durationMs ?? DEMO_DEFAULTS.durationMs;
  const dbLabel = options.db ?? DEMO_DEFAULTS.dbPath;
  const dbPath = resolve(dbLabel);
  const refuse = notADemoDatabase(dbPath);
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
    note(`aap-triage demo: Demo Motors dealer agents (AAP on @a2a-js/sdk, DMC-12) and 8 buyer agents, ${Math.round(durationMs / 1000)} s; audit database ${dbLabel}`);
    const bar = createProgressBar(io.stderr, 'traffic');
    try {
      run = await runDemoTraffic({
        durationMs,
        dbPath,
        seed: options.seed ?? DEMO_DEFAULTS.seed,
        keepServing: options.keepServing ?? false,
        signal: abort.signal,
        onNotice: note,
        onProgress: (f, t) => bar.update(f, `${t.requests} calls, ${t.errors} errors, ${t.retries} retries`),
      });
    } catch (err) {
      bar.done();
      const e = err as NodeJS.ErrnoException;
      note(`aap-triage: the demo could not run: ${String(e.message).split('\n')[0]}${e.code ? ` (${e.code})` : ''} — check that loopback sockets and the native SQLite module work (aap-triage doctor)`);
      return EXIT.ENV;
    }
    bar.done();
    if (options.keepServing) await new Promise((r) => setTimeout(r, 2500)); // traffic counters flush every 2 s
    const window = { since: run.startedAt - 60_000, until: Date.now() + 60_000 };
    const analysis = analyseDemo(run.dbPath, run.roster, window);
    const label = relativeLabel(dbLabel, dbPath);
    const interactive = await isInteractive(io);

    if (interactive) {
      note(stormLines(analysis).join('\n'));
      if (options.keepServing) note(servingText(run, label));
      const { runTui } = await import('../tui/index.js');
      const { loadPseudonymizer } = await import('../audit/index.js');
      let pseudonymizer = null;
      try {
        pseudonymizer = loadPseudonymizer({ dbPath, create: false });
      } catch {
        pseudonymizer = null;
      }
      process.off('SIGINT', onSignal);
      const code = await runTui({ dbPath, since: '1h', view: 'storms', pseudonymizer });
      process.on('SIGINT', onSignal);
      if (code !== EXIT.OK) return code;
    } else {
      io.stdout.write(renderDemoReport({ dbLabel: label, durationMs: run.endedAt - run.startedAt, aapBaseUrl: run.aapBaseUrl, dmc12RpcUrl: run.dmc12RpcUrl, buyers: run.buyers }, analysis));
      if (options.keepServing) io.stdout.write(`${servingText(run, label)}\n`);
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
  const { interactiveProblem } = await import('../tui/interactive.js');
  return interactiveProblem(io.stdin, io.stdout, io.env) === null;
}

function relativeLabel(typed: string, abs: string): string {
  const rel = relative(process.cwd(), abs);
  return typed.startsWith('/') || rel.startsWith('..') ? abs : rel.startsWith('.') ? rel : `./${rel}`;
}

function stormLines(a: DemoAnalysis): string[] {
  const lines = [`${a.errors} errors recorded; ${a.storms.length} retry storms found:`];
  for (const { episode: e, buyer } of a.storms) lines.push(`  ${e.id}  client ${e.client}${buyer ? ` (buyer: ${buyer.name})` : ''}  ${e.codes.map((c) => c.code).join(', ')}`);
  lines.push(a.healthyFlagged.length === 0 ? 'Healthy buyers flagged: none. Opening the terminal UI on the Storms view (q quits)…' : `Healthy buyers flagged: ${a.healthyFlagged.map((p) => p.name).join(', ')}`);
  return lines;
}

function servingText(run: DemoTraffic, dbLabel: string): string {
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
    `  aap-triage tail --db ${shellQuote(dbLabel)}      (watch the errors your calls cause)`,
  ].join('\n');
}
