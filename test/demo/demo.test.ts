/**
 * The demo end to end (issue 7): `aap-triage demo --duration 15s` on a temp database, run through
 * the real command (in-process, no terminal), then the database read back with the triage
 * functions and as raw bytes. Plus the dealer agents' protocol edges, against fresh servers.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader, sqliteReader } from '../../src/audit/index.js';
import { COMMANDS, CommandContext, buildProgram } from '../../src/cli/index.js';
import { buyerNamesByClient } from '../../src/cli/demo/buyer-names.js';
import { BAD_PHONE, fakeCustomer, personas } from '../../src/demo/buyers/personas.js';
import { AAP_EXTENSION_URI, DEMO_DEFAULTS } from '../../src/demo/constants.js';
import { startDealers, type RunningDealers } from '../../src/demo/dealers.js';
import { findStorms, type StormEpisode } from '../../src/triage/index.js';
import { captureSdkConsole } from '../helpers/sdk-console.js';

const DURATION = '15s';
const roster = personas(DEMO_DEFAULTS.seed);
const MISBEHAVING = roster.filter((p) => p.kind === 'misbehaving').map((p) => p.name).sort();
const HEALTHY = roster.filter((p) => p.kind === 'healthy').map((p) => p.name);

let dir: string;
let dbPath: string;
let stdout = '';
let stderr = '';
let exitCode = -1;
let db: ReturnType<typeof openAuditReader>;
let storms: StormEpisode[];
let names: Map<string, { name: string }>;
/** The @a2a-js/sdk server's own console.error lines of the running test. */
const sdkConsole = captureSdkConsole();

/** Runs `aap-triage …` in-process with `demo` added to the command list (as the CLI will have it). */
async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const ctx = new CommandContext({
    stdout: { write: (s: string | Uint8Array) => ((out += String(s)), true) },
    stderr: { write: (s: string | Uint8Array) => ((err += String(s)), true) },
    env: { ...process.env, CI: 'true' }, // never a terminal UI in a test
    now: Date.now,
  });
  const program = buildProgram(ctx, COMMANDS);
  await program.parseAsync(['node', 'aap-triage', ...args]);
  return { code: ctx.exitCode, out, err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aap-demo-'));
  dbPath = join(dir, 'demo.db');
  ({ code: exitCode, out: stdout, err: stderr } = await runCli(['demo', '--duration', DURATION, '--db', dbPath]));
  db = openAuditReader(dbPath);
  storms = (await findStorms(sqliteReader(db), { since: 0, until: Date.now() + 60_000 }));
  names = buyerNamesByClient(dbPath, roster);
}, 40_000);

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const codesOf = (protocol: string): Set<string> =>
  new Set((db.prepare('SELECT DISTINCT code FROM error_events WHERE protocol = ?').pluck().all(protocol) as string[]));

