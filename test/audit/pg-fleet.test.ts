/**
 * A fleet on one PostgreSQL store (issue #19): four unmodified dealer-server processes, each
 * started as `node --import aap-triage/register` with AAP_TRIAGE_DB=postgres://… and the same
 * AAP_TRIAGE_KEY, write one store while a reader polls it through the TUI's own data source.
 * One buyer retries a non-retryable error against all four, round-robin: the store holds every
 * error any server answered, nothing failed or dropped, and the storm that spans the processes
 * is found as one episode. Imports dist/ (built when stale, as register.test.ts does).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPseudonymizer } from '../../src/audit/index.js';
import { openStoreReader, type AuditReader } from '../../src/audit/store.js';
import { findStorms, nextErrors, searchErrors, tailCursor } from '../../src/triage/index.js';
import { createTriageSource } from '../../src/tui/triage-source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';

const ROOT = join(import.meta.dirname, '..', '..');
// What `node --import aap-triage/register` loads (package.json exports).
const REGISTER = join(ROOT, 'dist', 'lib', 'register.js');
const FIXTURE = join(ROOT, 'test', 'instrument', 'fixtures', 'register-dmc12.mjs');
const KEY = 'fleet-test-shared-secret-0123456789abcdef';
const SERVERS = 4;
const STORM_CALLS = 240; // the buyer's failing call, round-robin over the four servers
const HEALTHY_CALLS = 80;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    newest = Math.max(newest, f.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

interface Server {
  proc: ChildProcess;
  port: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startServer(i: number, url: string): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', REGISTER, FIXTURE], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      AAP_TRIAGE_DB: url,
      AAP_TRIAGE_KEY: KEY,
      OTEL_SERVICE_NAME: `fleet-dealer-${i}`,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server ${i} did not start: ${err}`)), 20_000);
    const check = (): void => {
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      } else setTimeout(check, 20);
    };
    check();
  });
  return { proc, port, stderr: () => err, exited };
}

async function call(port: number, token: string, id: number, fail: boolean, vin = '1HGCM82633A004352'): Promise<string | null> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_reservation', arguments: { vin, fail } } }),
  });
  const body = (await res.json()) as { result?: { data?: { error_id?: string } } };
  return body.result?.data?.error_id ?? null;
}

let database: TestDatabase;
let servers: Server[] = [];
beforeAll(async () => {
  if (!existsSync(REGISTER) || newestMtime(join(ROOT, 'src')) > statSync(REGISTER).mtimeMs) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  }
  database = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
  await database?.drop();
});

describe('four dealer servers writing one PostgreSQL store', () => {
  it('stores every error of every process while a reader polls, and finds the cross-process storm as one episode', async () => {
    const started = Date.now();
    servers = await Promise.all(Array.from({ length: SERVERS }, (_, i) => startServer(i, database.url)));
    const answered: string[] = [];
    const stormRound = async (n: number) => {
      const ids = await Promise.all(servers.map((s, i) => call(s.port, 'storm-buyer-key', n + i, true)));
      answered.push(...ids.filter((id): id is string => id !== null));
    };
    // The writers create the schema with their first batch; then a reader can open it.
    await stormRound(0);
    let reader: AuditReader | undefined;
    for (let tries = 0; !reader; tries++) {
      try {
        reader = await openStoreReader(database.url);
      } catch (error) {
        if (tries > 200) throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const source = createTriageSource(reader);
        let polling = true;
    let polls = 0;
    const pollErrors: string[] = [];
    let cursor = tailCursor(started - 1);
    const polledIds = new Set<string>();
    const poller = (async () => {
      while (polling) {
        try {
          const window = { since: started - 60_000, until: Date.now() + 60_000 };
          await source.search('', window, 20, 0);
          await source.gaps(window);
          const next = await nextErrors(reader, '', cursor, { limit: 10_000 });
          cursor = next.cursor;
          for (const r of next.rows) polledIds.add(r.error_id);
          polls += 1;
        } catch (error) {
          pollErrors.push(String((error as Error).message));
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // The rest of the buyer's storm, four calls in parallel (one per server) at a time.
    for (let n = SERVERS; n < STORM_CALLS; n += SERVERS) await stormRound(n);
    // A healthy buyer: different calls, successes only (traffic counters, no error rows).
    for (let n = 0; n < HEALTHY_CALLS; n++) await call(servers[n % SERVERS]!.port, 'healthy-buyer-key', 10_000 + n, false, `1HGCM82633A${String(n).padStart(6, '0')}`);
    expect(answered).toHaveLength(STORM_CALLS);

    for (const s of servers) s.proc.kill('SIGTERM');
    const exits = await Promise.all(servers.map((s) => s.exited));
    polling = false;
    await poller;
    expect(exits.map((e) => e.signal)).toEqual(Array(SERVERS).fill('SIGTERM'));
    // Each error's own log line is expected; no line of the audit writer (no failure, no drop).
    for (const s of servers) expect(s.stderr()).not.toMatch(/"name":"aap-triage\.audit"|"msg":"audit: /);
    expect(pollErrors).toEqual([]);
    expect(polls).toBeGreaterThan(5);

    const window = { since: started - 60_000, until: Date.now() + 60_000 };
    const stored = await searchErrors(reader, '', window, { limit: 10_000 });
    expect(stored.total).toBe(STORM_CALLS);
    expect(new Set(stored.rows.map((r) => r.error_id))).toEqual(new Set(answered));
    expect(new Set(stored.rows.map((r) => r.service))).toEqual(new Set(Array.from({ length: SERVERS }, (_, i) => `fleet-dealer-${i}`)));
    // What the reader saw while polling is a subset of what was stored (no phantom rows).
    for (const id of polledIds) expect(answered).toContain(id);

    const stormClient = createPseudonymizer(KEY).client('storm-buyer-key');
    const storms = await findStorms(reader, window);
    expect(storms.map((s) => s.client)).toEqual([stormClient]);
    const [storm] = storms;
    expect(storm?.errors).toBe(STORM_CALLS);
    expect(storm?.flags.retried_non_retryable).toBeGreaterThan(0);
    await reader.close();
  }, 120_000);
});
