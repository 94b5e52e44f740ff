/**
 * Triage by release (issue 29, DESIGN §5 "Issue states"): the order of the dealer's versions,
 * what an operator's resolution or mute means for the rows that follow it, and the reads behind
 * them. The states themselves are stored by src/audit/issue-states.ts.
 *
 * Version order (docs/releases.md):
 * - two versions that both parse as SemVer 2.0 (loosely: a leading `v` is allowed) compare by
 *   SemVer precedence, through the `semver` package: `1.4.0-rc.1 < 1.4.0 < 1.10.0`; build
 *   metadata is ignored (`1.4.0+b7` equals `1.4.0`);
 * - any other pair (a date `2026.12.02`, a build `build-117`, a commit id, or one SemVer and one
 *   not) compares in natural order: the strings character by character with runs of digits taken
 *   as numbers (`Intl.Collator` with `numeric`), so `2026.12.2 < 2026.12.10` and
 *   `build-99 < build-100`. A commit id has no release order: use SemVer, a date or a build number.
 *
 * Regression by release: an issue resolved in version V regresses only on a row of a version ≥ V
 * that occurred after the resolution; resolved "in the next release", only on a row of a version
 * newer than the newest seen when it was resolved; resolved "now", on any later row. A row with
 * no version cannot be placed among releases: it regresses only an issue resolved "now". Rows
 * from older versions still running are counted, against their own version, and reopen nothing.
 */
import semver from 'semver';
import type { IssueStateRow } from '../audit/issue-states.js';
import type { Db } from './rows.js';

/** The operator's state of an issue as it stands now (see {@link issueStatus}). */
export type IssueStatus = 'open' | 'resolved' | 'muted' | 'regressed';

/** Every {@link IssueStatus}, in the order help texts list them. */
export const ISSUE_STATUSES: readonly IssueStatus[] = ['open', 'resolved', 'muted', 'regressed'];

const natural = new Intl.Collator('en', { numeric: true });

/**
 * Release order of two versions: negative when `a` is older, 0 when the same release, positive
 * when newer (see the file doc for the SemVer and fallback rules). Pure; never throws.
 */
export function compareVersions(a: string, b: string): number {
  const sa = semver.parse(a, { loose: true });
  const sb = semver.parse(b, { loose: true });
  if (sa && sb) return semver.compare(sa, sb);
  return natural.compare(a, b);
}

/** `versions` sorted oldest release first; null (no version) last. Returns a new array. */
export function sortVersions<T extends { version: string | null }>(versions: readonly T[]): T[] {
  return [...versions].sort((x, y) => (x.version === null ? 1 : y.version === null ? -1 : compareVersions(x.version, y.version)));
}

/** The newest of `versions` in release order, or null when there is none. */
export function newestVersion(versions: readonly (string | null)[]): string | null {
  let out: string | null = null;
  for (const v of versions) if (v !== null && (out === null || compareVersions(v, out) > 0)) out = v;
  return out;
}

/** Whether a row of `version` arriving after the resolution `state` regresses it. Pure. */
export function regresses(state: Pick<IssueStateRow, 'resolved_mode' | 'resolved_in'>, version: string | null): boolean {
  if (state.resolved_mode === 'now') return true;
  if (version === null) return false;
  if (state.resolved_mode === 'version') return state.resolved_in === null || compareVersions(version, state.resolved_in) >= 0;
  return state.resolved_in === null || compareVersions(version, state.resolved_in) > 0;
}

/** Errors of one version of an issue since a time: the first one's time and how many. */
export interface VersionSince {
  version: string | null;
  /** First error of this version after the time, epoch ms. */
  first_at: number;
  count: number;
}

/** The regression of a resolved issue: when (the first regressing row) and in which version. */
export interface Regression {
  at: number;
  version: string | null;
}

/** The earliest row among `since` (per version, after the resolution) that regresses `state`; null when none does. Pure. */
export function findRegression(state: Pick<IssueStateRow, 'resolved_mode' | 'resolved_in'>, since: readonly VersionSince[]): Regression | null {
  let out: Regression | null = null;
  for (const v of since) if (regresses(state, v.version) && (out === null || v.first_at < out.at)) out = { at: v.first_at, version: v.version };
  return out;
}

/**
 * Whether a mute still holds at `now`: until `mute_until` (when set) and until `mute_count`
 * errors arrived after it was set (when set); with neither, forever. `countSince` is the number
 * of errors after `set_at` (the caller may stop counting at `mute_count`). Pure.
 */
