// `node --import aap-triage/register` exports the golden metric names with no code change, through
// the two exporters issue 8 names: OTEL_METRICS_EXPORTER=prometheus (scraped here) and otlp
// (received here as OTLP/HTTP JSON). A real child process runs the built register entry
// (dist/, built by `npm run build`, which `npm ci` runs in CI) in front of a hand-written
// JSON-RPC server (fixtures/register-server.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from './otlp-receiver.js';
import { freePort } from './prometheus.js';

const REGISTER = fileURLToPath(new URL('../../dist/instrument/register.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/register-server.mjs', import.meta.url));
const children: ChildProcess[] = [];

/** SIGTERMs every fixture still running and waits for it to exit (SIGKILL after 5 s). */
async function stopChildren(): Promise<void> {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  }
}

afterEach(stopChildren);

/** Starts the fixture under the register entry with `env` added; resolves with its JSON-RPC URL. */
async function startFixture(env: Record<string, string>): Promise<{ rpcUrl: string; child: ChildProcess }> {
  if (!existsSync(REGISTER)) throw new Error(`${REGISTER} is missing: run npm run build (this test runs the built register entry)`);
  const child = spawn(process.execPath, ['--import', REGISTER, FIXTURE], {
    env: {
      PATH: process.env.PATH ?? '',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      AAP_TRIAGE_DB: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => (stderr += s));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start in 15 s:\n${stderr}`)), 15_000);
    child.once('exit', (code) => reject(new Error(`fixture exited (${code}):\n${stderr}`)));
    lines.on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { port?: number };
        if (typeof msg.port === 'number') {
          clearTimeout(timer);
          resolve(msg.port);
        }
      } catch {
        // not our line (pino output of the instrumentation)
      }
    });
  });
  return { rpcUrl: `http://127.0.0.1:${port}/rpc`, child };
}

async function callUnknownMethod(rpcUrl: string, times: number): Promise<void> {
  for (let i = 1; i <= times; i++) {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'inventory/teleport', params: {} }),
    });
    const body = (await res.json()) as { error?: { code?: number } };
    expect(body.error?.code).toBe(-32601);
  }
}

async function poll<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('aap-triage/register metrics export', () => {
  it('serves the golden names on OTEL_EXPORTER_PROMETHEUS_HOST:PORT with OTEL_METRICS_EXPORTER=prometheus', async () => {
    const promPort = await freePort();
    const { rpcUrl } = await startFixture({
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(promPort),
      OTEL_SERVICE_NAME: 'register-fixture',
    });
    await callUnknownMethod(rpcUrl, 3);
    const text = await poll(async () => {
      const t = await fetch(`http://127.0.0.1:${promPort}/metrics`).then((r) => r.text());
      return /^aap_server_errors_total\{.*\} 3$/m.test(t) ? t : undefined;
    }, 'aap_server_errors_total to reach 3 on the Prometheus endpoint');

    const errors = text.split('\n').filter((l) => l.startsWith('aap_server_errors_total{'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('aap_error_code="-32601"');
    expect(errors[0]).toContain('aap_protocol="jsonrpc"');
    expect(errors[0]).toContain('otel_scope_name="aap-triage"');
    expect(text).toMatch(/^rpc_server_call_duration_bucket\{[^}]*rpc_system_name="jsonrpc"[^}]*le="\+Inf"\} 3$/m);
    expect(text).toMatch(/^target_info\{[^}]*service_name="register-fixture"/m);
    expect(text).not.toContain('_total_total');
  });

  it('pushes the same instruments over OTLP/HTTP JSON with OTEL_METRICS_EXPORTER=otlp', async () => {
    const receiver = await startOtlpReceiver();
    const { bodies } = receiver;
    try {
      const { rpcUrl } = await startFixture({
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.endpoint,
        OTEL_METRIC_EXPORT_INTERVAL: '250',
        OTEL_METRIC_EXPORT_TIMEOUT: '200',
        OTEL_SERVICE_NAME: 'register-fixture-otlp',
      });
      await callUnknownMethod(rpcUrl, 2);
      type OtlpBody = {
        resourceMetrics: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeMetrics: { scope: { name: string }; metrics: { name: string; unit?: string; sum?: { isMonotonic?: boolean } }[] }[];
        }[];
      };
      const body = await poll(async () => {
        const found = bodies.map((b) => JSON.parse(b) as OtlpBody).find((b) =>
          b.resourceMetrics.some((rm) => rm.scopeMetrics.some((sm) => sm.metrics.some((m) => m.name === 'aap.server.errors'))),
        );
        return found;
      }, 'an OTLP export with aap.server.errors');
      const rm = body.resourceMetrics.find((r) => r.scopeMetrics.some((s) => s.scope.name === 'aap-triage'))!;
      expect(rm.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue).toBe('register-fixture-otlp');
      const ours = rm.scopeMetrics.find((s) => s.scope.name === 'aap-triage')!.metrics;
      const byName = new Map(ours.map((m) => [m.name, m]));
      // The OTel names and units the Collector turns into the path-2 Prometheus names (docs/dashboards.md).
      expect(byName.get('rpc.server.call.duration')?.unit).toBe('s');
      expect(byName.get('aap.server.errors')?.unit).toBe('{error}');
      expect(byName.get('aap.server.errors')?.sum?.isMonotonic).toBe(true);
    } finally {
      // Stop the child first: its last flush on SIGTERM goes to this receiver, not a closed port.
      await stopChildren();
      await receiver.close();
    }
  });
});
