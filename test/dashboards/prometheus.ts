/**
 * A real Prometheus server for tests: the Debian package's `/usr/bin/prometheus`, started on a
 * loopback port with a temporary config and TSDB directory, scraping the given targets every
 * second. Never the system service. `stop()` kills it and removes the directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A scrape target: Prometheus job name and `host:port` of a `/metrics` endpoint. */
export interface ScrapeTarget {
  job: string;
  address: string;
  metricsPath?: string;
}

/** One series of an instant-query answer. */
export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

/** A running Prometheus. */
export interface RunningPrometheus {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Instant query at the current time; throws with Prometheus's error text on a bad query. */
  query(expr: string): Promise<PromSeries[]>;
  /** Values of a label over the series matching `match` (`/api/v1/label/<label>/values`). */
  labelValues(label: string, match: string): Promise<string[]>;
  /**
   * Resolves when every target is up and has been scraped at least `scrapes` times; throws after
   * `timeoutMs` (milliseconds) with the targets' last scrape errors.
   */
  waitForScrapes(scrapes: number, timeoutMs?: number): Promise<void>;
  /** Kills the server (SIGTERM, then SIGKILL after 3 s) and removes its temp directory. */
  stop(): Promise<void>;
}

/**
 * Finds the prometheus binary: `PROMETHEUS_BIN` when set (and only it), else `prometheus` on
 * PATH, else `/usr/bin/prometheus`; null when none is executable.
 */
export function findPrometheus(): string | null {
  const candidates = process.env.PROMETHEUS_BIN
    ? [process.env.PROMETHEUS_BIN]
    : [...(process.env.PATH ?? '').split(delimiter).filter((d) => d.length > 0).map((d) => join(d, 'prometheus')), '/usr/bin/prometheus'];
  for (const p of candidates) {
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // try the next one
    }
  }
  return null;
}

/** A free TCP port on 127.0.0.1 (bound and released; the usual small race is acceptable in tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How stored bucket bounds are spelled: `as-scraped` keeps the exporter's `le="1"` (Prometheus 2);
 * `float` stores integer bounds as floats, `le="1.0"`, as Prometheus 3 does
 * (prometheus/prometheus docs/migration.md, "le and quantile label values"), emulated with a
 * metric relabel rule so the Debian package's Prometheus 2 can stand in for both.
 */
export type BucketLabels = 'as-scraped' | 'float';

/** The relabel rule that rewrites `le="N"` to `le="N.0"` (fully anchored, as Prometheus anchors it). */
const FLOAT_LE = [{ source_labels: ['le'], regex: '([0-9]+)', target_label: 'le', replacement: '${1}.0', action: 'replace' }];

function configYaml(targets: readonly ScrapeTarget[], scrapeIntervalS: number, bucketLabels: BucketLabels, ruleFiles: readonly string[]): string {
  // JSON is valid YAML, and it saves a YAML dependency.
  return JSON.stringify({
    global: { scrape_interval: `${scrapeIntervalS}s`, scrape_timeout: `${scrapeIntervalS}s`, evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: targets.map((t) => ({
      job_name: t.job,
      metrics_path: t.metricsPath ?? '/metrics',
      static_configs: [{ targets: [t.address] }],
      ...(bucketLabels === 'float' ? { metric_relabel_configs: FLOAT_LE } : {}),
    })),
  });
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  const body = (await res.json()) as { status: string; data: T; error?: string; errorType?: string };
  if (body.status !== 'success') throw new Error(`prometheus ${url}: ${body.errorType ?? ''} ${body.error ?? res.status}`);
  return body.data;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts Prometheus scraping `targets` every `scrapeIntervalS` seconds (default 1), storing bucket
 * bounds as `bucketLabels` says (default `as-scraped`), evaluating `ruleFiles` (absolute paths)
 * every second, and resolves
 * once it answers `/-/ready`. Throws if the binary is missing or it is not ready within 20 s
 * (the error carries its stderr).
 */
export async function startPrometheus(
  targets: readonly ScrapeTarget[],
  options: { scrapeIntervalS?: number; bin?: string; bucketLabels?: BucketLabels; ruleFiles?: readonly string[] } = {},
): Promise<RunningPrometheus> {
  const bin = options.bin ?? findPrometheus();
  if (!bin) throw new Error('prometheus binary not found (apt-get install prometheus, or set PROMETHEUS_BIN)');
  const dir = mkdtempSync(join(tmpdir(), 'aap-triage-prom-'));
  const configPath = join(dir, 'prometheus.yml');
  writeFileSync(configPath, configYaml(targets, options.scrapeIntervalS ?? 1, options.bucketLabels ?? 'as-scraped', options.ruleFiles ?? []));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let stderr = '';
  const child: ChildProcess = spawn(
    bin,
    [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    stderr = (stderr + s).slice(-8_000);
  });
  let exited = false;
  const exitedP = new Promise<void>((resolve) => child.once('exit', () => {
    exited = true;
    resolve();
  }));

  const stop = async (): Promise<void> => {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exitedP;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`prometheus exited before it was ready:\n${stderr}`);
    }
    try {
      const res = await fetch(`${url}/-/ready`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready after 20 s:\n${stderr}`);
    }
    await sleep(100);
  }

  const query = async (expr: string): Promise<PromSeries[]> => {
    const data = await getJson<{ resultType: string; result: PromSeries[] | [number, string] }>(
      `${url}/api/v1/query?query=${encodeURIComponent(expr)}`,
    );
    if (data.resultType === 'scalar' || data.resultType === 'string') {
      return [{ metric: {}, value: data.result as [number, string] }];
    }
    return data.result as PromSeries[];
  };

  const labelValues = (label: string, match: string): Promise<string[]> =>
    getJson<string[]>(`${url}/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(match)}`);

  const waitForScrapes = async (scrapes: number, timeoutMs = 20_000): Promise<void> => {
    const jobs = targets.map((t) => t.job);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const counts = await query(`count_over_time(up[10m])`);
      const ups = await query(`up`);
      const ok = jobs.every((job) => {
        const c = counts.find((s) => s.metric.job === job);
        const u = ups.find((s) => s.metric.job === job);
        return c !== undefined && Number(c.value[1]) >= scrapes && u?.value[1] === '1';
      });
      if (ok) return;
      if (Date.now() > until) {
        const t = await getJson<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string }[] }>(
          `${url}/api/v1/targets`,
        );
        const errs = t.activeTargets.map((a) => `${a.labels.job}: ${a.health} ${a.lastError}`).join('; ');
        throw new Error(`targets not scraped ${scrapes} times within ${timeoutMs} ms: ${errs}`);
      }
      await sleep(250);
    }
  };

  return { url, query, labelValues, waitForScrapes, stop };
}
