/**
 * The operator's issue actions (issue 29): resolve, mute and reopen, as one request → the
 * `issue_states` row to store. The CLI (`aap-triage issues resolve|mute|reopen`) and the TUI's
 * Issues view build the same rows here; the store writes them (src/audit/issue-states.ts).
 */
import type { IssueStateRow } from '../audit/issue-states.js';
import { operatorNameProblem } from '../audit/issue-states.js';
import { safeServiceVersion } from '../protocol/value-patterns.js';
import { nextReleaseBase } from './releases.js';
import type { Db } from './rows.js';
import { formatUtcMinute } from './time.js';

/** What an operator asks for. Times are epoch ms. */
export type IssueAction =
  | { kind: 'resolve'; in: 'now' }
  | { kind: 'resolve'; in: 'next_release' }
  | { kind: 'resolve'; in: 'version'; version: string }
  | { kind: 'mute'; until: number | null; count: number | null }
  | { kind: 'reopen' };

/** Environment variables naming the operator, first set wins (after `--by`). */
export const OPERATOR_ENV = ['AAP_TRIAGE_OPERATOR', 'USER', 'LOGNAME', 'USERNAME'] as const;

/**
 * Who sets a state: `flag` (`--by`), else the first of {@link OPERATOR_ENV} that is set. The
 * operator's own name, never a customer's. Returns null when none names anyone; throws a
 * RangeError when the name given is not printable (operatorNameProblem).
 */
export function operatorName(env: NodeJS.ProcessEnv, flag?: string): string | null {
  const name = flag ?? OPERATOR_ENV.map((k) => env[k]).find((v) => v !== undefined && v.trim() !== '');
  if (name === undefined) return null;
  const problem = operatorNameProblem(name);
  if (problem) throw new RangeError(`the operator name ${problem}`);
  return name.trim();
}

/**
 * The `issue_states` row for `action` on issue `key` by `by` at `now`. For a resolution "in the
 * next release" it reads the newest version deployed (releases.ts nextReleaseBase). Throws a
 * RangeError for a version that fails SAFE_SERVICE_VERSION, a count that is not a positive
 * integer, or a mute end not after `now`.
 */
export async function issueStateFor(db: Db, key: string, action: IssueAction, by: string, now: number): Promise<IssueStateRow> {
  const row: IssueStateRow = { issue_key: key, state: 'open', resolved_mode: null, resolved_in: null, mute_until: null, mute_count: null, set_by: by, set_at: now };
  switch (action.kind) {
    case 'reopen':
      return row;
    case 'mute':
      if (action.count !== null && (!Number.isInteger(action.count) || action.count < 1)) throw new RangeError(`the mute count must be a positive integer, got ${action.count}`);
      if (action.until !== null && action.until <= now) throw new RangeError('the mute would end before it starts');
      return { ...row, state: 'muted', mute_until: action.until, mute_count: action.count };
    case 'resolve': {
      if (action.in === 'version') {
        const version = safeServiceVersion(action.version);
        if (version === null) throw new RangeError(`'${action.version}' is not a version (1–64 letters, digits or . _ + ~ -)`);
        return { ...row, state: 'resolved', resolved_mode: 'version', resolved_in: version };
      }
      const base = action.in === 'next_release' ? await nextReleaseBase(db, key, now) : null;
      return { ...row, state: 'resolved', resolved_mode: action.in, resolved_in: base };
    }
  }
}

/** One line saying what a stored state means, e.g. `resolved in the next release (after 1.4.2) by alice`. Pure. */
export function describeIssueState(row: IssueStateRow): string {
  const by = ` by ${row.set_by}`;
  if (row.state === 'open') return `open${by}`;
  if (row.state === 'resolved') {
    if (row.resolved_mode === 'version') return `resolved in ${row.resolved_in}${by}`;
    // With no version seen, only a row that names one regresses it (releases.ts `regresses`): rows
    // without a version, all of a store whose dealer sets none, never do — say so, not "any version".
    if (row.resolved_mode === 'next_release')
      return `resolved in the next release (${row.resolved_in ? `after ${row.resolved_in}` : 'no version seen yet: only a row that names a version regresses it'})${by}`;
    return `resolved now${by}`;
  }
  const limits = [row.mute_until !== null ? `until ${formatUtcMinute(row.mute_until)}` : null, row.mute_count !== null ? `for ${row.mute_count} more errors` : null].filter(Boolean);
  return `muted ${limits.length ? limits.join(' or ') : 'forever'}${by}`;
}
