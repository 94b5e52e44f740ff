// Every query of the dashboard against a real Prometheus (issue 8 "Tests"): /usr/bin/prometheus
// from the Debian package, started here on a loopback port with a temp config and TSDB, scrapes
// the demo's two instrumented dealer agents every second while the buyer simulator runs; then
// each panel target, template variables substituted as Grafana would, must return at least one
// series, and each variable query must return values. Two servers scrape the same traffic: one
// stores bucket bounds as scraped (`le="1"`, Prometheus 2), one as floats (`le="1.0"`, what
// Prometheus 3 stores), and every check runs against both (issue 18).
//
// Without the binary: fails when CI=true (CI installs it), skips locally with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPanels, loadDashboard, substitute, variableQuery, type Substitutions } from './dashboard-model.js';
import { startInstrumentedDemo, type InstrumentedDemo } from './demo-traffic.js';
import { fileURLToPath } from 'node:url';
import { buildRules } from '../../dashboards/build-rules.mjs';
import { findPrometheus, startPrometheus, type BucketLabels, type RunningPrometheus } from './prometheus.js';

const PROMETHEUS = findPrometheus();
const IN_CI = process.env.CI === 'true';
const MISSING = 'prometheus binary not found: apt-get install prometheus (Debian package), or set PROMETHEUS_BIN';
const runIt = PROMETHEUS !== null || IN_CI;
if (!runIt) console.warn(`skipping test/dashboards/prometheus.test.ts: ${MISSING}`);

const TRAFFIC_MS = 10_000;
const { dashboard } = loadDashboard();
// The rules beside the dashboard, loaded into both servers (issue 30).
const RULE_FILE = fileURLToPath(new URL('../../dashboards/aap-triage-rules.yml', import.meta.url));
const { recording, alerts } = buildRules();
/** Panels that are empty on healthy traffic by design: the firing alerts. */
const EMPTY_WHEN_HEALTHY = new Set(['Firing alerts']);
const targets = dataPanels(dashboard).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })));

let demo: InstrumentedDemo | undefined;
const SPELLINGS: readonly BucketLabels[] = ['as-scraped', 'float'];
const proms = new Map<BucketLabels, RunningPrometheus>();

beforeAll(async () => {
  if (!runIt) return;
  if (!PROMETHEUS) throw new Error(`CI=true but ${MISSING}`);
  demo = await startInstrumentedDemo();
  for (const bucketLabels of SPELLINGS) {
    proms.set(bucketLabels, await startPrometheus(demo.endpoints, { scrapeIntervalS: 1, bin: PROMETHEUS, bucketLabels, ruleFiles: [RULE_FILE] }));
  }
  for (const p of proms.values()) await p.waitForScrapes(1, 15_000);
  await demo.runTraffic(TRAFFIC_MS);
  // Let two more scrapes pick up the end of the traffic.
  await new Promise((r) => setTimeout(r, 2_500));
}, 60_000);

afterAll(async () => {
  for (const p of proms.values()) await p.stop();
  await demo?.close();
});

/** Runs every target with `values`; returns the failures as readable lines. */
async function emptyTargets(prom: RunningPrometheus, values: Substitutions): Promise<string[]> {
  const failures: string[] = [];
  for (const t of targets) {
    const expr = substitute(t.expr, values);
    try {
      const series = await prom.query(expr);
      if (series.length === 0 && !EMPTY_WHEN_HEALTHY.has(t.panel)) failures.push(`${t.panel} ${t.refId}: no series for ${expr}`);
    } catch (err) {
      failures.push(`${t.panel} ${t.refId}: ${(err as Error).message}`);
    }
  }
  return failures;
}


