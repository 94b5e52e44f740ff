/**
 * A real Alertmanager for tests (Debian's `prometheus-alertmanager`): started on a free loopback
 * port with a temporary config and storage directory, clustering off, routing every alert to a
 * webhook this helper serves and records. Never the system service. `stop()` kills it, closes
 * the webhook and removes the directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../dashboards/prometheus.js';

/** One alert of a webhook notification (Alertmanager's webhook payload, version 4). */
export interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

/** One webhook notification: a group of alerts. */
export interface WebhookNotification {
  receiver: string;
  status: 'firing' | 'resolved';
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  alerts: WebhookAlert[];
}

export interface RunningAlertmanager {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Every notification the webhook received, in order. */
  notifications: WebhookNotification[];
  /** Resolves once `pred` holds over the notifications; rejects after `timeoutMs` with what arrived. */
  waitFor(pred: (n: readonly WebhookNotification[]) => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The alertmanager binary: ALERTMANAGER_BIN, else `prometheus-alertmanager` or `alertmanager` on PATH; null when absent. */
export function findAlertmanager(): string | null {
  if (process.env.ALERTMANAGER_BIN) return process.env.ALERTMANAGER_BIN;
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d.length > 0), '/usr/bin'];
  for (const name of ['prometheus-alertmanager', 'alertmanager']) {
    for (const d of dirs) if (existsSync(join(d, name))) return join(d, name);
  }
  return null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts Alertmanager with one route to the test's webhook, grouped by `groupBy`, with short
 * group_wait / group_interval (1 s) so notifications come quickly. Resolves once `/-/ready`
 * answers; throws with its stderr if it does not within 20 s.
 */
export async function startAlertmanager(bin: string, groupBy: readonly string[]): Promise<RunningAlertmanager> {
  const notifications: WebhookNotification[] = [];
  const hook: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      notifications.push(JSON.parse(body) as WebhookNotification);
      res.writeHead(200).end();
    });
  });
  const hookPort = await freePort();
  await new Promise<void>((r) => hook.listen(hookPort, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'aap-triage-am-'));
  const config = join(dir, 'alertmanager.yml');
  // JSON is valid YAML.
  writeFileSync(
    config,
    JSON.stringify({
      route: { receiver: 'hook', group_by: groupBy, group_wait: '1s', group_interval: '1s', repeat_interval: '1h' },
      receivers: [{ name: 'hook', webhook_configs: [{ url: `http://127.0.0.1:${hookPort}/hook`, send_resolved: true }] }],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let stderr = '';
  const child: ChildProcess = spawn(
    bin,
    [`--config.file=${config}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=error'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => (stderr = (stderr + s).slice(-8_000)));
  let exited = false;
  const exitedP = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const stop = async (): Promise<void> => {
    if (!exited) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exitedP;
      clearTimeout(t);
    }
    await new Promise<void>((r) => hook.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`alertmanager exited before it was ready:\n${stderr}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`alertmanager not ready after 20 s:\n${stderr}`);
    }
    await sleep(100);
  }
  const waitFor = async (pred: (n: readonly WebhookNotification[]) => boolean, timeoutMs = 20_000): Promise<void> => {
    const until = Date.now() + timeoutMs;
    while (!pred(notifications)) {
      if (Date.now() > until) throw new Error(`webhook condition not met within ${timeoutMs} ms; received: ${JSON.stringify(notifications)}`);
      await sleep(100);
    }
  };
  return { url, notifications, waitFor, stop };
}
