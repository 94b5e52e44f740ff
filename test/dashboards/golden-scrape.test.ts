// The golden scrape (issue 8 "Export"): the exact Prometheus names, types and label sets aap-triage
// exports through @opentelemetry/exporter-prometheus, fixed after real traffic — the demo's
// instrumented dealer agents driven by its buyer simulator — and the rule that the dashboard uses
// only these names (and that each also exists under the OTLP → Collector → Prometheus naming).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_FLAGS } from '../../src/protocol/error-event.js';
import { METRICS, RETRY_FLAG_NONE } from '../../src/instrument/attributes.js';
import { dataPanels, loadDashboard, metricRefs, refMatches, substitute, variableQuery } from './dashboard-model.js';
import { startInstrumentedDemo, type InstrumentedDemo } from './demo-traffic.js';
import { mergeExpositions, type Family } from './exposition.js';
import { buildRules } from '../../dashboards/build-rules.mjs';

type PromType = 'counter' | 'gauge' | 'histogram';

interface GoldenFamily {
  /** OpenTelemetry instrument name and UCUM unit (attributes.ts). */
  otel: string;
  unit: string;
  /** Prometheus family name as this exporter writes it, and its type. */
  family: string;
  type: PromType;
  /** Labels on every sample (besides otel_scope_name, otel_scope_version and a histogram's le). */
  always: string[];
  /** Labels present on some samples only (absent when the call had no value for them). */
  sometimes: string[];
}

// The golden list. @opentelemetry/exporter-prometheus 0.223: `.` → `_`, `_total` on monotonic
// counters, no unit suffix.
const GOLDEN: GoldenFamily[] = [
  {
    otel: 'rpc.server.call.duration', unit: 's', family: 'rpc_server_call_duration', type: 'histogram',
    always: ['rpc_method', 'aap_protocol', 'rpc_system_name'], sometimes: ['aap_skill', 'error_type', 'rpc_status_code'],
  },
  {
    otel: 'aap.server.errors', unit: '{error}', family: 'aap_server_errors_total', type: 'counter',
    always: ['rpc_method', 'aap_protocol', 'error_type', 'aap_error_code'], sometimes: ['aap_skill', 'aap_error_retryable'],
  },
  {
    otel: 'aap.server.retries', unit: '{retry}', family: 'aap_server_retries_total', type: 'counter',
    always: ['rpc_method', 'aap_protocol', 'aap_retry_flag'], sometimes: ['aap_skill'],
  },
  {
    otel: 'aap.server.request.attempts', unit: '{attempt}', family: 'aap_server_request_attempts', type: 'histogram',
    always: ['rpc_method', 'aap_protocol'], sometimes: ['aap_skill'],
  },
  {
    otel: 'aap.conformance.violations', unit: '{violation}', family: 'aap_conformance_violations_total', type: 'counter',
    always: ['aap_protocol', 'aap_conformance_rule'], sometimes: [],
  },
  {
    otel: 'aap.audit.records', unit: '{record}', family: 'aap_audit_records_total', type: 'counter',
    always: ['aap_audit_outcome'], sometimes: [],
  },
  { otel: 'aap.audit.queue.size', unit: '{record}', family: 'aap_audit_queue_size', type: 'gauge', always: [], sometimes: [] },
];
// The scope's schema URL is the semconv version the names follow (issue 13).
const SCOPE_LABELS = ['otel_scope_name', 'otel_scope_version', 'otel_scope_schema_url'];

/** Series names a family yields. */
function seriesNames(family: string, type: PromType): string[] {
  return type === 'histogram' ? [`${family}_bucket`, `${family}_sum`, `${family}_count`] : [family];
}

/**
 * The name the Prometheus `otlptranslator` rules give an instrument with suffixes on (the
 * Collector's prometheus / prometheusremotewrite exporters, Prometheus's OTLP receiver):
 * non-alphanumerics split tokens, the unit word is appended unless already a token (a `{…}`
 * annotation adds nothing), counters end in one `_total`. Written from the rules, independently
 * of the SDK exporter.
 */
function collectorFamily(otel: string, unit: string, type: PromType): string {
  const tokens = otel.split(/[^a-zA-Z0-9]+/).filter((t) => t.length > 0);
  const unitWords: Record<string, string> = { s: 'seconds', ms: 'milliseconds', By: 'bytes', '1': '' };
  const word = unit.replace(/\{[^}]*\}/g, '') === '' ? '' : (unitWords[unit] ?? unit);
  if (word && !tokens.includes(word)) tokens.push(word);
  if (type === 'counter') return [...tokens.filter((t) => t !== 'total'), 'total'].join('_');
  return tokens.join('_');
}