describe.runIf(runIt).each(SPELLINGS)('dashboard queries against a real Prometheus (bucket bounds %s) scraping the instrumented demo', (spelling) => {
  let prom: RunningPrometheus | undefined;
  beforeAll(() => {
    prom = proms.get(spelling);
  });

  it('stores the first attempt bucket as this spelling says', async () => {
    const le = (await prom!.query('aap_server_request_attempts_bucket')).map((s) => s.metric.le);
    expect(le).toContain(spelling === 'float' ? '1.0' : '1');
    expect(le).not.toContain(spelling === 'float' ? '1' : '1.0');
    expect(le).toContain('+Inf');
  });

  it('scraped both dealer agents, as jobs named after their services', async () => {
    const up = await prom!.query('up');
    expect(up.map((s) => `${s.metric.job}=${s.value[1]}`).sort()).toEqual(['demo-motors-aap=1', 'demo-motors-dmc12=1']);
  });

  it('answers every target of every panel with at least one series when every variable is All', async () => {
    expect(targets.length).toBeGreaterThanOrEqual(14);
    expect(await emptyTargets(prom!, { job: '.+', instance: '.+', protocol: '.*', skill: '.*' })).toEqual([]);
  });

  it('answers every target with one job, protocol and skill selected (Grafana escapes single values as regex)', async () => {
    // Grafana interpolates a single value into a =~ matcher regex-escaped: `inventory\.search`,
    // written `inventory\\.search` inside the PromQL string.
    expect(await emptyTargets(prom!, { job: 'demo-motors-aap', instance: '.+', protocol: 'aap', skill: 'inventory\\\\.search' })).toEqual([]);
  });

  it('answers every target with several values selected (Grafana joins them as (a|b))', async () => {
    expect(
      await emptyTargets(prom!, { job: '(demo-motors-aap|demo-motors-dmc12)', instance: '.+', protocol: '(aap|dmc12)', skill: '(inventory\\\\.search|create_reservation)' }),
    ).toEqual([]);
  });

  it('fills the job, instance, protocol and skill variables from label_values over the call metric', async () => {
    const values: Record<string, string[]> = {};
    for (const v of dashboard.templating.list) {
      const q = variableQuery(v);
      const m = q ? /^label_values\((.+),\s*(\w+)\)$/.exec(q) : null;
      if (!m) continue;
      values[v.name] = await prom!.labelValues(m[2] ?? '', substitute(m[1] ?? '', { job: '.+', instance: '.+', protocol: '.*' }));
    }
    expect(values.job).toEqual(['demo-motors-aap', 'demo-motors-dmc12']);
    expect(values.instance?.sort()).toEqual(demo!.endpoints.map((e) => e.address).sort());
    for (const p of ['aap', 'a2a', 'dmc12']) expect(values.protocol).toContain(p);
    expect(values.skill).toContain('inventory.search');
    // …and at least one DMC-12 tool (snake_case; `_OTHER` is not one).
    expect(values.skill?.some((s) => /^[a-z]+(_[a-z]+)+$/.test(s))).toBe(true);
  });

  it('computes sane values: ratios within [0, 1], p50 ≤ p95 ≤ p99, no audit records lost, retries flagged', async () => {
    const all = { job: '.+', instance: '.+', protocol: '.*', skill: '.*' };
    const byTitle = (title: string) => targets.filter((t) => t.panel === title);
    const scalar = async (expr: string): Promise<number> => Number((await prom!.query(substitute(expr, all)))[0]?.value[1]);

    const errorRatio = await scalar(byTitle('Error ratio')[0]!.expr);
    expect(errorRatio).toBeGreaterThan(0);
    expect(errorRatio).toBeLessThanOrEqual(1);
    const retryRatio = await scalar(byTitle('Retry ratio')[0]!.expr);
    expect(retryRatio).toBeGreaterThan(0);
    expect(retryRatio).toBeLessThan(1);
    const [p50, p95, p99] = await Promise.all(byTitle('Call duration p50 / p95 / p99').map((t) => scalar(t.expr)));
    expect(p50).toBeGreaterThan(0);
    expect(p50).toBeLessThanOrEqual(p95!);
    expect(p95).toBeLessThanOrEqual(p99!);
    expect(await scalar(byTitle('Audit records lost')[0]!.expr)).toBe(0);
    const flags = (await prom!.query(substitute(byTitle('Retry violations by flag')[0]!.expr, all))).map((s) => s.metric.aap_retry_flag);
    expect(flags).not.toContain('none');
    expect(flags).toContain('no_backoff');

    const amplification = await scalar(byTitle('Amplification (attempts per distinct request)')[0]!.expr);
    expect(amplification).toBeGreaterThan(1);
    expect(Number.isFinite(amplification)).toBe(true);
    const series = async (title: string) => prom!.query(substitute(byTitle(title)[0]!.expr, all));
    const p95ByMethod = await series('Call duration p95 by method');
    expect(p95ByMethod.map((s) => s.metric.rpc_method)).toEqual(expect.arrayContaining(['SendMessage', 'tools/call']));
    for (const s of p95ByMethod) if (s.value[1] !== 'NaN') expect(Number(s.value[1])).toBeGreaterThan(0);
    const errorsByMethod = await series('Error ratio by method');
    expect(errorsByMethod.map((s) => s.metric.rpc_method)).toEqual(expect.arrayContaining(['SendMessage', 'tools/call']));
    for (const s of errorsByMethod) {
      expect(Number(s.value[1])).toBeGreaterThanOrEqual(0);
      expect(Number(s.value[1])).toBeLessThanOrEqual(1);
    }
  });
});

