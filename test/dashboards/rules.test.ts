// The Prometheus rules beside the dashboard (issue 30): dashboards/aap-triage-rules.yml is what
// dashboards/build-rules.mjs builds from dashboards/alerts-config.mjs, `promtool check rules`
// accepts it, `promtool test rules` passes the hand-written dashboards/aap-triage-rules.test.yml,
// and every rule follows the naming and annotation conventions, with a runbook section in
// docs/alerts.md. promtool is Debian's `prometheus` package.
//
// Without promtool: fails when CI=true (CI installs it), skips locally with the reason.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALERTS_CONFIG } from '../../dashboards/alerts-config.mjs';
import { buildRules } from '../../dashboards/build-rules.mjs';
import { AUDIT_ALERT_DEFAULTS, AUDIT_ALERTS } from '../../src/triage/index.js';
import { lintExpr } from './dashboard-model.js';

const path = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const RULES = path('dashboards/aap-triage-rules.yml');
const RULE_TESTS = path('dashboards/aap-triage-rules.test.yml');
const PROMTOOL = process.env.PROMTOOL_BIN ?? (existsSync('/usr/bin/promtool') ? '/usr/bin/promtool' : null);
const IN_CI = process.env.CI === 'true';
const MISSING = 'promtool not found: apt-get install prometheus (Debian package), or set PROMTOOL_BIN';
const runIt = PROMTOOL !== null || IN_CI;
if (!runIt) console.warn(`skipping promtool checks in test/dashboards/rules.test.ts: ${MISSING}`);

const { recording, alerts } = buildRules();
const testsText = readFileSync(RULE_TESTS, 'utf8');
const docs = readFileSync(path('docs/alerts.md'), 'utf8');

function promtool(...args: string[]): { status: number | null; out: string } {
  if (!PROMTOOL) throw new Error(`CI=true but ${MISSING}`);
  const run = spawnSync(PROMTOOL, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('dashboards/aap-triage-rules.yml', () => {
  it('is exactly what dashboards/build-rules.mjs builds from the config', () => {
    const run = spawnSync(process.execPath, [path('dashboards/build-rules.mjs'), '--check'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it.runIf(runIt)('passes promtool check rules', () => {
    const r = promtool('check', 'rules', RULES);
    expect(r.out).toContain(`SUCCESS: ${recording.length + alerts.length} rules found`);
    expect(r.status, r.out).toBe(0);
  });

  it.runIf(runIt)('passes promtool test rules (dashboards/aap-triage-rules.test.yml)', () => {
    const r = promtool('test', 'rules', RULE_TESTS);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('SUCCESS');
  });

  it('names recording rules level:metric:operations and alerts AapTriage + CamelCase', () => {
    expect(recording.length).toBeGreaterThanOrEqual(8);
    for (const r of recording) expect(r.record).toMatch(/^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$/);
    for (const a of alerts) expect(a.alert).toMatch(/^AapTriage(?:[A-Z][a-z0-9]+)+$/);
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      'AapTriageAuditQueueNearBound',
      'AapTriageAuditRecordsLost',
      'AapTriageConformanceViolations',
      'AapTriageErrorRatioHigh',
      'AapTriageRetryAmplificationHigh',
      'AapTriageServerFaultsRising',
      'AapTriageTargetDown',
    ]);
  });

  it('gives every alert a severity, a fixed summary, a templated description and a runbook_url with a section in docs/alerts.md', () => {
    for (const a of alerts) {
      expect(['critical', 'warning', 'info']).toContain(a.labels.severity);
      expect(a.annotations.summary, a.alert).not.toContain('{{');
      expect(a.annotations.description, a.alert).toMatch(/\{\{ \$labels\.job \}\}/);
      expect(a.annotations.runbook_url).toBe(`${ALERTS_CONFIG.runbookUrl}#${a.alert.toLowerCase()}`);
      // A Markdown heading `## AapTriageX` gets the anchor #aaptriagex on GitHub and in most renderers.
      expect(docs, a.alert).toContain(`\n## ${a.alert}\n`);
    }
    // The audit log's 1:1 promise broken is the one critical page besides a dead target.
    expect(alerts.find((a) => a.alert === 'AapTriageAuditRecordsLost')?.labels.severity).toBe('critical');
  });

  it('shares its runbook page with the audit-store alerts of `aap-triage alerts`, each of which has a section too', () => {
    expect(AUDIT_ALERT_DEFAULTS.runbookUrl).toBe(ALERTS_CONFIG.runbookUrl);
    for (const a of Object.values(AUDIT_ALERTS)) expect(docs, a.alertname).toContain(`\n## ${a.alertname}\n`);
  });

  it('has a firing promtool test with exact labels and annotations for every alert, and a promql_expr_test for every recording rule', () => {
    for (const a of alerts) {
      const block = new RegExp(`alertname: ${a.alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels:\\n\\s+severity: ${a.labels.severity}\\n`);
      expect(testsText, a.alert).toMatch(block);
      expect(testsText, a.alert).toContain(`summary: '${a.annotations.summary}'`);
      expect(testsText, a.alert).toContain(`runbook_url: '${a.annotations.runbook_url}'`);
    }
    for (const r of recording) expect(testsText, r.record).toContain(`- expr: ${r.record}\n`);
  });

  it('passes the PromQL lint: le matchers for both spellings, counters only inside rate/increase', () => {
    const findings = [...recording.map((r) => ({ n: r.record, e: r.expr })), ...alerts.map((a) => ({ n: a.alert, e: a.expr }))].flatMap(
      ({ n, e }) => lintExpr(e).map((f) => `${n}: ${f}`),
    );
    expect(findings).toEqual([]);
    expect(recording.filter((r) => r.expr.includes('_bucket')).every((r) => r.expr.includes('le=~"1|1[.]0"'))).toBe(true);
  });

  it('scopes every selector with the config selector', () => {
    for (const r of [...recording, ...alerts]) {
      for (const sel of r.expr.matchAll(/\{[^}]*\}/g)) {
        // A bare recording-rule selector adds only a label filter over already-scoped series.
        if (/aap_audit_outcome=~/.test(sel[0]) && !sel[0].includes('job')) continue;
        expect(sel[0], 'record' in r ? r.record : r.alert).toContain(ALERTS_CONFIG.selector);
      }
    }
  });
});

if (!runIt) it.skip(`promtool check/test rules: ${MISSING}`, () => undefined);