describe('aap-triage demo --duration 15s (no terminal)', () => {
  it('exits 0 and prints the storms, an incident draft and the commands to explore further', () => {
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toContain('Retry storms found: 4');
    expect(stdout).toContain('Healthy buyers flagged: none');
    expect(stdout).toMatch(/Incident draft for the worst storm, storm-\S+ \(buyer: [a-z-]+\)/);
    expect(stdout).toContain(`aap-triage storms --db ${dbPath}`);
    expect(stdout).toMatch(/aap-triage draft --db \S+ --since 1h --storm storm-\S+/);
  });

  it('records errors from both protocols (AAP skill errors, A2A protocol errors, DMC-12 result errors)', () => {
    const protocols = db.prepare('SELECT DISTINCT protocol FROM error_events').pluck().all();
    expect(new Set(protocols)).toEqual(new Set(['aap', 'a2a', 'dmc12']));
    const services = db.prepare('SELECT DISTINCT service FROM error_events').pluck().all();
    expect(new Set(services)).toEqual(new Set([DEMO_DEFAULTS.aapService, DEMO_DEFAULTS.dmc12Service]));
  });

  it('produces every AAP code the skills are built to produce', () => {
    const aap = codesOf('aap');
    for (const code of [
      'SCHEMA_VALIDATION_FAILED',
      'MISSING_REQUIRED_FIELD',
      'INVALID_CONDITION',
      'VEHICLE_NOT_FOUND',
      'VEHICLE_UNAVAILABLE',
      'CONTACT_CONSENT_REQUIRED',
      'INVALID_CONSENT',
      'APPOINTMENT_TIME_UNAVAILABLE',
      'IDEMPOTENCY_CONFLICT',
      'RATE_LIMITED',
      'INTERNAL_ERROR',
    ]) {
      expect(aap, code).toContain(code);
    }
    expect(codesOf('a2a')).toContain('EXTENSION_SUPPORT_REQUIRED');
  });

  it('produces every DMC-12 code the tools are built to produce, and -32001 with HTTP 401', () => {
    const dmc = codesOf('dmc12');
    for (const code of [
      'VEHICLE_NOT_FOUND',
      'VEHICLE_UNAVAILABLE',
      'QUOTE_EXPIRED',
      'RESERVATION_EXPIRED',
      'RESERVATION_STATE',
      'RESERVATION_CONFLICT',
      'CONSENT_INVALID',
      'NOT_AUTHORIZED',
      'VALIDATION_FAILED',
      'RATE_LIMITED',
      'UPSTREAM_UNAVAILABLE',
    ]) {
      expect(dmc, code).toContain(code);
    }
    const auth = db.prepare("SELECT jsonrpc_code, http_status FROM error_events WHERE protocol = 'dmc12' AND jsonrpc_code = -32001").all();
    expect(auth.length).toBeGreaterThan(0);
    expect(auth).toContainEqual({ jsonrpc_code: -32001, http_status: 401 });
  });

  it('keeps the wire facts the spec fixes: legacy string, retry hint, upstream trace id, every validation error', () => {
    const conflict = db.prepare("SELECT legacy_error, retryable, upstream_trace_id FROM error_events WHERE code = 'RESERVATION_CONFLICT' LIMIT 1").get() as Record<string, unknown>;
    expect(conflict.legacy_error).toBe('vin_already_reserved');
    expect(conflict.retryable).toBe(0);
    expect(String(conflict.upstream_trace_id)).toMatch(/^trc_/);
    const limited = db.prepare("SELECT MIN(retry_after_ms) FROM error_events WHERE protocol = 'aap' AND code = 'RATE_LIMITED'").pluck().get() as number;
    expect(limited).toBeGreaterThanOrEqual(1000);
    // sloppy-sam's search has five problems; all five are reported at once (allErrors).
    const violations = JSON.parse(db.prepare("SELECT violations FROM error_events WHERE code = 'SCHEMA_VALIDATION_FAILED' LIMIT 1").pluck().get() as string) as Array<{ keyword: string }>;
    expect(violations.map((v) => v.keyword).sort()).toEqual(['additionalProperties', 'enum', 'maximum', 'minimum', 'type']);
  });

  it('finds one client storm per misbehaving buyer and none for the healthy ones (their episodes, if any, are the dealer\'s)', () => {
    const clientStorms = storms.filter((s) => s.cause === 'client');
    const stormBuyers = clientStorms.map((s) => names.get(s.client)?.name ?? `unknown:${s.client}`).sort();
    expect(stormBuyers).toEqual(MISBEHAVING);
    for (const s of storms.filter((e) => e.cause === 'dealer')) expect(HEALTHY).toContain(names.get(s.client)?.name);
    const byBuyer = new Map(clientStorms.map((s) => [names.get(s.client)?.name, s]));
    const codes = (b: string) => byBuyer.get(b)?.codes.map((c) => c.code) ?? [];
    expect(codes('sloppy-sam')).toEqual(['SCHEMA_VALIDATION_FAILED']);
    expect(byBuyer.get('sloppy-sam')?.flags.retried_non_retryable).toBeGreaterThan(10);
    expect(codes('hammering-harry')).toEqual(['RATE_LIMITED']);
    expect(byBuyer.get('hammering-harry')?.flags.ignored_retry_after).toBeGreaterThan(0);
    expect(codes('stubborn-stella')).toContain('RESERVATION_CONFLICT');
    expect(byBuyer.get('stubborn-stella')?.flags.retried_non_retryable).toBeGreaterThan(10);
    expect(codes('legacy-larry')).toEqual(['EXTENSION_SUPPORT_REQUIRED']);
  });

  it('never flags a retry of a healthy buyer', () => {
    const flagged = db.prepare("SELECT client, retry_flags FROM error_events WHERE retry_flags <> '[]'").all() as Array<{ client: string }>;
    const who = new Set(flagged.map((r) => names.get(r.client)?.name));
    for (const healthy of HEALTHY) expect(who.has(healthy), healthy).toBe(false);
  });

  it('has the healthy buyers retry through aap-triage/client: withRetries numbers the attempts (aap-attempt), only on retryable codes', () => {
    const rows = db.prepare('SELECT client, code, retryable, attempt FROM error_events WHERE attempt > 1').all() as Array<{ client: string; code: string; attempt: number }>;
    const healthy = rows.filter((r) => HEALTHY.includes(names.get(r.client)?.name ?? ''));
    expect(healthy.length).toBeGreaterThan(0);
    // What a retried healthy call answered with: the retryable codes only (RATE_LIMITED, INTERNAL_ERROR,
    // UPSTREAM_UNAVAILABLE), plus the by-hand repeats the flows make on purpose (duplicate lead, release twice).
    for (const r of healthy) expect(['RATE_LIMITED', 'INTERNAL_ERROR', 'UPSTREAM_UNAVAILABLE', 'RESERVATION_STATE', 'IDEMPOTENCY_CONFLICT'], r.code).toContain(r.code);
    expect(Math.max(...healthy.map((r) => r.attempt))).toBeLessThanOrEqual(4); // the client's default maxAttempts
  });

  it('builds its buyers on aap-triage/client, not on a hand-rolled adapter', () => {
    const buyers = fileURLToPath(new URL('../../src/demo/buyers', import.meta.url));
    expect(existsSync(join(buyers, 'aap-client.ts')) || existsSync(join(buyers, 'dmc12-client.ts'))).toBe(false);
    for (const file of ['aap-buyer.ts', 'dmc12-buyer.ts']) {
      const text = readFileSync(join(buyers, file), 'utf8');
      expect(text, file).toMatch(/import \{[^}]*\bcreateAapFetch\b[^}]*\bwithRetries\b[^}]*\} from '\.\.\/\.\.\/client\/index\.js'/);
      expect(text, file).not.toMatch(/JSON\.parse|error\.data|error_code/); // the client reads the envelopes
    }
  });

  it('quotes error_id + trace_id pairs in the draft that exist in the database', () => {
    const pairs = [...stdout.matchAll(/(err_[0-9a-f]{32})\s+trace_id=([0-9a-f]{32})/g)].map((m) => [m[1], m[2]] as const);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [errorId, traceId] of pairs) {
      expect(db.prepare('SELECT trace_id FROM error_events WHERE error_id = ?').pluck().get(errorId)).toBe(traceId);
    }
  });

  it('keeps every fake customer value, API key and their plain sha256 out of the database bytes', () => {
    const values = new Set<string>([BAD_PHONE, `demo-sk-steady-sofia-revoked-${DEMO_DEFAULTS.seed}`]);
    for (const p of roster) values.add(p.apiKey);
    for (const buyer of ['patient-pete', 'steady-sofia']) {
      for (let n = 1; n <= 80; n++) {
        const c = fakeCustomer(buyer, n);
        for (const v of [c.email, c.phone, c.last_name, c.full_name, c.notes]) values.add(v);
      }
    }
    values.add('I agree that Demo Motors may contact me');
    const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter((f) => existsSync(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f))).toString('latin1');
    expect(bytes.length).toBeGreaterThan(0);
    for (const v of values) {
      expect(bytes.includes(v), v).toBe(false);
      const sha = createHash('sha256').update(v).digest('hex');
      expect(bytes.includes(sha), `sha256(${v})`).toBe(false);
    }
  });
});

