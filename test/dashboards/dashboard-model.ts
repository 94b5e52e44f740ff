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

/** Series that are counters on the wire: `_total`, and a histogram's `_bucket`, `_count`, `_sum`. */
const COUNTER_SUFFIX = /(_total|_bucket|_count|_sum)$/;

/** Whether a metric reference selects counter series (for a `__name__` regex: by how it ends). */
export function isCounterRef(ref: MetricRef): boolean {
  return COUNTER_SUFFIX.test(ref.kind === 'name' ? ref.name : ref.pattern.replace(/[)$]+$/, ''));
}

/** One vector selector of an expression: where it starts and ends, and the metric it names. */
interface Selector {
  start: number;
  end: number;
  ref: MetricRef;
}

/** Same-length masking, so indices into the masked text are indices into the expression. */
const blank = (s: string): string => ' '.repeat(s.length);

/**
 * The vector selectors of an expression, each with its span (`name{…}`, `name`, or `{__name__…}`,
 * the range `[…]` excluded). Same reach as `metricRefs`: the dashboard's own PromQL, not all PromQL.
 */
export function selectors(expr: string): Selector[] {
  const masked = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, (m) => `"${blank(m.slice(2))}"`)
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, blank);
  const out: Selector[] = [];
  const braces = [...masked.matchAll(/\{[^}]*\}/g)].map((m) => ({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
  const braceAt = (i: number): { start: number; end: number } | undefined => braces.find((b) => b.start === i);
  const inBraces = (i: number): boolean => braces.some((b) => i > b.start && i < b.end);
  const inRange = (i: number): boolean => {
    const open = masked.lastIndexOf('[', i);
    return open !== -1 && masked.indexOf(']', open) >= i;
  };
  for (const m of masked.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const i = m.index ?? 0;
    const word = m[0];
    if (inBraces(i) || inRange(i) || /[0-9.]/.test(masked[i - 1] ?? '')) continue;
    const after = masked.slice(i + word.length).trimStart();
    if (after.startsWith('(') || PROMQL_KEYWORDS.has(word.toLowerCase())) continue;
    const b = braceAt(i + word.length);
    out.push({ start: i, end: b ? b.end : i + word.length, ref: { kind: 'name', name: word } });
  }
  for (const b of braces) {
    const prev = masked[b.start - 1] ?? '';
    if (/[A-Za-z0-9_:]/.test(prev)) continue; // belongs to a named selector
    const name = /__name__\s*(=~|=)\s*"((?:[^"\\]|\\.)*)"/.exec(expr.slice(b.start, b.end));
    if (!name) continue;
    const ref: MetricRef = name[1] === '=~' ? { kind: 'regex', pattern: name[2] ?? '' } : { kind: 'name', name: name[2] ?? '' };
    out.push({ start: b.start, end: b.end, ref });
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Whether a bucket-bound matcher value means the same under Prometheus 2 (`le="1"`) and 3
 * (`le="1.0"`, bounds stored as floats; prometheus/prometheus docs/migration.md): for every
 * integer bound 0…100, it matches `N` exactly when it matches `N.0`.
 */
export function leMatchesBothSpellings(op: string, value: string): boolean {
  const isRegex = op === '=~' || op === '!~';
  const matches = (s: string): boolean => (isRegex ? new RegExp(`^(?:${value})$`).test(s) : value === s);
  for (let n = 0; n <= 100; n++) if (matches(String(n)) !== matches(`${n}.0`)) return false;
  return true;
}

/**
 * Lints one panel expression; returns what is wrong, empty when nothing is:
 * - every `le` matcher matches a bound under both its Prometheus 2 and 3 spelling (no integer literal);
 * - every counter series (`_total`, `_bucket`, `_count`, `_sum`) is read only inside `rate(…[…])`
 *   or `increase(…[…])` (or `present_over_time(…[…])`, which reads no value): a raw counter resets
 *   with the process and is meaningless on a graph;
 * - every `histogram_quantile(φ, …)` aggregates its buckets with `sum by (le, …)`.
 */
export function lintExpr(expr: string): string[] {
  const findings: string[] = [];
  for (const m of expr.matchAll(/\ble\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
    const op = m[1] ?? '=';
    const value = (m[2] ?? '').replace(/\\\\/g, '\\');
    if (!leMatchesBothSpellings(op, value)) findings.push(`le${op}"${m[2]}" does not match both le="N" and le="N.0" (Prometheus 3)`);
  }
  for (const s of selectors(expr)) {
    if (!isCounterRef(s.ref)) continue;
    const before = expr.slice(0, s.start).trimEnd();
    const after = expr.slice(s.end).trimStart();
    const name = s.ref.kind === 'name' ? s.ref.name : s.ref.pattern;
    // present_over_time reads only whether a sample exists, never its value.
    if (!/\b(rate|increase|present_over_time)\s*\($/.test(before) || !after.startsWith('[')) findings.push(`counter ${name} outside rate()/increase()`);
  }
  for (const m of expr.matchAll(/histogram_quantile\s*\(\s*[^,]+,\s*/g)) {
    const rest = expr.slice((m.index ?? 0) + m[0].length);
    const by = /^sum\s+by\s*\(([^)]*)\)/.exec(rest);
    const labels = by ? (by[1] ?? '').split(',').map((l) => l.trim()) : [];
    if (!labels.includes('le')) findings.push(`histogram_quantile not over sum by (le, …): ${rest.slice(0, 40)}…`);
  }
  return findings;
}
