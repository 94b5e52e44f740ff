// Static checks on dashboards/aap-triage-overview.json (issue 8 "Tests": the lint test). What
// makes a dashboard load the same way by file provisioning, the HTTP API and the import screen:
// no `${DS_…}` import inputs, one `datasource` variable used everywhere.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildRules } from '../../dashboards/build-rules.mjs';
import {
  allPanels,
  dataPanels,
  DASHBOARD_PATH,
  leMatchesBothSpellings,
  lintExpr,
  loadDashboard,
  metricRefs,
  selectors,
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

  it('declares a prometheus datasource variable and job, instance, protocol and skill query variables over it', () => {
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    const ds = vars.get('datasource');
    expect(ds?.type).toBe('datasource');
    expect(ds?.query).toBe('prometheus');
    for (const name of ['job', 'instance', 'protocol', 'skill']) {
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
      'call duration p95 by method',
      'error ratio by method',
    ]) {
      expect(titles).toContain(want);
    }
  });

  it('has a Firing alerts panel over Prometheus\'s ALERTS whose name matcher covers every alert of dashboards/aap-triage-rules.yml', () => {
    const expr = panels.find((p) => p.title === 'Firing alerts')?.targets?.[0]?.expr ?? '';
    expect(expr).toContain('ALERTS{alertstate="firing"');
    const names = new RegExp(`^(?:${/alertname=~"([^"]+)"/.exec(expr)?.[1] ?? ''})$`);
    for (const a of buildRules().alerts) expect(names.test(a.alert), a.alert).toBe(true);
    expect(names.test('NodeDown')).toBe(false);
  });

  it('gives each target a unique refId and an expression that names a metric and substitutes cleanly', () => {
    for (const p of panels) {
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
      for (const t of p.targets ?? []) {
        const expr = substitute(t.expr, { job: '.+', instance: '.+', protocol: '.*', skill: '.*' });
        expect(expr).not.toMatch(/\$|\[\[/);
        expect(metricRefs(expr).length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('panel expressions (issue 18)', () => {
  const targets = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${p.title} ${t.refId}`, expr: t.expr })));

  it('pass the PromQL lint: le matchers hold on Prometheus 2 and 3, counters only inside rate/increase, quantiles over sum by (le)', () => {
    expect(targets.length).toBeGreaterThanOrEqual(17);
    expect(targets.flatMap((t) => lintExpr(t.expr).map((f) => `${t.where}: ${f}`))).toEqual([]);
  });

  it('match the first-attempt bucket in the retry ratio and amplification panels under both spellings', () => {
    for (const title of ['Retry ratio', 'Amplification (attempts per distinct request)']) {
      const expr = panels.find((p) => p.title === title)?.targets?.[0]?.expr ?? '';
      const le = /\ble=~"([^"]*)"/.exec(expr)?.[1] ?? '';
      expect(new RegExp(`^(?:${le})$`).test('1'), title).toBe(true);
      expect(new RegExp(`^(?:${le})$`).test('1.0'), title).toBe(true);
      expect(new RegExp(`^(?:${le})$`).test('2'), title).toBe(false);
    }
  });

  it('colour the attempt buckets 4, 5 and +Inf whether Prometheus names them 4 or 4.0', () => {
    const bars = panels.find((p) => p.title === 'Attempts histogram') as unknown as {
      fieldConfig: { overrides: { matcher: { id: string; options: string } }[] };
    };
    const matchers = bars.fieldConfig.overrides.map((o) => o.matcher);
    expect(matchers.length).toBe(3);
    for (const m of matchers) expect(m.id).toBe('byRegexp');
    const colouredBy = (name: string): number => matchers.filter((m) => new RegExp(m.options).test(name)).length;
    for (const name of ['4', '4.0', '5', '5.0', '+Inf']) expect(colouredBy(name), name).toBe(1);
    for (const name of ['1', '1.0', '2', '3.0', '14', '45']) expect(colouredBy(name), name).toBe(0);
  });

  it('takes the error ratios from the duration histogram: calls with error.type over all calls', () => {
    for (const title of ['Error ratio', 'Error ratio by method']) {
      const expr = panels.find((p) => p.title === title)?.targets?.[0]?.expr ?? '';
      expect(expr, title).toContain('error_type!=""');
      expect(expr, title).toMatch(/rpc_server_call_duration\(_seconds\)\?_count/);
      expect(expr, title).not.toContain('aap_server_errors_total');
    }
  });

  it('has a latency panel by method: histogram_quantile over sum by (le, rpc_method)', () => {
    const expr = panels.find((p) => p.title === 'Call duration p95 by method')?.targets?.[0]?.expr ?? '';
    expect(expr).toMatch(/^histogram_quantile\(0\.95, sum by \(le, rpc_method\) \(rate\(/);
  });

  it('lists what it needs in __requires: Grafana 10.4, the Prometheus datasource and every panel type it uses', () => {
    const requires = (dashboard as unknown as { __requires: { type: string; id: string; version: string }[] }).__requires;
    expect(requires).toContainEqual(expect.objectContaining({ type: 'grafana', id: 'grafana', version: '10.4.0' }));
    expect(requires).toContainEqual(expect.objectContaining({ type: 'datasource', id: 'prometheus' }));
    const types = new Set(panels.map((p) => p.type));
    expect(requires.filter((r) => r.type === 'panel').map((r) => r.id).sort()).toEqual([...types].sort());
  });
});

/**
 * The rules of grafana/dashboard-linter (lint/rule_*.go) that apply to a Prometheus dashboard,
 * re-implemented here (the linter is a Go tool; npm and Debian have no package of it), honouring
 * the exclusions of the `.lint` file beside the dashboard as the linter does.
 */
describe('grafana/dashboard-linter rules', () => {
  interface Exclusion {
    reason: string;
    entries?: { dashboard?: string; panel?: string }[];
  }
  const lintFile = JSON.parse(readFileSync(fileURLToPath(new URL('../../dashboards/.lint', import.meta.url)), 'utf8')) as { exclusions: Record<string, Exclusion> };
  const excluded = (rule: string, panel: string): boolean => {
    const ex = lintFile.exclusions[rule];
    if (!ex) return false;
    return !ex.entries || ex.entries.some((e) => (e.dashboard === undefined || e.dashboard === dashboard.title) && (e.panel === undefined || e.panel === panel));
  };
  type FullVariable = { name: string; type: string; label?: string; multi?: boolean; allValue?: string; datasource?: { uid?: string }; query?: unknown };
  const variable = (name: string) => (dashboard.templating.list as FullVariable[]).find((v) => v.name === name);

  it('gives every exclusion a reason and names only panels that exist', () => {
    for (const [rule, ex] of Object.entries(lintFile.exclusions)) {
      expect(ex.reason.length, rule).toBeGreaterThan(20);
      for (const e of ex.entries ?? []) expect(panels.map((p) => p.title), rule).toContain(e.panel);
    }
  });

  it('template-datasource-rule: a templated Prometheus datasource', () => {
    expect(variable('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
  });

  it.each(['job', 'instance'])('template-%s-rule: a multi-select query variable over $datasource, labelled, All = .+', (name) => {
    const v = variable(name);
    expect(v, name).toBeDefined();
    expect(['$datasource', '${datasource}']).toContain(v?.datasource?.uid);
    expect(v).toMatchObject({ type: 'query', label: name[0]!.toUpperCase() + name.slice(1), multi: true, allValue: '.+' });
  });

  it('panel-datasource-rule: every panel uses the templated datasource', () => {
    for (const p of panels) expect(['$datasource', '${datasource}'], p.title).toContain((p.datasource as { uid?: string }).uid);
  });

  it('panel-units-rule and panel-title-description-rule: a unit, a title and a description on every panel', () => {
    for (const p of panels) {
      expect(p.fieldConfig?.defaults?.unit, p.title).toBeTruthy();
      expect(p.title.trim().length).toBeGreaterThan(0);
      expect(p.description?.trim().length ?? 0, p.title).toBeGreaterThan(0);
    }
  });

  /** The range of each rate()/irate() call of `expr` (strings masked, so `[.]` in a regex is not one). */
  const rateRanges = (expr: string): string[] => {
    const masked = expr.replace(/"(?:[^"\\]|\\.)*"/g, (m) => `"${' '.repeat(m.length - 2)}"`);
    const stack: string[] = [];
    const out: string[] = [];
    for (let i = 0; i < masked.length; i++) {
      const c = masked[i];
      if (c === '(') stack.push(/([A-Za-z_]+)\s*$/.exec(masked.slice(0, i))?.[1] ?? '');
      else if (c === ')') stack.pop();
      else if (c === '[') {
        const end = masked.indexOf(']', i);
        if (['rate', 'irate'].includes(stack[stack.length - 1] ?? '')) out.push(masked.slice(i + 1, end));
        i = end;
      }
    }
    return out;
  };

  it('target-rate-interval-rule: every rate() and irate() uses $__rate_interval', () => {
    expect(rateRanges('sum(rate(a{x=~"1[.]0"}[5m])) / sum(increase(b[$__range]))')).toEqual(['5m']);
    const bad: string[] = [];
    for (const p of panels) {
      for (const t of p.targets ?? []) for (const r of rateRanges(t.expr)) if (r !== '$__rate_interval' && !excluded('target-rate-interval-rule', p.title)) bad.push(`${p.title}: [${r}]`);
    }
    expect(bad).toEqual([]);
    expect(panels.flatMap((p) => (p.targets ?? []).flatMap((t) => rateRanges(t.expr))).length).toBeGreaterThan(10);
  });

  it.each(['job', 'instance'])('target-%s-rule: every selector of every target matches %s=~"$%s"', (label) => {
    const missing: string[] = [];
    for (const p of panels) {
      if (excluded(`target-${label}-rule`, p.title)) continue;
      for (const t of p.targets ?? []) {
        for (const sel of selectors(t.expr)) {
          const text = t.expr.slice(sel.start, sel.end);
          if (!text.includes(`${label}=~"$${label}"`)) missing.push(`${p.title} ${t.refId}: ${text}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('lintExpr', () => {
  it('flags an integer le literal, and accepts a matcher for both spellings', () => {
    expect(lintExpr('rate(x_bucket{le="1"}[1m])')).toEqual([expect.stringContaining('le="1"')]);
    expect(lintExpr('rate(x_bucket{le=~"1|2"}[1m])')).toHaveLength(1);
    expect(lintExpr('rate(x_bucket{le="+Inf"}[1m])')).toEqual([]);
    expect(lintExpr('rate(x_bucket{le=~"1|1[.]0"}[1m])')).toEqual([]);
    expect(lintExpr('rate(x_bucket{le=~"1(\\\\.0)?"}[1m])')).toEqual([]);
    expect(leMatchesBothSpellings('=', '0.005')).toBe(true);
  });

  it('flags a counter outside rate or increase, named or by __name__ regex, and not a gauge', () => {
    expect(lintExpr('sum(aap_server_errors_total)')).toEqual(['counter aap_server_errors_total outside rate()/increase()']);
    expect(lintExpr('sum({__name__=~"d(_seconds)?_count", job="a"})')).toHaveLength(1);
    expect(lintExpr('sum(rate(d_count{job="a"}[1m])) / sum(d_sum)')).toEqual(['counter d_sum outside rate()/increase()']);
    expect(lintExpr('sum(increase(x_total{a="b"}[$__range])) or vector(0)')).toEqual([]);
    expect(lintExpr('sum by (instance) (aap_audit_queue_size{job=~"$job"})')).toEqual([]);
  });

  it('flags histogram_quantile not over sum by (le)', () => {
    expect(lintExpr('histogram_quantile(0.9, rate(d_bucket[1m]))')).toHaveLength(1);
    expect(lintExpr('histogram_quantile(0.9, sum by (job) (rate(d_bucket[1m])))')).toHaveLength(1);
    expect(lintExpr('histogram_quantile(0.9, sum by (le, rpc_method) (rate(d_bucket[1m])))')).toEqual([]);
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