export function muteHolds(state: Pick<IssueStateRow, 'mute_until' | 'mute_count'>, countSince: number, now: number): boolean {
  if (state.mute_until !== null && now >= state.mute_until) return false;
  if (state.mute_count !== null && countSince >= state.mute_count) return false;
  return true;
}

/** What {@link issueReleaseFacts} adds to an issue. */
export interface IssueReleaseFacts {
  status: IssueStatus;
  /** The regression by release (status `regressed`), else null. */
  regression: Regression | null;
  /** Errors of a muted issue since the mute (counted up to its `mute_count`), else null. */
  muted_count: number | null;
}

/** Every stored issue state by issue key. Read-only. */
export async function loadIssueStates(db: Db): Promise<Map<string, IssueStateRow>> {
  const rows = await db.all<IssueStateRow>('SELECT issue_key, state, resolved_mode, resolved_in, mute_until, mute_count, set_by, set_at FROM issue_states');
  return new Map(rows.map((r) => [r.issue_key, r]));
}

/**
 * The status of issue `key` under its stored `state` at `now`: `open` without one (or after a
 * reopen, or once a mute ended), `muted` while its mute holds, `resolved`, or `regressed` when a
 * row after the resolution regresses it (see the file doc). `extra` narrows the rows read (the
 * buyer-calls condition, with a leading ` AND `). Read-only; throws what the store throws.
 */
export async function issueReleaseFacts(db: Db, key: string, state: IssueStateRow | undefined, now: number, extra = ''): Promise<IssueReleaseFacts> {
  if (!state || state.state === 'open') return { status: 'open', regression: null, muted_count: null };
  if (state.state === 'muted') {
    const limit = state.mute_count;
    const n =
      limit === null
        ? 0
        : ((await db.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 AS one FROM error_events WHERE issue_key = ? AND occurred_at > ?${extra} LIMIT ?) t`, [key, state.set_at, limit]))?.n ?? 0);
    return muteHolds(state, n, now) ? { status: 'muted', regression: null, muted_count: limit === null ? null : n } : { status: 'open', regression: null, muted_count: null };
  }
  const since = await db.all<VersionSince>(
    `SELECT service_version AS version, min(occurred_at) AS first_at, count(*) AS count FROM error_events WHERE issue_key = ? AND occurred_at > ?${extra} GROUP BY 1`,
    [key, state.set_at],
  );
  const regression = findRegression(state, since);
  return { status: regression ? 'regressed' : 'resolved', regression, muted_count: null };
}

/**
 * The version a resolution "in the next release" is measured against: the newest version (release
 * order) among the issue's rows and the rows of its service in the `lookbackMs` before `now` (the
 * fix ships in a release newer than any deployed), or null when no row names a version (then any
 * versioned row regresses it). Read-only.
 */
export async function nextReleaseBase(db: Db, key: string, now: number, lookbackMs = 24 * 3_600_000): Promise<string | null> {
  const own = await db.all<{ v: string }>('SELECT DISTINCT service_version AS v FROM error_events WHERE issue_key = ? AND service_version IS NOT NULL', [key]);
  const service = (await db.get<{ s: string }>('SELECT service AS s FROM error_events WHERE issue_key = ? ORDER BY occurred_at DESC LIMIT 1', [key]))?.s;
  const deployed =
    service === undefined
      ? []
      : await db.all<{ v: string }>('SELECT DISTINCT service_version AS v FROM error_events WHERE service = ? AND occurred_at >= ? AND service_version IS NOT NULL', [service, now - lookbackMs]);
  return newestVersion([...own, ...deployed].map((r) => r.v));
}

/**
 * The issue keys that start with `prefix` (lowercase hex), at most `limit`, from the stored rows
 * and states. Read-only.
 */
export async function issueKeysWithPrefix(db: Db, prefix: string, limit = 5): Promise<string[]> {
  // One index probe per key (min over the issue index), not a DISTINCT walk over a big issue's rows.
  const out: string[] = [];
  let after = '';
  while (out.length < limit) {
    const row = await db.get<{ k: string | null }>(
      `SELECT min(k) AS k FROM (SELECT min(issue_key) AS k FROM error_events WHERE issue_key >= ? AND issue_key > ? AND issue_key < ?
         UNION ALL SELECT min(issue_key) FROM issue_states WHERE issue_key >= ? AND issue_key > ? AND issue_key < ?) t`,
      [prefix, after, `${prefix}~`, prefix, after, `${prefix}~`],
    );
    if (!row?.k) break;
    out.push(row.k);
    after = row.k;
  }
  return out;
}
