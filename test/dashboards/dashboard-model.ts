/**
 * Reading a Grafana dashboard JSON the way the dashboard tests need it: every panel (rows
 * flattened), every PromQL target, template variables substituted, and the metric names an
 * expression selects. Pure functions; no I/O except `loadDashboard`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the shipped dashboard. */
export const DASHBOARD_PATH = fileURLToPath(new URL('../../dashboards/aap-triage-overview.json', import.meta.url));

/** The parts of a Grafana panel the tests read. */
export interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: unknown;
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
  panels?: Panel[];
}

/** A Prometheus query target of a panel. */
export interface Target {
  refId: string;
  expr: string;
  datasource?: unknown;
  instant?: boolean;
}

/** A template variable. */
export interface Variable {
  name: string;
  type: string;
  query?: unknown;
  datasource?: unknown;
}

/** The parts of a Grafana dashboard the tests read. */
export interface Dashboard {
  schemaVersion: number;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
  __inputs?: unknown;
}

/** Reads and parses the dashboard file; throws a SyntaxError on invalid JSON. */
export function loadDashboard(path: string = DASHBOARD_PATH): { raw: string; dashboard: Dashboard } {
  const raw = readFileSync(path, 'utf8');
  return { raw, dashboard: JSON.parse(raw) as Dashboard };
}

/** Every panel, with the panels of rows (collapsed or not) flattened after their row. */
export function allPanels(dashboard: Dashboard): Panel[] {
  const out: Panel[] = [];
  const walk = (panels: Panel[]): void => {
    for (const p of panels) {
      out.push(p);
      if (Array.isArray(p.panels)) walk(p.panels);
    }
  };
  walk(dashboard.panels);
  return out;
}

/** Panels that show data (everything but rows). */
export function dataPanels(dashboard: Dashboard): Panel[] {
  return allPanels(dashboard).filter((p) => p.type !== 'row');
}

/** The query string of a query variable (`query` may be a string or `{ query }`). */
export function variableQuery(v: Variable): string | undefined {
  if (typeof v.query === 'string') return v.query;
  if (v.query && typeof v.query === 'object' && typeof (v.query as { query?: unknown }).query === 'string') {
    return (v.query as { query: string }).query;
  }
  return undefined;
}

/** Values for template variables; Grafana built-ins are given defaults a test Prometheus can answer. */
export type Substitutions = Record<string, string>;

/** Built-in Grafana interval variables, as a short test run can answer them (1 s scrapes). */
export const BUILTIN_SUBSTITUTIONS: Substitutions = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '1m',
};

/**
 * Replaces `$name`, `${name}` and `[[name]]` with the given values (Grafana's three spellings).
 * Throws when a variable is left without a value, so a typo cannot pass silently.
 */
export function substitute(expr: string, values: Substitutions): string {
  const all = { ...BUILTIN_SUBSTITUTIONS, ...values };
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]/g, (m, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    const v = all[name];
    if (v === undefined) throw new Error(`no value for template variable ${m} in: ${expr}`);
    return v;
  });
}

const PROMQL_KEYWORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'atan2',
  'inf', 'nan',
]);

/** A metric reference in an expression: an exact name, or a `__name__` regex matcher. */
export type MetricRef = { kind: 'name'; name: string } | { kind: 'regex'; pattern: string };

/**
 * The metrics a PromQL expression selects: bare metric names, and `__name__="…"` / `__name__=~"…"`
 * matchers. Function names, aggregation keywords, label names (inside `{}` and `by (…)`) and
 * string literals are not metric names. Good enough for the dashboard's own expressions; it is
 * not a full PromQL parser.
 */
export function metricRefs(expr: string): MetricRef[] {
  const refs: MetricRef[] = [];
  for (const m of expr.matchAll(/__name__\s*(=~|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
    const op = m[1];
    const value = m[2] ?? '';
    refs.push(op === '=~' ? { kind: 'regex', pattern: value } : { kind: 'name', name: value });
  }
  // Blank out strings, label matchers and grouping clauses, then what is left that looks like an
  // identifier and is not a call or a keyword is a metric name.
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, '[]');
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const after = stripped.slice((m.index ?? 0) + word.length).trimStart();
    if (after.startsWith('(')) continue; // function or aggregation
    if (PROMQL_KEYWORDS.has(word.toLowerCase())) continue;
    refs.push({ kind: 'name', name: word });
  }
  return refs;
}

/** Whether a metric reference matches a name (a `__name__` regex is anchored, as in PromQL). */
export function refMatches(ref: MetricRef, name: string): boolean {
  return ref.kind === 'name' ? ref.name === name : new RegExp(`^(?:${ref.pattern})$`).test(name);
}
