/**
 * Issue states an operator sets (issue 29 "Releases"): resolved (now, in the next release, or in
 * a version), muted (until a time, a count of errors, or forever) and open again, one row per
 * issue in `issue_states` (migration 7) with who set it and when. Operator data, like client
 * labels (DESIGN §5): the operator's name comes from the operator's environment or a flag, never
 * from traffic. What a state means for the rows that follow is src/triage/releases.ts.
 */
import { AuditStoreError } from './errors.js';
import { openAuditMaintenance } from './reader.js';

/** A state an operator sets. `open` is what `reopen` stores (the issue is triaged as before). */
export type IssueStateName = 'open' | 'resolved' | 'muted';

/**
 * How a resolution names its release: `now` (any later error regresses it), `next_release` (a
 * version newer than the newest seen when it was resolved regresses it), `version` (a version at
 * or above `resolved_in` regresses it).
 */
export type ResolvedMode = 'now' | 'next_release' | 'version';

/** A row of `issue_states`; field names are the `--json` keys. Times are epoch ms. */
export interface IssueStateRow {
  issue_key: string;
  state: IssueStateName;
  /** Set for `resolved` only. */
  resolved_mode: ResolvedMode | null;
  /** `version`: the version the fix ships in; `next_release`: the newest version seen at resolution (null when none was); else null. */
  resolved_in: string | null;
  /** `muted`: the mute ends at this time; null for no time limit. */
  mute_until: number | null;
  /** `muted`: the mute ends once this many errors arrived after `set_at`; null for no count limit. */
  mute_count: number | null;
  /** The operator who set it (`--by`, `AAP_TRIAGE_OPERATOR`, else the login name). */
  set_by: string;
  set_at: number;
}

/** Longest operator name, characters. */
export const MAX_OPERATOR_NAME = 64;

/**
 * Whether `name` may be stored as the operator: 1–{@link MAX_OPERATOR_NAME} characters after
 * trimming, no control characters (it is printed in tables). Null when it may.
 */
export function operatorNameProblem(name: string): string | null {
  const t = name.trim();
  if (t === '') return 'is empty';
  if (t.length > MAX_OPERATOR_NAME) return `is longer than ${MAX_OPERATOR_NAME} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(t)) return 'holds a line break or another control character';
  return null;
}

/** Stores (or replaces) one issue's state: the same statement in both stores (`?` for SQLite). */
export const ISSUE_STATE_UPSERT_SQL = `INSERT INTO issue_states (issue_key, state, resolved_mode, resolved_in, mute_until, mute_count, set_by, set_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (issue_key) DO UPDATE SET state = excluded.state, resolved_mode = excluded.resolved_mode, resolved_in = excluded.resolved_in,
    mute_until = excluded.mute_until, mute_count = excluded.mute_count, set_by = excluded.set_by, set_at = excluded.set_at`;

/** The statement's parameters for `row`, in `$1…$8` order. */
export const issueStateValues = (r: IssueStateRow): (string | number | null)[] => [r.issue_key, r.state, r.resolved_mode, r.resolved_in, r.mute_until, r.mute_count, r.set_by, r.set_at];

/**
 * The SQLite side of `setIssueState`: stores `row` in the file at `path` on a read-write
 * connection of its own, migrating an older schema first as `prune` does.
 * @throws {AuditStoreError} when the file cannot be opened or written.
 */
export function storeIssueState(path: string, row: IssueStateRow): void {
  const db = openAuditMaintenance(path);
  try {
    db.prepare(ISSUE_STATE_UPSERT_SQL.replace(/\$\d/g, '?')).run(...issueStateValues(row));
  } catch (error) {
    throw new AuditStoreError('unreadable', path, `cannot store the issue state: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  } finally {
    db.close();
  }
}
