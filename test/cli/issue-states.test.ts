// `aap-triage issues resolve|mute|reopen <key>` (issue 29): in-process runs of `main` over a
// seeded SQLite store; the state shows in `issues` and `issues --json`; bad flags are one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { seededStore, T0 } from '../triage/seed.js';

const NOW = T0 + 3_600_000;
let store: ReturnType<typeof seededStore>;
beforeAll(() => {
  store = seededStore();
});
afterAll(() => store.cleanup());

async function run(args: string[], env: Record<string, string> = { AAP_TRIAGE_OPERATOR: 'oncall-alice' }): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: { write: (c: string | Uint8Array) => (out += String(c)) },
    stderr: { write: (c: string | Uint8Array) => (err += String(c)) },
    env: { AAP_TRIAGE_DB: store.path, ...env },
    now: () => NOW,
  });
  return { code, out, err };
}

interface JsonIssue {
  key: string;
  state: string;
  status: string;
  operator_state: Record<string, unknown> | null;
}
const listed = async (): Promise<JsonIssue[]> => (JSON.parse((await run(['issues', '--json', '--since', '2h'])).out) as { issues: JsonIssue[] }).issues;

describe('aap-triage issues resolve|mute|reopen', () => {
  it('resolves in a version by key prefix, stores who and when, and shows it in issues and --json', async () => {
    const [first] = await listed();
    const r = await run(['issues', 'resolve', first!.key.slice(0, 8), '--in', '1.5.0', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ issue_key: first!.key, state: 'resolved', resolved_mode: 'version', resolved_in: '1.5.0', mute_until: null, mute_count: null, set_by: 'oncall-alice', set_at: NOW });
    const again = (await listed()).find((i) => i.key === first!.key)!;
    expect(again).toMatchObject({ status: 'resolved', operator_state: { resolved_in: '1.5.0', set_by: 'oncall-alice' } });
    const table = await run(['issues', '--since', '2h']);
    expect(table.out.split('\n').find((l) => l.startsWith(first!.key))).toMatch(/^\S+ +resolved +/);
  });

  it('mutes with --count and --for (--by over the environment), prints one line, and reopens', async () => {
    const [, second] = await listed();
    const muted = await run(['issues', 'mute', second!.key, '--for', '2h', '--count', '50', '--by', 'bob']);
    expect(muted.code).toBe(0);
    expect(muted.out.trim()).toBe(`issue ${second!.key}: muted until 2026-11-30 13:00Z or for 50 more errors by bob`);
    expect((await listed()).find((i) => i.key === second!.key)!.status).toBe('muted');
    const open = await run(['issues', 'reopen', second!.key, '--json']);
    expect(JSON.parse(open.out)).toMatchObject({ state: 'open', set_by: 'oncall-alice' });
    expect((await listed()).find((i) => i.key === second!.key)!.status).toBe('open');
  });

  it('resolves in the next release where no row names a version: says only a versioned row regresses it', async () => {
    const [, , third] = await listed();
    const r = await run(['issues', 'resolve', third!.key, '--in-next-release']);
    expect(r.code).toBe(0);
    // The seeded rows carry no service_version, so the resolution has no base version (releases.ts).
    expect(r.out.trim()).toBe(`issue ${third!.key}: resolved in the next release (no version seen yet: only a row that names a version regresses it) by oncall-alice`);
    await run(['issues', 'reopen', third!.key]);
  });

  it('keeps query words working beside the subcommands', async () => {
    const [first] = await listed();
    const r = await run(['issues', `issue:${first!.key}`, '--json', '--since', '2h']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { issues: JsonIssue[] }).issues.map((i) => i.key)).toEqual([first!.key]);
  });

  it('says in one line what is wrong: no such key, a bad version, a bad count, no operator', async () => {
    const [first] = await listed();
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [['issues', 'resolve', 'abcdef0'], /no issue with key abcdef0/],
      [['issues', 'resolve', 'xyz'], /'xyz' is not an issue key/],
      [['issues', 'resolve', first!.key, '--in', 'not a version'], /'not a version' is not a version/],
      [['issues', 'resolve', first!.key, '--in', '1.0.0', '--in-next-release'], /--in and --in-next-release both given/],
      [['issues', 'mute', first!.key, '--count', '0'], /--count must be a positive integer/],
      [['issues', 'mute', first!.key, '--for', 'soon'], /--for 'soon' is not a duration/],
      [['issues', 'reopen', first!.key], /no operator name — pass --by <name> or set AAP_TRIAGE_OPERATOR \(or USER\)/, { USER: '', LOGNAME: '', USERNAME: '' }],
      // A mistyped subcommand or a bare key would otherwise be searched for: "no issues", exit 0.
      [['issues', 'reslove', first!.key], /unknown command 'issues reslove' — did you mean 'issues resolve <KEY>'/],
      [['issues', 'unmute', first!.key], /did you mean 'issues reopen <KEY>'/],
      [['issues', first!.key], new RegExp(`'${first!.key}' is an issue key, not a query word — list its errors with .*search issue:${first!.key}`)],
    ];
    for (const [args, pattern, env] of cases) {
      const r = await run(args, env ?? { AAP_TRIAGE_OPERATOR: 'oncall-alice' });
      expect(r.code, args.join(' ')).toBe(2);
      const lines = r.err.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^aap-triage: /);
      expect(lines[0]).toMatch(pattern);
    }
  });
});
