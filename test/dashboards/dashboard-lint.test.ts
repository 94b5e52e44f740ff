// Static checks on dashboards/aap-triage-overview.json (issue 8 "Tests": the lint test). What
// makes a dashboard load the same way by file provisioning, the HTTP API and the import screen:
// no `${DS_…}` import inputs, one `datasource` variable used everywhere.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  allPanels,
  dataPanels,
  DASHBOARD_PATH,
  loadDashboard,
  metricRefs,
  substitute,
  variableQuery,
} from './dashboard-model.js';

const DATASOURCE_REF = { type: 'prometheus', uid: '${datasource}' };
const { raw, dashboard } = loadDashboard(DASHBOARD_PATH);
const panels = dataPanels(dashboard);
const docs = readFileSync(fileURLToPath(new URL('../../docs/dashboards.md', import.meta.url)), 'utf8');

/** Panels whose queries compute a per-second rate or a ratio of rates. */
const isRatePanel = (p: (typeof panels)[number]): boolean => (p.targets ?? []).some((t) => /\brate\(/.test(t.expr));
/** Panels that show a duration (quantiles over the call-duration histogram). */
const isDurationPanel = (p: (typeof panels)[number]): boolean =>
  (p.targets ?? []).some((t) => /histogram_quantile/.test(t.expr) && /call_duration/.test(t.expr));

describe('dashboards/aap-triage-overview.json', () => {
  it('is valid JSON with a pinned integer schemaVersion that docs/dashboards.md names with the minimum Grafana version', () => {
    expect(() => JSON.parse(raw) as unknown).not.toThrow();
    expect(Number.isInteger(dashboard.schemaVersion)).toBe(true);
    expect(dashboard.schemaVersion).toBe(39);
    expect(docs).toContain(`schemaVersion ${dashboard.schemaVersion}`);
    expect(docs).toMatch(/minimum Grafana version[^\n]*\b10\.4\b/i);
  });

  it('is exactly what dashboards/build-overview.mjs builds', () => {
    const script = fileURLToPath(new URL('../../dashboards/build-overview.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('has no import inputs: no __inputs and no ${DS_ string anywhere', () => {
    expect(dashboard.__inputs).toBeUndefined();
    expect(raw).not.toContain('__inputs');
    expect(raw).not.toContain('${DS_');
  });

  it('gives every panel, rows included, a unique id', () => {
    const ids = allPanels(dashboard).map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares a prometheus datasource variable and service, protocol and skill query variables over it', () => {
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    const ds = vars.get('datasource');
    expect(ds?.type).toBe('datasource');
    expect(ds?.query).toBe('prometheus');
    for (const name of ['service', 'protocol', 'skill']) {
      const v = vars.get(name);
      expect(v, name).toBeDefined();
      expect(v?.type).toBe('query');
      expect(v?.datasource).toEqual(DATASOURCE_REF);
      expect(variableQuery(v!)).toMatch(/^label_values\(.+,\s*\w+\)$/);
    }
  });

  it('makes every panel and every target use the datasource variable', () => {
    expect(panels.length).toBeGreaterThanOrEqual(10);
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual(DATASOURCE_REF);
      expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource, `${p.title} ${t.refId}`).toEqual(DATASOURCE_REF);
    }
  });

  it('sets a unit on every data panel: seconds on duration panels, a throughput or ratio unit on rate panels', () => {
    for (const p of panels) {
      const unit = p.fieldConfig?.defaults?.unit;
      expect(unit, p.title).toBeTruthy();
      if (isDurationPanel(p)) expect(unit, p.title).toBe('s');
      else if (isRatePanel(p)) expect(['cps', 'reqps', 'ops', 'percentunit', 'none'], p.title).toContain(unit);
    }
    expect(panels.filter(isDurationPanel).length).toBeGreaterThan(0);
  });

  it('describes every panel: what it shows and what to do when it is red', () => {
    for (const p of panels) {
      expect(p.description?.length ?? 0, p.title).toBeGreaterThan(80);
      expect(p.description, p.title).toMatch(/\bred\b/i);
    }
  });

  it('has the panels issue 8 asks for', () => {
    const titles = panels.map((p) => p.title.toLowerCase());
    for (const want of [
      'error rate by code',
      'retryable vs terminal errors',
      'errors by skill',
      'call duration p50 / p95 / p99',
      'retry ratio',
      'attempts histogram',
      'retry violations by flag',
      'conformance violations by rule',
      'audit records written, dropped and failed',
      'audit queue size',
    ]) {
      expect(titles).toContain(want);
    }
  });

  it('gives each target a unique refId and an expression that names a metric and substitutes cleanly', () => {
    for (const p of panels) {
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
      for (const t of p.targets ?? []) {
        const expr = substitute(t.expr, { service: '.*', protocol: '.*', skill: '.*' });
        expect(expr).not.toMatch(/\$|\[\[/);
        expect(metricRefs(expr).length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('metricRefs', () => {
  it('finds bare metric names and __name__ matchers, not functions, labels or keywords', () => {
    const refs = metricRefs(
      'sum by (le, aap_skill) (rate({__name__=~"a_(b)?_bucket", job=~".*"}[1m])) / on (job) sum(rate(c_total{x="y"}[1m])) or vector(0)',
    );
    expect(refs).toEqual([
      { kind: 'regex', pattern: 'a_(b)?_bucket' },
      { kind: 'name', name: 'c_total' },
    ]);
  });
});
