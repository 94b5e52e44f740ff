// The command-line points of issue #17, one describe per defect or feature: issues, clients
// and labels, quoted queries, snake_case JSON, drafts, erasure, prune safety, doctor, CLI
// conventions. In-process runs of `main` over a seeded store (test/triage/seed.ts).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { seededStore, SEED_COUNTS, T0 } from '../triage/seed.js';

const NOW = T0 + 3_600_000;

let store: ReturnType<typeof seededStore>;
beforeAll(() => {
  store = seededStore();
});
afterAll(() => store.cleanup());

/** Runs the CLI in-process, capturing output. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    stderr: { write: (c: string | Uint8Array) => (err += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')) },
    env: { AAP_TRIAGE_DB: store.path, ...env },
    now: () => NOW,
  });
  return { code, out, err };
}

/** Asserts the one-line error rule: exactly one line, prefixed, no stack frames. */
function expectOneLineError(err: string, pattern: RegExp): void {
  const lines = err.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^aap-triage: /);
  expect(lines[0]).toMatch(pattern);
}

describe('aap-triage issues', () => {
  it('groups the seed into issues, largest first, with state and a key that search finds', async () => {
    const r = await run(['issues', '--json', '--since', '2h']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const list = JSON.parse(r.out) as { total: number; issues: { key: string; code: string; count: number; state: string; clients: number }[] };
    expect(list.issues.reduce((a, i) => a + i.count, 0)).toBe(SEED_COUNTS.total);
    expect(list.issues[0]).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', count: 80, state: 'new', clients: 1 });
    const rate = list.issues.find((i) => i.code === 'RATE_LIMITED')!;
    // Two clients, one service, one skill: one issue of 72 errors.
    expect(rate).toMatchObject({ count: SEED_COUNTS.rate + SEED_COUNTS.healthy, clients: 2 });
    const s = await run(['search', '--json', '--limit', '1000', '--since', '2h', `issue:${rate.key}`]);
    expect(JSON.parse(s.out)).toHaveLength(rate.count);
  });

  it('prints a table with the keys and a hint to list one issue', async () => {
    const r = await run(['issues', '--since', '2h', '--sort', 'last_seen']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY +STATE +ERRORS +CLIENTS +RETRYABLE +FIRST SEEN \(UTC\) +LAST SEEN \(UTC\) +TREND +ISSUE$/);
    expect(lines[1]).toMatch(/^[0-9a-f]{16} +new +1 +1 +false .*-32601 · /);
    expect(lines.at(-1)).toMatch(/issues; list one's errors with: npx aap-triage --since 2h search issue:<KEY>$/);
  });

  it('refuses an unknown --sort with one line and exit 2', async () => {
    const r = await run(['issues', '--sort', 'size']);
    expect(r.code).toBe(2);
    expectOneLineError(r.err, /--sort must be one of count, last_seen, first_seen, got 'size'/);
  });
});

void Database;
