/**
 * The probe is known to the store (issue 28): `aap-triage probe` names itself in User-Agent on
 * every request (discovery included); an instrumented dealer records its calls with
 * `origin: 'probe'`, counts none as traffic or retries; `storms`, `issues` and `search` leave
 * them out unless `--include-probe` or `origin:probe`, and a draft never cites them. Real demo
 * dealers, real instrumentation, a real SQLite store, the real CLI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/index.js';
import { personas, startDealers, type RunningDealers } from '../../src/demo/index.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { createTriage } from '../../src/instrument/index.js';
import { requestOrigin } from '../../src/instrument/exchange/origin.js';
import { VERSION } from '../../src/protocol/version.js';
import { PROBE_USER_AGENT, runProbe } from '../../src/probe/index.js';

describe('requestOrigin', () => {
  it('knows the probe by its User-Agent product token, and nothing else', () => {
    expect(requestOrigin({ 'user-agent': `aap-triage-probe/${VERSION}` })).toBe('probe');
    expect(requestOrigin({ 'user-agent': ['aap-triage-probe/9.9.9 (extra)'] })).toBe('probe');
    for (const ua of ['node', 'curl/8.5.0', 'aap-triage-probe', 'x aap-triage-probe/1', 'AAP-TRIAGE-PROBE/1', '']) expect(requestOrigin({ 'user-agent': ua }), ua).toBeNull();
    expect(requestOrigin({})).toBeNull();
    expect(requestOrigin(null)).toBeNull();
  });
});

describe('a probe run against instrumented dealers', () => {
  let dir: string;
  let dealers: RunningDealers;
  const userAgents: (string | undefined)[] = [];
  const dbs = { aap: '', dmc12: '' };
  const roster = personas(12);

  const cli = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string | Uint8Array) => out.push(String(s)) }, stderr: { write: (s: string | Uint8Array) => err.push(String(s)) }, env: {} };
    const code = await main(['node', 'aap-triage', ...args], io);
    return { code, out: out.join(''), err: err.join('') };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aap-probe-origin-'));
    dbs.aap = join(dir, 'aap.db');
    dbs.dmc12 = join(dir, 'dmc12.db');
    const common = { logger: false as const, pseudonymizer: { keyId: 'k1', pseudonym: (s: string) => s } } as never;
    const aap = createTriage({ ...(common as object), auditDb: dbs.aap, serviceName: 'probe-aap', requiredExtensionUri: AAP_EXTENSION_URI, aapForm: '2.0' } as never);
    const dmc = createTriage({ ...(common as object), auditDb: dbs.dmc12, serviceName: 'probe-dmc12' } as never);
    const record = (req: IncomingMessage) => userAgents.push(req.headers['user-agent']);
    const aapMw = aap.middleware();
    dealers = await startDealers({
      personas: roster,
      seed: 12,
      aapMiddleware: ((req: IncomingMessage, res: unknown, next: unknown) => {
        record(req);
        return (aapMw as (a: unknown, b: unknown, c: unknown) => unknown)(req, res, next);
      }) as never,
      wrapDmc12: (l: RequestListener) => {
        const wrapped = dmc.wrap(l);
        return (req, res) => {
          record(req);
          return wrapped(req, res);
        };
      },
    });
    // The SDK logs its own rejections of the probe's bad requests on console.error.
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await runProbe(dealers.aapBaseUrl, { ratePerSecond: 50 });
    await runProbe(dealers.dmc12RpcUrl, { ratePerSecond: 50 });
    spy.mockRestore();
    await dealers.close();
    await aap.shutdown();
    await dmc.shutdown();
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends aap-triage-probe/<version> as User-Agent on every request', () => {
    expect(PROBE_USER_AGENT).toBe(`aap-triage-probe/${VERSION}`);
    expect(userAgents.length).toBeGreaterThan(10);
    expect(new Set(userAgents)).toEqual(new Set([PROBE_USER_AGENT]));
  });

  it('leaves rows marked origin probe, no traffic counts and no retries in the store', () => {
    for (const path of [dbs.aap, dbs.dmc12]) {
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT origin, attempt, retry_flags FROM error_events').all() as { origin: string | null; attempt: number; retry_flags: string }[];
      const traffic = db.prepare('SELECT count(*) AS n FROM traffic').get() as { n: number };
      db.close();
      expect(rows.length, path).toBeGreaterThan(0);
      expect(rows.every((r) => r.origin === 'probe' && r.attempt === 1 && r.retry_flags === '[]'), path).toBe(true);
      expect(traffic.n, path).toBe(0);
    }
  });

  it('storms, issues and search show nothing of it unless asked; a draft refuses to cite it', async () => {
    for (const db of [dbs.aap, dbs.dmc12]) {
      const storms = await cli(['storms', '--db', db, '--since', '1h', '--json']);
      expect([storms.code, JSON.parse(storms.out)]).toEqual([0, []]);
      const issues = await cli(['issues', '--db', db, '--since', '1h', '--json']);
      expect(issues.code).toBe(0);
      expect((JSON.parse(issues.out) as { issues: unknown[] }).issues).toEqual([]);
      const search = await cli(['search', '--db', db, '--since', '1h', '--json']);
      expect([search.code, JSON.parse(search.out)]).toEqual([0, []]);

      const asked = JSON.parse((await cli(['search', '--db', db, '--since', '1h', '--json', 'origin:probe'])).out) as { origin: string }[];
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((r) => r.origin === 'probe')).toBe(true);
      const included = JSON.parse((await cli(['search', '--db', db, '--since', '1h', '--json', '--include-probe'])).out) as unknown[];
      expect(included).toHaveLength(asked.length);
      const issuesIncluded = JSON.parse((await cli(['issues', '--db', db, '--since', '1h', '--json', '--include-probe'])).out) as { issues: unknown[] };
      expect(issuesIncluded.issues.length).toBeGreaterThan(0);

      const draft = await cli(['draft', '--db', db, '--since', '1h', '--query', 'origin:probe']);
      expect(draft.code).toBe(1);
      expect(draft.out).toBe('');
    }
  });
});