let demo: InstrumentedDemo;
let families: Map<string, Family>;

beforeAll(async () => {
  demo = await startInstrumentedDemo();
  await demo.runTraffic(6_000);
  families = mergeExpositions((await demo.scrape()).values());
}, 60_000);

afterAll(async () => {
  await demo?.close();
});

const ours = (): Family[] => [...families.values()].filter((f) => f.name !== 'target_info');

describe('golden scrape of @opentelemetry/exporter-prometheus after demo traffic', () => {
  it('exports exactly the golden metric families, with their types', () => {
    const got = Object.fromEntries(ours().map((f) => [f.name, f.type]));
    const want = Object.fromEntries(GOLDEN.map((g) => [g.family, g.type]));
    expect(got).toEqual(want);
    for (const g of GOLDEN) {
      const names = new Set(families.get(g.family)?.samples.map((s) => s.name));
      expect([...names].sort(), g.family).toEqual(seriesNames(g.family, g.type).sort());
    }
  });

  it('has one golden family for each instrument in src/instrument/attributes.ts', () => {
    const instruments = Object.values(METRICS).map((m) => `${m.name} ${m.unit}`).sort();
    expect(GOLDEN.map((g) => `${g.otel} ${g.unit}`).sort()).toEqual(instruments);
  });

  it('writes _total once on counters, no unit suffix, and target_info with service_name', () => {
    const all = [...families.values()].flatMap((f) => f.samples.map((s) => s.name));
    expect(all.filter((n) => n.includes('_total_total'))).toEqual([]);
    expect(all.filter((n) => /_seconds(_|$)/.test(n))).toEqual([]);
    for (const g of GOLDEN) {
      expect(g.family.endsWith('_total'), g.family).toBe(g.type === 'counter');
      expect(g.family).toBe(g.otel.replace(/[^a-zA-Z0-9]+/g, '_') + (g.type === 'counter' ? '_total' : ''));
    }
    const services = families.get('target_info')?.samples.map((s) => s.labels.service_name).sort();
    expect(services).toEqual(['demo-motors-aap', 'demo-motors-dmc12']);
  });

  it('gives every sample exactly the golden label set: the always labels, some of the sometimes labels, and the scope', () => {
    for (const g of GOLDEN) {
      const fam = families.get(g.family);
      expect(fam?.samples.length ?? 0, g.family).toBeGreaterThan(0);
      const seen = new Set<string>();
      for (const s of fam?.samples ?? []) {
        const names = Object.keys(s.labels);
        expect(s.labels.otel_scope_name).toBe('aap-triage');
        if (g.type === 'histogram') expect(names.includes('le'), s.name).toBe(s.name.endsWith('_bucket'));
        const own = names.filter((n) => n !== 'le' && !SCOPE_LABELS.includes(n));
        for (const a of g.always) expect(own, `${s.name} ${JSON.stringify(s.labels)}`).toContain(a);
        for (const n of own) expect([...g.always, ...g.sometimes], `${s.name} has unexpected label ${n}`).toContain(n);
        own.forEach((n) => seen.add(n));
        for (const n of SCOPE_LABELS) expect(names, s.name).toContain(n);
      }
      expect([...seen].sort(), g.family).toEqual([...g.always, ...g.sometimes].sort());
    }
  });

  it('uses the bucket boundaries of the instruments: semconv RPC buckets in seconds, attempts 1..5', () => {
    const les = (family: string): number[] =>
      [...new Set(families.get(family)?.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => s.labels.le))]
        .map((v) => (v === '+Inf' ? Infinity : Number(v)))
        .sort((a, b) => a - b);
    expect(les('rpc_server_call_duration')).toEqual([...METRICS.callDuration.buckets, Infinity]);
    expect(les('aap_server_request_attempts')).toEqual([1, 2, 3, 4, 5, Infinity]);
  });

  it('puts only bounded values in labels', () => {
    const values = (family: string, label: string): string[] =>
      [...new Set(families.get(family)?.samples.map((s) => s.labels[label]).filter((v): v is string => v !== undefined))].sort();
    expect(values('aap_audit_records_total', 'aap_audit_outcome')).toEqual(['dropped', 'failed', 'written']);
    for (const f of values('aap_server_retries_total', 'aap_retry_flag')) expect([RETRY_FLAG_NONE, ...RETRY_FLAGS]).toContain(f);
    for (const p of values('aap_server_errors_total', 'aap_protocol')) expect(['aap', 'a2a', 'dmc12', 'jsonrpc']).toContain(p);
    expect(values('aap_server_errors_total', 'aap_error_retryable')).toEqual(['false', 'true']);
    expect(values('rpc_server_call_duration', 'rpc_system_name')).toEqual(['jsonrpc']);
    // The demo's traffic: errors from both dealer agents, and the codes of the two AAP buyers that
    // misbehave from their first call (sloppy-sam's invalid search, hammering-harry's rate limit).
    const protocols = values('aap_server_errors_total', 'aap_protocol');
    expect(protocols).toContain('aap');
    expect(protocols).toContain('dmc12');
    const codes = values('aap_server_errors_total', 'aap_error_code');
    for (const c of ['SCHEMA_VALIDATION_FAILED', 'RATE_LIMITED']) expect(codes).toContain(c);
  });
});

