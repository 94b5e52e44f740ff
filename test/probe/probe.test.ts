/**
 * The probe against real agents: the demo's AAP and DMC-12 dealers (every MUST case passes), and
 * agents with one known defect each (the right case fails), plus an address where nothing listens.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTriage } from '../../src/instrument/index.js';
import { personas, startDealers, type RunningDealers } from '../../src/demo/index.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { ProbeUnreachableError, renderJunit, runProbe, type ProbeReport } from '../../src/probe/index.js';
import { main } from '../../src/cli/index.js';
import { startMiniAgent, startStockSdkAgent, type Defect } from './fixtures/aap-agents.js';
import { DMC12_TEST_TOKEN, startDmc12Agent, type Dmc12Defect } from './fixtures/dmc12-agent.js';

const failed = (r: ProbeReport, level: 'MUST' | 'SHOULD' = 'MUST') => r.cases.filter((c) => c.verdict === 'fail' && c.level === level).map((c) => c.id);

describe('probe against the demo dealers', () => {
  let dir: string;
  let dealers: RunningDealers;
  const roster = personas(12);
  const triages: { shutdown(): Promise<void> }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aap-probe-'));
    const common = { logger: false as const, pseudonymizer: { keyId: 'k1', pseudonym: (s: string) => s } } as never;
    // One audit file each: two writers creating one fresh file at the same instant can get
    // SQLITE_BUSY on open under load, which the audit logger prints (not what this file tests).
    const aap = createTriage({ ...(common as object), auditDb: join(dir, 'aap.db'), serviceName: 'probe-aap', requiredExtensionUri: AAP_EXTENSION_URI, aapForm: '2.0' } as never);
    const dmc = createTriage({ ...(common as object), auditDb: join(dir, 'dmc12.db'), serviceName: 'probe-dmc12' } as never);
    triages.push(aap, dmc);
    dealers = await startDealers({ personas: roster, seed: 12, aapMiddleware: aap.middleware(), wrapDmc12: (l) => dmc.wrap(l) });
  });
  afterAll(async () => {
    await dealers.close();
    for (const t of triages) await t.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes every mandatory case against the AAP dealer, and no request is answered with a success', async () => {
    // The SDK logs its own -32009 rejections with a stack to console.error; capture them.
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const report = await runProbe(dealers.aapBaseUrl);
    spy.mockRestore();
    expect(report.target.family).toBe('aap');
    expect(failed(report)).toEqual([]);
    // The one recommended case it fails, as docs/probe.md says: @a2a-js/sdk 1.3 answers a batch
    // with one error for the whole array (JSON-RPC §6 says "should" respond with an array).
    expect(failed(report, 'SHOULD')).toEqual(['aap.jsonrpc.batch-array']);
    expect(report.ok).toBe(true);
    expect(report.requests_sent).toBeLessThanOrEqual(25);
    const consent = report.cases.find((c) => c.id === 'aap.lead.consent-required');
    expect(consent?.answers[0]?.code).toBe('CONTACT_CONSENT_REQUIRED');
    for (const c of report.cases) for (const a of c.answers) expect(a.got).not.toBe('result (success)');
    expect(renderJunit(report)).not.toContain('<failure');
  }, 30_000);

  it('as a command: exit 0, the report as --json and as --junit; the token read from the environment or a file reaches the agent', async () => {
    const junit = join(dir, 'probe.xml');
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const out: string[] = [];
      const err: string[] = [];
      const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: (s: string | Uint8Array) => err.push(String(s)) }, env };
      const code = await main(['node', 'aap-triage', 'probe', '--rate', '50', ...args], io);
      return { code, out: out.join(''), err: err.join('') };
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const aap = await run(['--json', '--junit', junit, dealers.aapBaseUrl]);
    spy.mockRestore();
    expect(aap.code).toBe(0);
    const json = JSON.parse(aap.out) as { ok: boolean; cases: { id: string; verdict: string }[] };
    expect(json.ok).toBe(true);
    expect(json.cases.find((c) => c.id === 'aap.jsonrpc.batch-array')?.verdict).toBe('fail');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testcase');
    expect(xml).not.toContain('<failure');

    const token = roster[2]!.apiKey;
    const fromEnv = await run(['--json', dealers.dmc12RpcUrl], { AAP_TRIAGE_PROBE_TOKEN: token });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const fromFile = await run(['--json', '--token-file', tokenFile, dealers.dmc12RpcUrl]);
    for (const r of [fromEnv, fromFile]) {
      expect(r.code).toBe(0);
      // Without the token the cases that need it are skipped; with it none is.
      expect((JSON.parse(r.out) as { cases: { verdict: string }[] }).cases.filter((c) => c.verdict === 'skip')).toEqual([]);
      expect(r.out + r.err).not.toContain(token);
    }
    const none = await run(['--json', dealers.dmc12RpcUrl]);
    expect((JSON.parse(none.out) as { cases: { id: string; verdict: string }[] }).cases.filter((c) => c.verdict === 'skip').length).toBeGreaterThan(0);
  }, 60_000);

  it('passes every mandatory case against the DMC-12 dealer with a partner token', async () => {
    const report = await runProbe(dealers.dmc12RpcUrl, { token: roster[2]!.apiKey });
    expect(report.target.family).toBe('dmc12');
    expect(failed(report)).toEqual([]);
    expect(failed(report, 'SHOULD')).toEqual([]);
    expect(report.cases.filter((c) => c.verdict === 'skip')).toEqual([]);
  }, 30_000);
});

describe('probe against broken agents', () => {
  it('reports a stock @a2a-js/sdk server’s bare -32008 under aap.activation.missing-header', async () => {
    const agent = await startStockSdkAgent();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const report = await runProbe(agent.url, { ratePerSecond: 50 });
      const c = report.cases.find((x) => x.id === 'aap.activation.missing-header');
      expect(c?.verdict).toBe('fail');
      expect(c?.findings.join('\n')).toMatch(/a2a\.extension-required-(message|detail)/);
      expect(report.ok).toBe(false);
    } finally {
      spy.mockRestore();
      await agent.close();
    }
  }, 30_000);

  const cases: [Defect, string][] = [
    ['first-error-only', 'aap.validation.all-errors'],
    ['retryable-strings', 'all.retryable-boolean'],
    ['stack-traces', 'all.no-stack-trace'],
    ['skill-before-activation', 'aap.activation.before-skill-logic'],
    ['idempotency-key-remembered', 'aap.lead.idempotent-repeat'],
  ];
  it.each(cases)('reports the %s defect under %s and nowhere else', async (defect, caseId) => {
    const agent = await startMiniAgent(defect);
    try {
      const report = await runProbe(agent.url, { ratePerSecond: 50 });
      expect(failed(report)).toEqual([caseId]);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('as a command exits 1 when a mandatory case fails, naming it in the table', async () => {
    const agent = await startMiniAgent('stack-traces');
    const out: string[] = [];
    const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: () => true }, env: {} };
    try {
      expect(await main(['node', 'aap-triage', 'probe', '--rate', '50', agent.url], io)).toBe(1);
      expect(out.join('')).toMatch(/all\.no-stack-trace/);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('reports a failed MUST case as a JUnit <failure> and as failed in --json', async () => {
    const agent = await startMiniAgent('stack-traces');
    const dir = mkdtempSync(join(tmpdir(), 'aap-probe-fail-'));
    const junit = join(dir, 'probe.xml');
    const out: string[] = [];
    const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: () => true }, env: {} };
    try {
      expect(await main(['node', 'aap-triage', 'probe', '--rate', '50', '--json', '--junit', junit, agent.url], io)).toBe(1);
      const json = JSON.parse(out.join('')) as { ok: boolean; cases: { id: string; level: string; verdict: string }[] };
      expect(json.ok).toBe(false);
      expect(json.cases.filter((c) => c.verdict === 'fail' && c.level === 'MUST').map((c) => c.id)).toEqual(['all.no-stack-trace']);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuites name="aap-triage probe" tests="\d+" failures="1"/);
      const testcase = /<testcase [^>]*name="all\.no-stack-trace \[MUST\]"[^>]*>([\s\S]*?)<\/testcase>/.exec(xml);
      expect(testcase?.[1]).toMatch(/<failure type="MUST" message="[^"]+">/);
      expect(xml.match(/<failure /g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await agent.close();
    }
  }, 30_000);

  const dmcCases: [Dmc12Defect, string][] = [
    ['retryable-strings', 'all.retryable-boolean'],
    ['retryable-wrong', 'dmc12.retryable.code-table'],
    ['auth-in-envelope', 'dmc12.auth.missing-token,dmc12.auth.invalid-token'],
  ];
  it.each(dmcCases)('reports the DMC-12 %s defect under %s and nowhere else', async (defect, caseIds) => {
    const agent = await startDmc12Agent(defect);
    try {
      const report = await runProbe(agent.url, { ratePerSecond: 50, token: DMC12_TEST_TOKEN });
      expect(report.target.family).toBe('dmc12');
      expect(failed(report)).toEqual(caseIds.split(','));
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('passes the DMC-12 mini agent without a defect, SHOULD cases included', async () => {
    const agent = await startDmc12Agent('none');
    try {
      const report = await runProbe(agent.url, { ratePerSecond: 50, token: DMC12_TEST_TOKEN });
      expect([...failed(report), ...failed(report, 'SHOULD')]).toEqual([]);
      expect(report.cases.filter((c) => c.verdict === 'skip')).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('passes the mini agent without a defect', async () => {
    const agent = await startMiniAgent('none');
    try {
      expect(failed(await runProbe(agent.url, { ratePerSecond: 50 }))).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 30_000);
});

describe('probe command', () => {
  it('exits 3 with one line when nothing listens', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: (s: string | Uint8Array) => err.push(String(s)) }, env: {} };
    const code = await main(['node', 'aap-triage', 'probe', 'http://127.0.0.1:1/'], io);
    expect(code).toBe(3);
    expect(out).toEqual([]);
    expect(err.join('').trim().split('\n')).toHaveLength(1);
    expect(err.join('')).toMatch(/^aap-triage: cannot reach http:\/\/127\.0\.0\.1:1\//);
    await expect(runProbe('http://127.0.0.1:1/')).rejects.toBeInstanceOf(ProbeUnreachableError);
  });

  it('refuses a token on argv (exit 2) and --dry-run sends nothing', async () => {
    const err: string[] = [];
    const out: string[] = [];
    const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: (s: string | Uint8Array) => err.push(String(s)) }, env: {} };
    expect(await main(['node', 'aap-triage', 'probe', '--token', 'secret', 'http://127.0.0.1:1/'], io)).toBe(2);
    expect(err.join('')).not.toContain('secret');
    expect(await main(['node', 'aap-triage', 'probe', '--dry-run', 'http://127.0.0.1:1/'], io)).toBe(0);
    expect(out.join('')).toContain('aap.lead.consent-required [MUST]');
    expect(out.join('')).toContain('dmc12.auth.missing-token [MUST]');
  });
});
