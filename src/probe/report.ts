/**
 * The report in its three forms: a terminal table (case, level, verdict, what came back with its
 * error_id, then the spec sentence and each finding), JSON (snake_case), and JUnit XML for a
 * dealer's CI. Pure functions of a `ProbeReport`.
 */
import type { CaseResult, ProbeCase, ProbeReport, ProbeRequest, ProbeTarget } from './types.js';

const VERDICT_TEXT = { pass: 'pass', fail: 'FAIL', skip: 'skip' } as const;

/** What came back for a case, in one cell: each answer's code and error_id. */
export function gotCell(r: CaseResult): string {
  if (r.answers.length === 0) return r.verdict === 'skip' ? '-' : '(all answers)';
  return r.answers.map((a) => `${a.http_status > 0 ? `HTTP ${a.http_status} ` : ''}${a.got}${a.error_ids.length > 0 ? ` error_id=${a.error_ids.join(',')}` : ''}`).join(' | ');
}

/** A failed SHOULD case fails the run only in strict mode. */
const counts = (r: CaseResult, strict: boolean): boolean => r.verdict === 'fail' && (r.level === 'MUST' || strict);

/** One line naming the target. */
function targetLine(t: ProbeTarget): string {
  const kind = t.family === 'aap' ? 'AAP agent (agent card)' : 'DMC-12 agent (tools/list)';
  return `${kind}, JSON-RPC ${t.rpcUrl}` + (t.family === 'aap' && t.requiredExtensions.length > 0 ? `, required extension ${t.requiredExtensions.join(', ')}` : '');
}

/** The terminal table, then one summary line. */
export function renderText(report: ProbeReport): string {
  const rows = report.cases;
  const idWidth = Math.max(4, ...rows.map((r) => r.id.length));
  const line = (c: string, l: string, v: string, g: string) => `${c.padEnd(idWidth)}  ${l.padEnd(6)}  ${v.padEnd(7)}  ${g}`.trimEnd();
  const out = [`aap-triage probe ${report.target.url} — ${targetLine(report.target)}`, '', line('CASE', 'LEVEL', 'VERDICT', 'GOT (error_id)')];
  for (const r of rows) {
    out.push(line(r.id, r.level, VERDICT_TEXT[r.verdict], gotCell(r)));
    out.push(`  ${r.spec.source}: "${r.spec.quote}"`);
    for (const f of r.findings) out.push(`  ${r.verdict === 'skip' ? '-' : r.verdict === 'fail' ? '✗' : ' '} ${f}`);
  }
  const { mandatory: m, recommended: s } = report.summary;
  out.push(
    '',
    `${report.ok ? 'ok' : 'FAILED'}: mandatory (MUST) ${m.passed} passed, ${m.failed} failed, ${m.skipped} skipped; ` +
      `recommended (SHOULD) ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped` +
      `${report.strict ? ' (strict: SHOULD failures count)' : ''}; ${report.requests_sent} requests in ${(report.duration_ms / 1000).toFixed(1)} s`,
  );
  return out.join('\n');
}

/** The report as JSON-ready data, snake_case throughout. */
export function reportJson(report: ProbeReport): Record<string, unknown> {
  const t = report.target;
  return {
    target: { family: t.family, url: t.url, rpc_url: t.rpcUrl, versions: t.versions, required_extensions: t.requiredExtensions, skills: t.skills, has_token: t.hasToken },
    started_at: report.started_at,
    duration_ms: report.duration_ms,
    requests_sent: report.requests_sent,
    ok: report.ok,
    strict: report.strict,
    summary: report.summary,
    cases: report.cases,
  };
}

/** Characters XML 1.0 cannot hold, removed before escaping. */
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** `text` escaped for an XML attribute or text node. */
export function xmlEscape(text: string): string {
  return text.replace(XML_INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/**
 * JUnit XML: one testsuite, one testcase per case (classname = the id's first two segments). A
 * failed MUST case — and with `strict` a failed SHOULD case — is a `<failure>`; a failed SHOULD
 * case otherwise passes with its findings under `<system-out>` and a `verdict` property, so CI
 * fails exactly when the command exits 1. A skipped case is `<skipped>` with the reason.
 */
export function renderJunit(report: ProbeReport): string {
  const failures = report.cases.filter((r) => counts(r, report.strict)).length;
  const skipped = report.cases.filter((r) => r.verdict === 'skip').length;
  const suite = `aap-triage probe ${report.target.family} ${report.target.url}`;
  const head = `tests="${report.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.duration_ms)}"`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="aap-triage probe" ${head}>`,
    `  <testsuite name="${xmlEscape(suite)}" ${head} timestamp="${xmlEscape(report.started_at)}">`,
    '    <properties>',
    `      <property name="url" value="${xmlEscape(report.target.url)}"/>`,
    `      <property name="rpc_url" value="${xmlEscape(report.target.rpcUrl)}"/>`,
    `      <property name="requests_sent" value="${report.requests_sent}"/>`,
    '    </properties>',
  ];
  for (const r of report.cases) {
    const time = r.answers.reduce((s, a) => s + a.duration_ms, 0);
    const classname = r.id.split('.').slice(0, 2).join('.');
    out.push(`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(`${r.id} [${r.level}]`)}" time="${seconds(time)}">`);
    out.push('      <properties>', `        <property name="level" value="${r.level}"/>`, `        <property name="verdict" value="${r.verdict}"/>`, '      </properties>');
    const detail = [`${r.title}`, `${r.spec.source}: "${r.spec.quote}"`, `got: ${gotCell(r)}`, ...r.findings].join('\n');
    if (r.verdict === 'skip') out.push(`      <skipped message="${xmlEscape(r.findings[0] ?? 'skipped')}"/>`);
    else if (counts(r, report.strict)) out.push(`      <failure type="${r.level}" message="${xmlEscape(r.findings[0] ?? 'failed')}">${xmlEscape(detail)}</failure>`);
    else if (r.verdict === 'fail') out.push(`      <system-out>${xmlEscape(`recommended (SHOULD) case failed — not counted without --strict\n${detail}`)}</system-out>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}

/** One request as `--dry-run` prints it. */
function requestText(r: ProbeRequest, rpcUrl: string): string[] {
  const auth = r.auth === 'none' ? ' (no Authorization)' : r.auth === 'invalid' ? ' (Authorization: Bearer <an invalid token>)' : '';
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v === '' ? '(empty)' : v}`);
  return [`    ${r.label}: POST ${rpcUrl}${auth}`, ...headers.map((h) => `      ${h}`), `      ${r.body}`];
}

/** The battery as `--dry-run` prints it: each case, its level, sentence, safety note and requests. */
export function renderBattery(cases: readonly ProbeCase[], target: ProbeTarget): string {
  const out = [`aap-triage probe --dry-run: the ${target.family === 'aap' ? 'AAP' : 'DMC-12'} battery (nothing is sent)`, ''];
  for (const c of cases) {
    out.push(`${c.id} [${c.level}] ${c.title}`, `  ${c.spec.source}: "${c.spec.quote}"`, `  safe: ${c.safety}`);
    if (c.answersOf) out.push(`  judges the answers of ${c.answersOf}`);
    else if (c.crossCutting) out.push('  judges every answer of the run');
    else for (const r of c.requests(target)) out.push(...requestText(r, target.rpcUrl));
    out.push('');
  }
  return out.join('\n');
}