/**
 * Series Prometheus writes itself, not the exporter: `ALERTS` (the dashboard's "Firing alerts"
 * panel) and `up` (AapTriageTargetDown). Recording-rule names (with `:`) are the rules' own.
 */
const PROMETHEUS_OWN = new Set(['ALERTS', 'up']);
const exporterRefs = (expr: string) => metricRefs(expr).filter((r) => r.kind === 'regex' || (!PROMETHEUS_OWN.has(r.name) && !r.name.includes(':')));

describe('dashboard names', () => {
  const { dashboard } = loadDashboard();
  const exprs = dataPanels(dashboard).flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `${p.title} ${t.refId}`, expr: substitute(t.expr, { job: '.+', instance: '.+', protocol: '.*', skill: '.*' }) })),
  );
  const variableExprs = dashboard.templating.list
    .map((v) => variableQuery(v))
    .filter((q): q is string => typeof q === 'string' && q.startsWith('label_values('))
    .map((q) => ({ where: `variable ${q}`, expr: substitute(q.replace(/^label_values\((.*),\s*\w+\)$/, '$1'), { job: '.+', instance: '.+', protocol: '.*' }) }));

  it('uses only metric names in the golden scrape: every reference in every panel and variable query matches one', () => {
    const scraped = [...families.values()].flatMap((f) => f.samples.map((s) => s.name));
    const golden = GOLDEN.flatMap((g) => seriesNames(g.family, g.type));
    for (const { where, expr } of [...exprs, ...variableExprs]) {
      expect(metricRefs(expr).length, where).toBeGreaterThan(0);
      for (const ref of exporterRefs(expr)) {
        expect(golden.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} not in the golden list`).toBe(true);
        expect(scraped.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} not in this scrape`).toBe(true);
      }
    }
  });

  it('also finds every referenced metric under the OTLP → Collector → Prometheus names', () => {
    const collector = GOLDEN.flatMap((g) => seriesNames(collectorFamily(g.otel, g.unit, g.type), g.type));
    expect(collector).toContain('rpc_server_call_duration_seconds_bucket');
    expect(collector).toContain('aap_server_errors_total');
    for (const { where, expr } of [...exprs, ...variableExprs]) {
      for (const ref of exporterRefs(expr)) {
        expect(collector.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} has no Collector-path name`).toBe(true);
      }
    }
  });
});

describe('rule names (dashboards/aap-triage-rules.yml, issue 30)', () => {
  const { recording, alerts } = buildRules();
  const exprs = [...recording.map((r) => ({ where: r.record, expr: r.expr })), ...alerts.map((a) => ({ where: a.alert, expr: a.expr }))];
  const recorded = new Set(recording.map((r) => r.record));

  it('use only golden metric names (in this scrape and under the Collector path), their own recording rules, and up', () => {
    const scraped = [...families.values()].flatMap((f) => f.samples.map((s) => s.name));
    const golden = GOLDEN.flatMap((g) => seriesNames(g.family, g.type));
    const collector = GOLDEN.flatMap((g) => seriesNames(collectorFamily(g.otel, g.unit, g.type), g.type));
    for (const { where, expr } of exprs) {
      for (const ref of metricRefs(expr)) {
        if (ref.kind === 'name' && ref.name.includes(':')) {
          expect(recorded.has(ref.name), `${where}: ${ref.name} is not a recording rule of the file`).toBe(true);
          continue;
        }
        if (ref.kind === 'name' && PROMETHEUS_OWN.has(ref.name)) continue;
        expect(golden.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} not in the golden list`).toBe(true);
        expect(scraped.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} not in this scrape`).toBe(true);
        expect(collector.some((n) => refMatches(ref, n)), `${where}: ${JSON.stringify(ref)} has no Collector-path name`).toBe(true);
      }
    }
  });
});
