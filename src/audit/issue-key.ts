/**
 * The issue group key (issue #17 "Issues"): errors that are "the same problem" share one key,
 * the way Sentry groups events into issues. Stored per row in `error_events.issue_key` (written
 * by `eventToRow`, so every store and every writer computes it the same way) and summed per hour
 * in `issue_hours` by the writer, per batch (src/audit/schema.ts, migration 3).
 *
 * The key is the first {@link ISSUE_KEY_LENGTH} hex digits of SHA-256 over this text (version 1,
 * fields joined by `\n`; never change it — add `issue-v2` instead, since stored keys would split):
 *
 *   issue-v1
 *   <service>
 *   <protocol>                      aap | a2a | dmc12 | jsonrpc
 *   s:<skill> | m:<rpc_method>      the skill or DMC-12 tool when known, else the JSON-RPC method
 *   <code>
 *   <violations shape>              distinct `keyword@pointer`, sorted, joined by `,`; numeric
 *                                   pointer segments (array indexes) become `*`
 *   <conformance shape>             distinct rule ids, sorted, joined by `,`
 *
 * Every input is a PII-free column value (codes, names, sanitised pointers, rule ids), so a plain
 * hash is enough; it is not a pseudonym. Retryable, client, attempt and time are not part of the
 * key: they are what an issue counts, not what it is.
 */

/**
 * node:crypto, taken on the first key rather than at import: `import('aap-triage')` loads this
 * module through the column table (its log fields) but keys nothing (issue 31 "Start-up"); the
 * instrumentation's runtime loads node:crypto before its first request.
 */
let crypto: typeof import('node:crypto') | undefined;

/** Hex digits of a stored issue key (64 bits: collision-free for the few thousand issues a store holds). */
export const ISSUE_KEY_LENGTH = 16;
/** Shortest prefix `issue:` accepts (what the views display is {@link ISSUE_KEY_LENGTH}). */
export const ISSUE_KEY_MIN_PREFIX = 6;

/** The row fields the key is computed from (stored column names). */
export interface IssueKeyFields {
  service: string;
  protocol: string;
  rpc_method: string;
  skill: string | null;
  code: string;
  violations: readonly { location: string; keyword: string }[];
  conformance: readonly string[];
}

const distinctSorted = (values: Iterable<string>): string => [...new Set(values)].sort().join(',');

/** A pointer with array indexes replaced by `*` (`/items/3/price` → `/items/*` + `/price`). */
const pointerShape = (pointer: string): string => pointer.replace(/\/\d+(?=\/|$)/g, '/*');

/** The canonical text of version 1 the key hashes (see the module comment). Pure. */
export function issueKeyText(f: IssueKeyFields): string {
  return [
    'issue-v1',
    f.service,
    f.protocol,
    f.skill !== null && f.skill !== '' ? `s:${f.skill}` : `m:${f.rpc_method}`,
    f.code,
    distinctSorted(f.violations.map((v) => `${v.keyword}@${pointerShape(String(v.location))}`)),
    distinctSorted(f.conformance),
  ].join('\n');
}

/**
 * Keys of recent canonical texts: an error storm is a few issues many times over, so most rows
 * skip the SHA-256 (issue 14). Bounded; cleared when full.
 */
const recentKeys = new Map<string, string>();
const RECENT_KEYS_MAX = 1024;

/** The issue key of a row: {@link ISSUE_KEY_LENGTH} lowercase hex digits. Pure; never throws on well-typed input. */
export function issueKey(f: IssueKeyFields): string {
  const text = issueKeyText(f);
  let key = recentKeys.get(text);
  if (key === undefined) {
    key = (crypto ??= process.getBuiltinModule('node:crypto')).hash('sha256', text, 'hex').slice(0, ISSUE_KEY_LENGTH);
    if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
    recentKeys.set(text, key);
  }
  return key;
}

/** Whether `value` can name an issue in `issue:`: lowercase hex, {@link ISSUE_KEY_MIN_PREFIX}..{@link ISSUE_KEY_LENGTH} digits. */
export function isIssueKeyPrefix(value: string): boolean {
  return value.length >= ISSUE_KEY_MIN_PREFIX && value.length <= ISSUE_KEY_LENGTH && /^[0-9a-f]+$/.test(value);
}
