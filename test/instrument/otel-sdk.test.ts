/**
 * aap-triage inside a host's own OpenTelemetry SDK and module system (issue 13), each case in
 * a real child process against dist/:
 *
 * - `fixtures/host-sdk.mjs`: NodeSDK + HttpInstrumentation + AapTriageInstrumentation with
 *   in-memory span, metric and log exporters, the instrumentation constructed before the SDK
 *   starts and after it; disable() then enable(). Expected span tree per enabled call:
 *     POST (SERVER, @opentelemetry/instrumentation-http)   ← named by `traceresponse`
 *       └─ tools/call (SERVER, aap-triage)                 ← the aap.error log record's span
 * - `fixtures/cjs-dealer.cjs`: a CommonJS server that `require`s the package.
 * - the library entry points load no SDK, exporter, CLI, TUI, mail or demo module.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader } from '../../src/audit/index.js';
import { ROOT, ensureBuilt } from '../helpers/dist.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');

beforeAll(() => ensureBuilt(), 120_000);

interface HostRun {
  responses: { status: number; traceresponse: string | null; body: { result: { data: Record<string, unknown> } } }[];
  spans: { name: string; scope: { name: string; schemaUrl?: string }; traceId: string; spanId: string; parentSpanId: string | null; attributes: Record<string, unknown> }[];
  metrics: Record<string, number>;
  logs: { eventName: string; severityText: string; attributes: Record<string, unknown>; traceId: string | null; spanId: string | null }[];
  diag: string[];
}

function runHost(order: string): { out: HostRun; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(FIXTURES, 'host-sdk.mjs'), order], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as HostRun, stdout: r.stdout, stderr: r.stderr };
}

describe.each(['instrumentation-first', 'sdk-first'])('AapTriageInstrumentation in a host NodeSDK (%s)', (order) => {
  let run: ReturnType<typeof runHost>;
  beforeAll(() => {
    run = runHost(order);
  }, 90_000);

  it('records each single call on the HTTP server span the traceresponse header names (DESIGN §4)', () => {
    const { out } = run;
    const enabled = [out.responses[0], out.responses[2]];
    for (const r of enabled) {
      const tr = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(r?.traceresponse ?? '');
      expect(tr).not.toBeNull();
      const span = out.spans.find((s) => s.spanId === tr?.[2]);
      // The HTTP instrumentation's span, renamed to the method, with the call's attributes; no second span.
      expect(span).toMatchObject({ name: 'tools/call', traceId: tr?.[1], scope: { name: '@opentelemetry/instrumentation-http' } });
      expect(span?.attributes['aap.error.id']).toBe(r?.body.result.data.error_id);
      expect(span?.attributes['rpc.method']).toBe('tools/call');
      expect(out.spans.filter((s) => s.parentSpanId === tr?.[2])).toEqual([]);
    }
  });

  it('records metrics on the host meter provider', () => {
    expect(run.out.metrics).toMatchObject({ 'aap.server.errors': 2, 'rpc.server.call.duration': 3 });
  });

  it('emits one aap.error log record per error with its fields and the call span ids', () => {
    const { out } = run;
    expect(out.logs).toHaveLength(2);
    const calls = out.spans.filter((s) => s.name === 'tools/call');
    for (const log of out.logs) {
      expect(log).toMatchObject({ eventName: 'aap.error', severityText: 'WARN', attributes: { code: 'RESERVATION_CONFLICT', method: 'tools/call', skill: 'create_reservation', retryable: false } });
      const span = calls.find((s) => s.attributes['aap.error.id'] === log.attributes.error_id);
      expect(log.traceId).toBe(span?.traceId);
      expect(log.spanId).toBe(span?.spanId);
      // The line's fields and the rest of the audit record's (issue 19), nulls left out: this
      // DMC-12 call carries a legacy error string and a credential, no idempotency key, no customer.
      expect(Object.keys(log.attributes).sort()).toEqual(
        ['attempt', 'client', 'code', 'conformance', 'duration_ms', 'error_id', 'fingerprint', 'http_status', 'key_id', 'legacy_error', 'method', 'occurred_at', 'protocol', 'protocol_version', 'retry_flags', 'retryable', 'service', 'skill', 'span_id', 'trace_id'].sort(),
      );
      expect(log.attributes.protocol).toBe(span?.attributes['aap.protocol']);
      expect(log.attributes.client).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });

  it('passes exchanges through untouched while disabled and observes again after enable()', () => {
    const { out } = run;
    const off = out.responses[1];
    expect(off?.traceresponse).toBeNull();
    expect(off?.body.result.data.error_id).toBeUndefined();
    expect(out.spans.filter((s) => s.name === 'tools/call' && s.attributes['aap.skill'] === 'create_reservation')).toHaveLength(2);
  });

  it('applies setConfig() at once', () => {
    const cfg = run.out.spans.find((s) => s.name === 'tools/call' && s.attributes['jsonrpc.request.id'] === 'cfg-1');
    expect(cfg?.attributes['aap.skill']).toBe('_OTHER');
  });

  it('logs no diag warning or error, and nothing but the fixture line to stdout', () => {
    expect(run.out.diag).toEqual([]);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('sends each error as one log event: the aap.error record of the host pipeline, no pino line besides (DESIGN §2)', () => {
    expect(run.out.logs).toHaveLength(2);
    expect(run.stderr.trim()).toBe('');
  });
});

describe('module systems and what loads', () => {
  it('serves a CommonJS dealer that requires the package, audit row included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aap-cjs-'));
    const db = join(dir, 'audit.db');
    const proc = spawn(process.execPath, [join(FIXTURES, 'cjs-dealer.cjs')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', AAP_TRIAGE_DB: db }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`cjs dealer did not start: ${err}`)), 20_000);
        const check = (): void => {
          const m = /PORT (\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          } else setTimeout(check, 20);
        };
        check();
      });
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'cjs-1', method: 'tools/call', params: { name: 'create_reservation', arguments: {} } }),
      });
      const body = (await res.json()) as { result: { data: { error_id?: string } } };
      // The instrumentation completed the envelope: the caller holds an error id.
      expect(body.result.data.error_id).toMatch(/^err_[0-9a-f]{32}$/);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toBe(`PORT ${port}\n`);
      const lines = err.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.msg === 'json-rpc error sent')).toMatchObject({ code: 'RESERVATION_CONFLICT', error_id: body.result.data.error_id });
      expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
      const reader = openAuditReader(db);
      try {
        expect(reader.prepare('SELECT code, service FROM error_events WHERE error_id = ?').get(body.result.data.error_id)).toEqual({ code: 'RESERVATION_CONFLICT', service: 'cjs-dealer' });
      } finally {
        reader.close();
      }
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['aap-triage', 'aap-triage/protocol', 'aap-triage/client'])('loads no SDK, exporter, CLI, TUI, mail or demo module for %s', (entry) => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'startup', 'probe.mjs'), entry, '--count'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PROBE_LIST: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const files = r.stderr.trim().split('\n');
    // Not vacuous: the listing holds the package's own bundle.
    expect(files.some((f) => f.includes('/dist/lib/'))).toBe(true);
    const forbidden = /node_modules\/(@opentelemetry\/(sdk-|exporter-|resources|otlp-|instrumentation-http)|nodemailer|ink|react|commander|better-sqlite3|ajv|@grpc|protobufjs)\/|\/dist\/(cli|tui|demo|probe)\//;
    expect(files.filter((f) => forbidden.test(f))).toEqual([]);
  });

  it('adds at most 150 modules over @opentelemetry/api alone (issue 13 target; time is measured by bench/startup.bench.mjs)', () => {
    const count = (entry: string): number => {
      const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'startup', 'probe.mjs'), entry, '--count'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 60_000 });
      return (JSON.parse(r.stdout) as { modules: number }).modules;
    };
    expect(count('aap-triage') - count('@opentelemetry/api')).toBeLessThanOrEqual(150);
  });

  it('needs no import-time SDK for require() of every entry point', () => {
    const r = spawnSync(process.execPath, ['-e', "for (const e of ['aap-triage', 'aap-triage/protocol', 'aap-triage/client']) require(e); console.log(Object.keys(require.cache).filter((k) => /sdk-node|exporter-/.test(k)).length)"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('0');
  });
});

describe('createTriage created before the host starts its own NodeSDK', () => {
  it('leaves the metrics export to the host SDK: no duplicate registration, no second exporter on its port', () => {
    const port = String(20_000 + (process.pid % 20_000));
    const r = spawnSync(process.execPath, [join(FIXTURES, 'triage-then-sdk.mjs')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: port, OTEL_TRACES_EXPORTER: 'console', OTEL_LOGS_EXPORTER: 'none', OTEL_NODE_RESOURCE_DETECTORS: 'env' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { diag: string[]; status: number; targetInfo: string[] };
    // (The SDK's own notes about its resource are its business; ours and clashes are not.)
    expect(out.diag.filter((l) => /duplicate|EADDRINUSE|aap-triage/i.test(l))).toEqual([]);
    expect(out.status).toBe(200);
    // The scrape is the host SDK's (its service name), not one our own exporter would serve.
    expect(out.targetInfo.join('\n')).toContain('service_name="host"');
  }, 90_000);
});