describe.runIf(runIt).each(SPELLINGS)('the rules of dashboards/aap-triage-rules.yml evaluated by a real Prometheus (bucket bounds %s) over the demo', (spelling) => {
  let prom: RunningPrometheus | undefined;
  beforeAll(() => {
    prom = proms.get(spelling);
  });

  it('loaded every rule, with no evaluation error', async () => {
    const res = (await (await fetch(`${prom!.url}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
    };
    const rules = res.data.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual([...recording.map((r) => r.record), ...alerts.map((a) => a.alert)].sort());
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);
  });

  it('records a series per service for every recording rule (faults only where the demo has them)', async () => {
    for (const r of recording) {
      const jobs = (await prom!.query(r.record)).map((s) => s.metric.job);
      expect(jobs.length, r.record).toBeGreaterThan(0);
    }
    // Ratios within [0, 1], amplification ≥ 1, on both services.
    const errorRatio = await prom!.query('job:rpc_server_call_errors_per_calls:ratio_rate5m');
    expect(errorRatio.map((s) => s.metric.job).sort()).toEqual(['demo-motors-aap', 'demo-motors-dmc12']);
    for (const s of errorRatio) expect(Number(s.value[1])).toBeGreaterThanOrEqual(0);
    for (const s of errorRatio) expect(Number(s.value[1])).toBeLessThanOrEqual(1);
    for (const s of await prom!.query('job:aap_server_request_attempts_per_first_attempt:ratio_rate5m')) expect(Number(s.value[1])).toBeGreaterThanOrEqual(1);
  });

  it("answers every alert's expression, its threshold left out, with at least one series", async () => {
    const measured = (expr: string): string => expr.replace(/ (>|>=|==) [0-9.]+( and .*)?$/, '');
    const empty: string[] = [];
    for (const a of alerts) {
      const expr = measured(a.expr);
      expect(expr, a.alert).not.toBe(a.expr);
      if ((await prom!.query(expr)).length === 0) empty.push(`${a.alert}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });

  it('fires nothing critical on the demo traffic: no audit record lost, both targets up', async () => {
    const critical = await prom!.query('ALERTS{alertname=~"AapTriage.*", severity="critical"}');
    expect(critical).toEqual([]);
  });
});

if (!runIt) it.skip(`real-Prometheus dashboard queries: ${MISSING}`, () => undefined);
