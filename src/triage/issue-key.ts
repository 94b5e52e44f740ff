/**
 * The issue group key, as triage uses it. The key itself is computed where rows are written
 * (src/audit/issue-key.ts documents the exact recipe, version 1: service, protocol, skill or
 * JSON-RPC method, code, and the shape of the violations and conformance rules); this module
 * re-exports it for the CLI and the TUI and adds the one-line title the views show.
 */
export { ISSUE_KEY_LENGTH, ISSUE_KEY_MIN_PREFIX, issueKey, issueKeyText, isIssueKeyPrefix } from '../audit/issue-key.js';
export type { IssueKeyFields } from '../audit/issue-key.js';

/** The fields an issue's title is made of. */
export interface IssueTitleFields {
  service: string;
  protocol: string;
  rpc_method: string;
  skill: string | null;
  code: string;
}

/** `CODE · skill-or-method · service (protocol)`, e.g. `RATE_LIMITED · inventory.search · dealer-east (aap)`. */
export function issueTitle(f: IssueTitleFields): string {
  return `${f.code} · ${f.skill ?? f.rpc_method} · ${f.service} (${f.protocol})`;
}
