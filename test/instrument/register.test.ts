/**
 * `node --import aap-triage/register server.js` in a real child process against dist/ (built
 * first when stale): the unmodified server's errors are tagged, logged and audited, the HTTP
 * instrumentation's server span is the parent, and SIGTERM flushes the audit store.
 *
 * Expected span (OTel SDK on): the single call is recorded on the HTTP server span (DESIGN §4)
 *   tools/call (SERVER, instrumentation-http's span, renamed by aap-triage)
 *     ← named by the `traceresponse` header and by trace_id / span_id in the log line and audit row
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader } from '../../src/audit/index.js';
import { ROOT, ensureBuilt } from '../helpers/dist.js';

// The bundle hosts load as `aap-triage/register` (package.json exports).
const REGISTER = join(ROOT, 'dist', 'lib', 'register.js');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'register-dmc12.mjs');
const HOST_OTEL = join(import.meta.dirname, 'fixtures', 'host-otel.mjs');

interface Child {
  proc: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(env: Record<string, string>, options: { preload?: string[]; args?: string[] } = {}): Promise<Child> {
  const preload = (options.preload ?? []).flatMap((p) => ['--import', p]);
  const proc = spawn(process.execPath, [...preload, '--import', REGISTER, FIXTURE, ...(options.args ?? [])], {
    cwd: ROOT,
    // OTEL_LOG_LEVEL=warn: the SDK's diag warnings and errors (duplicate registrations) reach stderr.
    env: { PATH: process.env.PATH ?? '', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_LOG_LEVEL: 'warn', ...env },
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
  return { proc, port, stdout: () => out, stderr: () => err, exited };
}

/** stderr lines that are not pino JSON lines (diag messages, stack traces). */
function noise(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{"'));
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function call(port: number, id: string, args: Record<string, unknown>): Promise<{ headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fixture-token-1' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_reservation', arguments: args } }),
  });
  return { headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The JSON lines (pino) of an output that may also hold other text. */
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
  ensureBuilt();
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
      // The default logger writes to stderr: the host's stdout holds only its own output.
      const line = jsonLines(child.stderr()).find((l) => l.error_id === data.error_id);
      expect(line).toMatchObject({ code: 'RESERVATION_CONFLICT', retryable: false, method: 'tools/call', skill: 'create_reservation' });
      expect(jsonLines(child.stdout())).toEqual([]);
      // The HTTP server span the header names is the call's span (a single call, DESIGN §4).
      expect(line?.trace_id).toBe(tr?.[1]);
      expect(line?.span_id).toBe(tr?.[2]);
      expect(child.stdout()).toContain("name: 'tools/call'");
      child.proc.kill('SIGTERM');
      const exit = await child.exited;
      expect(exit.signal).toBe('SIGTERM');
      expect(noise(child.stderr())).toEqual([]);
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
      const line = jsonLines(child.stderr()).find((l) => l.error_id === data.error_id);
      expect(line).toMatchObject({ code: 'RESERVATION_CONFLICT', trace_id: null, span_id: null });
      expect(child.stderr()).not.toContain('00000000000000000000000000000000');
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });

  it('with OTEL_TRACES_EXPORTER=none keeps sampled trace ids on rows, log lines and the traceresponse header', async () => {
    const db = join(dir, 'none.db');
    const child = await startChild({ AAP_TRIAGE_DB: db, OTEL_TRACES_EXPORTER: 'none' });
    try {
      const failed = await call(child.port, 'n-fail', { fail: true });
      const tr = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(failed.headers.get('traceresponse') ?? '');
      expect(tr).not.toBeNull();
      const data = (failed.body.result as { data: Record<string, unknown> }).data;
      await new Promise((r) => setTimeout(r, 200));
      expect(jsonLines(child.stderr()).find((l) => l.error_id === data.error_id)).toMatchObject({ trace_id: tr?.[1] });
      child.proc.kill('SIGTERM');
      await child.exited;
      expect(noise(child.stderr())).toEqual([]);
      const reader = openAuditReader(db);
      try {
        const row = reader.prepare('SELECT trace_id, span_id FROM error_events WHERE error_id = ?').get(data.error_id) as { trace_id: string; span_id: string };
        expect(row.trace_id).toBe(tr?.[1]);
        expect(row.span_id).toMatch(/^[0-9a-f]{16}$/);
      } finally {
        reader.close();
      }
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    }
  });

  it("next to the host's own SDK adds only the instrumentation: no duplicate registration, spans in the host's exporter", async () => {
    const child = await startChild({ AAP_TRIAGE_DB: 'off' }, { preload: [HOST_OTEL] });
    try {
      const failed = await call(child.port, 'h-fail', { fail: true });
      expect(failed.headers.get('traceresponse')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await new Promise((r) => setTimeout(r, 200));
      expect(child.stdout()).toContain("name: 'tools/call'");
      expect(child.stdout()).toContain("'service.name': 'host-own-sdk'");
      child.proc.kill('SIGTERM');
      await child.exited;
      expect(child.stderr()).not.toMatch(/duplicate/i);
      expect(noise(child.stderr())).toEqual([]);
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    }
  });

  it('serves Prometheus on 127.0.0.1 only, with no command line, executable or user in target_info', async () => {
    const port = await freePort();
    const secret = 'sk-canary-cmdline-0001';
    const child = await startChild({ AAP_TRIAGE_DB: 'off', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(port) }, { args: [`--api-key=${secret}`] });
    try {
      await call(child.port, 'p-fail', { fail: true });
      await new Promise((r) => setTimeout(r, 200));
      const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const targetInfo = scrape.split('\n').find((l) => l.startsWith('target_info{'));
      expect(targetInfo).toBeDefined();
      expect(targetInfo).toContain('host_name=');
      for (const label of ['process_command', 'process_command_args', 'process_command_line', 'process_executable_path', 'process_owner', 'process_pid']) {
        expect(targetInfo).not.toContain(`${label}=`);
      }
      expect(scrape).not.toContain(secret);
      expect(scrape).toContain('aap_server_errors_total');
      // Not reachable on the machine's other addresses.
      const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
      if (external) await expect(fetch(`http://${external.address}:${port}/metrics`)).rejects.toThrow();
      child.proc.kill('SIGTERM');
      await child.exited;
      expect(noise(child.stderr())).toEqual([]);
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    }
  });

  it('honours OTEL_NODE_RESOURCE_DETECTORS when the operator asks for the process detector', async () => {
    const port = await freePort();
    const child = await startChild({ AAP_TRIAGE_DB: 'off', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(port), OTEL_NODE_RESOURCE_DETECTORS: 'env,process' });
    try {
      await call(child.port, 'd-fail', { fail: true });
      const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(scrape.split('\n').find((l) => l.startsWith('target_info{'))).toContain('process_pid=');
      child.proc.kill('SIGTERM');
      await child.exited;
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    }
  });

  it('exports each error as an aap.error OTLP log record with OTEL_LOGS_EXPORTER=otlp', async () => {
    const received: unknown[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/logs') received.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}/v1/logs`;
    const child = await startChild({
      AAP_TRIAGE_DB: 'off',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: endpoint,
      OTEL_BLRP_SCHEDULE_DELAY: '50',
    });
    try {
      const failed = await call(child.port, 'l-fail', { fail: true });
      const tr = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(failed.headers.get('traceresponse') ?? '');
      const data = (failed.body.result as { data: Record<string, unknown> }).data;
      child.proc.kill('SIGTERM');
      await child.exited;
      const records = otlpLogRecords(received);
      const record = records.find((r) => r.eventName === 'aap.error');
      expect(record).toMatchObject({
        traceId: tr?.[1],
        attributes: { error_id: data.error_id, code: 'RESERVATION_CONFLICT', method: 'tools/call', skill: 'create_reservation', retryable: false, trace_id: tr?.[1] },
        severityText: 'WARN',
      });
      expect(record?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(record?.scope).toBe('aap-triage');
      expect(noise(child.stderr())).toEqual([]);
    } finally {
      if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
      collector.closeAllConnections();
      await new Promise<void>((r) => collector.close(() => r()));
    }
  });
});

interface OtlpRecord {
  scope: string;
  eventName?: string;
  severityText?: string;
  traceId?: string;
  spanId?: string;
  attributes: Record<string, unknown>;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

function anyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

/** The log records of OTLP/HTTP JSON export bodies (ExportLogsServiceRequest), attributes decoded. */
function otlpLogRecords(bodies: unknown[]): OtlpRecord[] {
  const out: OtlpRecord[] = [];
  for (const b of bodies as { resourceLogs?: { scopeLogs?: { scope?: { name?: string }; logRecords?: (Omit<OtlpRecord, 'attributes' | 'scope'> & { attributes?: { key: string; value: AnyValue }[] })[] }[] }[] }[]) {
    for (const rl of b.resourceLogs ?? []) {
      for (const sl of rl.scopeLogs ?? []) {
        for (const r of sl.logRecords ?? []) {
          out.push({ ...r, scope: sl.scope?.name ?? '', attributes: Object.fromEntries((r.attributes ?? []).map((a) => [a.key, anyValue(a.value)])) });
        }
      }
    }
  }
  return out;
}
