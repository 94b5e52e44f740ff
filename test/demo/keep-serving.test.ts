/**
 * `aap-triage demo --keep-serving` as a user runs it: the real launcher in a child process
 * (`node bin/aap-triage.js`, so dist/ must be built: `npm test` builds it before vitest; locally
 * run `npm run build` first). The test reads the printed URLs from stdout, calls the dealer
 * agents the way the printed `curl` lines do, stops the demo with SIGINT, and finds its call in
 * the audit database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader, sqliteReader } from '../../src/audit/index.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { searchErrors } from '../../src/triage/index.js';

const root = join(import.meta.dirname, '..', '..');
const launcher = join(root, 'bin', 'aap-triage.js');

let dir: string;
let dbPath: string;
let child: ChildProcess;
let stdout = '';
let stderr = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

/** Resolves once `predicate(stdout, stderr)` holds; rejects after `ms` or when the child exits first. */
function waitFor(predicate: () => boolean, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (predicate()) {
        clearInterval(tick);
        resolve();
      } else if (child.exitCode !== null || Date.now() - started > ms) {
        clearInterval(tick);
        reject(new Error(`gave up waiting for ${what} (exit ${String(child.exitCode)})\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      }
    }, 50);
  });
}

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is not built: run `npm run build` first (npm test does)');
  dir = mkdtempSync(join(tmpdir(), 'aap-demo-serve-'));
  dbPath = join(dir, 'demo.db');
  // stdin and stdout are pipes, so no terminal UI: the report goes to stdout, notes to stderr.
  child = spawn(process.execPath, [launcher, 'demo', '--duration', '3s', '--keep-serving', '--db', dbPath], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', CI: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await waitFor(() => stderr.includes('press Ctrl+C to stop them'), 30_000, 'the dealer agents to keep serving');
}, 40_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('aap-triage demo --duration 3s --keep-serving (child process)', () => {
  let aapBase = '';
  let dmc12Url = '';
  let bearer = '';
  let call: { errorId: string; traceId: string; at: number } | undefined;

  it('prints the report, then the dealer agents\' URLs and a bearer token to try them with', () => {
    expect(stdout).toContain('Retry storms found:');
    aapBase = /agent card (http:\/\/127\.0\.0\.1:\d+)\/\.well-known\/agent-card\.json/.exec(stdout)?.[1] ?? '';
    dmc12Url = /DMC-12 +JSON-RPC (http:\/\/127\.0\.0\.1:\d+\/rpc)/.exec(stdout)?.[1] ?? '';
    bearer = /authorization: Bearer (\S+)'/.exec(stdout)?.[1] ?? '';
    expect(aapBase).not.toBe('');
    expect(dmc12Url).not.toBe('');
    expect(bearer).toMatch(/^demo-sk-/);
  });

  it('serves the AAP agent card at the printed URL, declaring the AAP extension required', async () => {
    const res = await fetch(`${aapBase}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as { capabilities: { extensions: Array<{ uri: string; required: boolean }> } };
    expect(card.capabilities.extensions).toContainEqual(expect.objectContaining({ uri: AAP_EXTENSION_URI, required: true }));
  });

  it('answers a DMC-12 get_vehicle for an unknown VIN with VEHICLE_NOT_FOUND inside the result', async () => {
    const at = Date.now();
    const res = await fetch(dmc12Url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_vehicle', arguments: { vin: '1HGCY2F52RA999999' } } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { data: { error_code: string; error_id: string }; _metadata: { trace_id: string } } };
    expect(body.result.data.error_code).toBe('VEHICLE_NOT_FOUND');
    call = { errorId: body.result.data.error_id, traceId: body.result._metadata.trace_id, at };
  });

  it('stops on SIGINT with exit 0, and the audit database holds the call made while serving', async () => {
    child.kill('SIGINT');
    const { code, signal } = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within 15 s\n${stderr}`)), 15_000))]);
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(stderr).toContain('stopping the dealer agents and flushing the audit store');
    expect(call).toBeDefined();
    const db = openAuditReader(dbPath);
    try {
      const rows = (await searchErrors(sqliteReader(db), 'protocol:dmc12 code:VEHICLE_NOT_FOUND skill:get_vehicle', { since: call?.at ?? 0, until: Date.now() + 1 })).rows;
      expect(rows.map((r) => ({ error_id: r.error_id, upstream_trace_id: r.upstream_trace_id, service: r.service }))).toEqual([
        { error_id: call?.errorId, upstream_trace_id: call?.traceId, service: 'demo-motors-dmc12' },
      ]);
    } finally {
      db.close();
    }
  }, 20_000);
});
