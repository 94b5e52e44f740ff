/**
 * `node --import aap-triage/register server.js` in a real child process against dist/ (built
 * first when stale): the unmodified server's errors are tagged, logged and audited, the HTTP
 * instrumentation's server span is the parent, and SIGTERM flushes the audit store.
 *
 * Expected span tree (OTel SDK on):
 *   POST (SERVER, instrumentation-http)   ← named by the `traceresponse` header
 *     └─ tools/call (SERVER, aap-triage)  ← trace_id / span_id in the log line and audit row
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader } from '../../src/audit/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REGISTER = join(ROOT, 'dist', 'instrument', 'register.js');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'register-dmc12.mjs');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    newest = Math.max(newest, f.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

interface Child {
  proc: ChildProcess;
  port: number;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', REGISTER, FIXTURE], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child did not start: ${err}`)), 15_000);
    const check = (): void => {
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      } else setTimeout(check, 20);
    };
    check();
  });
  return { proc, port, stdout: () => out, exited };
}

async function call(port: number, id: string, args: Record<string, unknown>): Promise<{ headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fixture-token-1' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_reservation', arguments: args } }),
  });
  return { headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The JSON lines (pino) of a stdout that also holds the console span exporter's inspect output. */
function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const l of text.split('\n')) {
    if (!l.startsWith('{"')) continue;
    try {
      out.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  }
  return out;
}

let dir: string;
beforeAll(() => {
  const stale = (() => {
    try {
      return statSync(REGISTER).mtimeMs < Math.max(newestMtime(join(ROOT, 'src', 'instrument')), newestMtime(join(ROOT, 'src', 'protocol')), newestMtime(join(ROOT, 'src', 'audit')));
    } catch {
      return true;
    }
  })();
  if (stale) spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'aap-register-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('aap-triage/register', () => {
  it('instruments an unmodified node:http server and flushes the audit store on SIGTERM', async () => {
    const db = join(dir, 'audit.db');
    const child = await startChild({ AAP_TRIAGE_DB: db, OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'fixture-dealer' });
    try {
      const ok = await call(child.port, 'r-ok', {});
      expect(ok.body).toEqual({ jsonrpc: '2.0', id: 'r-ok', result: { data: { vehicles: [] }, _metadata: { trace_id: 'trc_fixture' } } });
      const failed = await call(child.port, 'r-fail', { fail: true });
      const data = (failed.body.result as { data: Record<string, unknown> }).data;
      expect(data.error_id).toMatch(/^err_[0-9a-f]{32}$/);
      const tr = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(failed.headers.get('traceresponse') ?? '');
      expect(tr).not.toBeNull();
      await new Promise((r) => setTimeout(r, 200));
      const line = jsonLines(child.stdout()).find((l) => l.error_id === data.error_id);
      expect(line).toMatchObject({ code: 'RESERVATION_CONFLICT', retryable: false, method: 'tools/call', skill: 'create_reservation' });
      // Same trace as the HTTP server span the header names; the call span is its child.
      expect(line?.trace_id).toBe(tr?.[1]);
      expect(line?.span_id).not.toBe(tr?.[2]);
      expect(child.stdout()).toContain("name: 'tools/call'");
      child.proc.kill('SIGTERM');
      const exit = await child.exited;
      expect(exit.signal).toBe('SIGTERM');
      const reader = openAuditReader(db);
      try {
        const row = reader.prepare('SELECT * FROM error_events WHERE error_id = ?').get(data.error_id) as Record<string, unknown>;
        expect(row).toMatchObject({ code: 'RESERVATION_CONFLICT', service: 'fixture-dealer', protocol: 'dmc12', trace_id: tr?.[1], retryable: 0 });
        const traffic = reader.prepare('SELECT SUM(requests) AS n FROM traffic').get() as { n: number };
        expect(traffic.n).toBe(2);
      } finally {
        reader.close();
      }
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    }
  });

  it('with OTEL_SDK_DISABLED=true still tags and logs errors, with trace_id null and no traceresponse', async () => {
    const child = await startChild({ AAP_TRIAGE_DB: 'off', OTEL_SDK_DISABLED: 'true' });
    try {
      const failed = await call(child.port, 'd-fail', { fail: true });
      expect(failed.headers.get('traceresponse')).toBeNull();
      const data = (failed.body.result as { data: Record<string, unknown> }).data;
      expect(data.error_id).toMatch(/^err_[0-9a-f]{32}$/);
      await new Promise((r) => setTimeout(r, 200));
      const line = jsonLines(child.stdout()).find((l) => l.error_id === data.error_id);
      expect(line).toMatchObject({ code: 'RESERVATION_CONFLICT', trace_id: null, span_id: null });
      expect(child.stdout()).not.toContain('00000000000000000000000000000000');
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });
});