describe('the demo dealer agents on the wire', () => {
  let dealers: RunningDealers;
  beforeAll(async () => {
    dealers = await startDealers({ personas: roster, seed: 1 });
  });
  afterAll(async () => {
    await dealers.close();
  });

  const send = (headers: Record<string, string>, data: unknown) =>
    fetch(`${dealers.aapBaseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data }] } } }),
    });

  it('serves an agent card declaring the AAP extension required and the five skills', async () => {
    const card = (await (await fetch(`${dealers.aapBaseUrl}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: Array<{ uri: string; required: boolean }> };
      skills: Array<{ id: string }>;
    };
    expect(card.capabilities.extensions).toContainEqual(expect.objectContaining({ uri: AAP_EXTENSION_URI, required: true }));
    expect(card.skills.map((s) => s.id)).toEqual(['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit']);
  });

  it('answers a request without the AAP extension with -32008 naming the URI and the header, before any skill logic', async () => {
    const res = await send({ 'A2A-Version': '1.0' }, { type: 'no.such.request' });
    const body = (await res.json()) as { error: { code: number; message: string; data: Array<{ reason: string; metadata: Record<string, string> }> } };
    expect(body.error.code).toBe(-32008);
    expect(body.error.message).toContain(AAP_EXTENSION_URI);
    expect(body.error.message).toContain('A2A-Extensions');
    expect(body.error.data[0]).toMatchObject({ reason: 'EXTENSION_SUPPORT_REQUIRED', metadata: { extensionUri: AAP_EXTENSION_URI, requiredHeader: 'A2A-Extensions' } });
  });

  it('answers a request without A2A-Version: 1.0 with -32009', async () => {
    const res = await send({ 'A2A-Extensions': AAP_EXTENSION_URI }, { type: 'dealer.information.request' });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32009);
    expect(sdkConsole.lines).toEqual(['Unhandled error in JSON-RPC POST handler:']); // the SDK's own line, captured
  });

  it('answers an activated skill call with a message carrying the skill response', async () => {
    const res = await send({ 'A2A-Version': '1.0', 'A2A-Extensions': AAP_EXTENSION_URI }, { type: 'inventory.vehicle.request', vin: '2HKRW2H88PH123456' });
    const body = (await res.json()) as { result: { message: { parts: Array<{ data: { type: string; data: { vin: string } } }> } } };
    expect(body.result.message.parts[0]?.data).toMatchObject({ type: 'inventory.vehicle.response', data: { vin: '2HKRW2H88PH123456' } });
  });

  it('answers a DMC-12 call with a bad bearer token with -32001 and HTTP 401', async () => {
    const res = await fetch(dealers.dmc12RpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-partner' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_vehicle', arguments: { vin: '2HKRW2H88PH123456' } } }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });

  it('returns DMC-12 tool errors inside a successful result with a trc_ trace id', async () => {
    const key = roster[0]?.apiKey ?? '';
    const res = await fetch(dealers.dmc12RpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'get_vehicle', arguments: { vin: '1HGCY2F52RA999999' } } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { data: Record<string, unknown>; _metadata: { trace_id: string } } };
    expect(body.result.data).toMatchObject({ error: 'vehicle_not_found', error_code: 'VEHICLE_NOT_FOUND', retryable: false });
    expect(body.result.data.error_id).toMatch(/^err_[0-9a-f]{32}$/);
    expect(body.result._metadata.trace_id).toMatch(/^trc_/);
  });
});

describe('aap-triage demo refusals', () => {
  it('refuses to replace a file that is not a demo database, and leaves it alone (exit 2)', async () => {
    const file = join(dir, 'notes.db');
    writeFileSync(file, 'my own notes, not an audit database');
    const r = await runCli(['demo', '--duration', '15s', '--db', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('is not a demo audit database');
    expect(readFileSync(file, 'utf8')).toBe('my own notes, not an audit database');
  });

  it('rejects a --duration that is not a duration with a usage error', async () => {
    await expect(runCli(['demo', '--duration', 'soon'])).rejects.toMatchObject({ exitCode: 2 });
  });
});
