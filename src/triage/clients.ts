/**
 * Clients (issue #17 "Client names"): the client pseudonyms with their traffic, the labels an
 * operator gave them, and the one way a client is shown everywhere (CLI tables, TUI, storms,
 * drafts): its label's name when it has one, and the first {@link CLIENT_DISPLAY_LENGTH}
 * characters of its pseudonym — a prefix `client:` accepts as it is.
 */
import type { ClientLabel } from '../audit/labels.js';
import { looksLikePseudonym, looksLikePseudonymPrefix, type QueryPseudonymizer } from './compile.js';
import type { Db } from './rows.js';
import type { TimeWindow } from './time.js';

export type { ClientLabel } from '../audit/labels.js';

/** Characters of a pseudonym the views show (6–12, so `client:` takes it as a prefix). */
export const CLIENT_DISPLAY_LENGTH = 8;
/** How a call without a credential is shown. */
export const NO_CREDENTIAL = '(no credential)';

/** Labels by client pseudonym. */
export type ClientLabels = ReadonlyMap<string, ClientLabel>;

/** The first {@link CLIENT_DISPLAY_LENGTH} characters of a pseudonym; {@link NO_CREDENTIAL} for none. */
export function shortClient(client: string | null | undefined): string {
  if (!client) return NO_CREDENTIAL;
  return client.length > CLIENT_DISPLAY_LENGTH ? client.slice(0, CLIENT_DISPLAY_LENGTH) : client;
}

/** A client as every view shows it: `Acme Motors (AbCdEfGh)` when labelled, else `AbCdEfGh`. */
export function formatClient(client: string | null | undefined, labels?: ClientLabels): string {
  const label = client ? labels?.get(client) : undefined;
  return label ? `${label.name} (${shortClient(client)})` : shortClient(client);
}

/** Every stored label. Read-only. */
export async function loadClientLabels(db: Db): Promise<Map<string, ClientLabel>> {
  const rows = await db.all<ClientLabel>('SELECT client, name, contact, updated_at FROM client_labels');
  return new Map(rows.map((r) => [r.client, r]));
}

/** One client over a window (`aap-triage clients`). Field names are the `--json` keys. */
export interface ClientSummary {
  client: string;
  /** Its label, or null. */
  label: ClientLabel | null;
  /** As the views show it ({@link formatClient}). */
  display: string;
  requests: number;
  errors: number;
  retries: number;
  /** errors ÷ requests, retries ÷ requests; null without requests. */
  error_rate: number | null;
  retry_ratio: number | null;
  /** First and last minute with traffic in the window, epoch ms. */
  first_seen: number;
  last_seen: number;
}

/**
 * Client pseudonyms with traffic in the window (from `traffic`), most requests first. Calls
 * without a credential are one entry with client ''. Read-only.
 */
export async function listClients(db: Db, window: TimeWindow, labels?: ClientLabels): Promise<ClientSummary[]> {
  labels ??= await loadClientLabels(db);
  const known = labels;
  const rows = await db.all<Omit<ClientSummary, 'label' | 'display' | 'error_rate' | 'retry_ratio'>>(
    `SELECT client, SUM(requests) AS requests, SUM(errors) AS errors, SUM(retries) AS retries, MIN(minute) AS first_seen, MAX(minute) AS last_seen
       FROM traffic WHERE minute >= ? AND minute < ? GROUP BY client ORDER BY requests DESC, client`,
    [window.since - (window.since % 60_000), window.until],
  );
  return rows.map((r) => ({
    client: r.client,
    label: known.get(r.client) ?? null,
    display: formatClient(r.client, known),
    requests: r.requests,
    errors: r.errors,
    retries: r.retries,
    error_rate: r.requests > 0 ? r.errors / r.requests : null,
    retry_ratio: r.requests > 0 ? r.retries / r.requests : null,
    first_seen: r.first_seen,
    last_seen: r.last_seen,
  }));
}

/** How {@link resolveClient} understood a value. */
export type ClientRef =
  | { kind: 'pseudonym' | 'prefix' | 'credential'; client: string }
  | { kind: 'ambiguous'; matches: string[] }
  | { kind: 'unknown' };

/** Known pseudonyms starting with `prefix` (errors, labels, the last 30 days of traffic), at most `limit`. */
async function pseudonymsStartingWith(db: Db, prefix: string, now: number, limit: number): Promise<string[]> {
  const upper = `${prefix}~`;
  const found = new Set<string>();
  const sql = [
    'SELECT DISTINCT client AS c FROM error_events WHERE client >= ? AND client < ? LIMIT ?',
    'SELECT client AS c FROM client_labels WHERE client >= ? AND client < ? LIMIT ?',
    'SELECT DISTINCT client AS c FROM traffic WHERE minute >= ? AND client >= ? AND client < ? LIMIT ?',
  ];
  for (const r of await db.all<{ c: string }>(sql[0]!, [prefix, upper, limit])) found.add(r.c);
  for (const r of await db.all<{ c: string }>(sql[1]!, [prefix, upper, limit])) found.add(r.c);
  for (const r of await db.all<{ c: string }>(sql[2]!, [now - 30 * 86_400_000, prefix, upper, limit])) found.add(r.c);
  return [...found].sort().slice(0, limit);
}

/**
 * What an operator means by `value` in `clients label <api key | pseudonym>`:
 * - a whole pseudonym (22 base64url characters) → that pseudonym;
 * - the start of exactly one known pseudonym (6–12 characters, as the views
 *   show them) → that pseudonym; the start of several → `ambiguous`;
 * - else, with a key, the credential's pseudonym under the current key; without one, `unknown`.
 * Read-only.
 */
export async function resolveClient(db: Db, value: string, pseudonymizer: QueryPseudonymizer | null, now: number = Date.now()): Promise<ClientRef> {
  if (looksLikePseudonym(value)) return { kind: 'pseudonym', client: value };
  if (looksLikePseudonymPrefix(value)) {
    const matches = await pseudonymsStartingWith(db, value, now, 5);
    if (matches.length === 1) return { kind: 'prefix', client: matches[0]! };
    if (matches.length > 1) return { kind: 'ambiguous', matches };
  }
  const client = pseudonymizer?.client(value) ?? null;
  return client ? { kind: 'credential', client } : { kind: 'unknown' };
}

/**
 * Whether the store knows `client`: an error row, a label, or traffic in the last 30 days (the
 * places `resolveClient` looks). `clients label` refuses an unknown one (a typo labels nobody).
 * Read-only.
 */
export async function isKnownClient(db: Db, client: string, now: number = Date.now()): Promise<boolean> {
  return (await pseudonymsStartingWith(db, client, now, 1)).includes(client);
}

/** Levenshtein distance between two short strings (pseudonym prefixes: at most 22 characters). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * The known client pseudonyms (error rows, labels, the last 30 days of traffic) whose start is
 * closest to `value` (edit distance over the first `value.length` characters, at least the
 * displayed 8), as they are displayed (`shortClient`), closest first, at most `limit`. Read-only.
 */
export async function closestClients(db: Db, value: string, limit = 3, now: number = Date.now()): Promise<string[]> {
  const rows = [
    ...(await db.all<{ c: string }>("SELECT DISTINCT client AS c FROM error_events WHERE client IS NOT NULL AND client <> '' LIMIT 10000")),
    ...(await db.all<{ c: string }>('SELECT client AS c FROM client_labels')),
    ...(await db.all<{ c: string }>("SELECT DISTINCT client AS c FROM traffic WHERE minute >= ? AND client <> '' LIMIT 10000", [now - 30 * 86_400_000])),
  ];
  const n = Math.max(CLIENT_DISPLAY_LENGTH, Math.min(value.length, 22));
  const scored = [...new Set(rows.map((r) => r.c))].map((c) => ({ c, d: editDistance(value.slice(0, n), c.slice(0, n)) }));
  scored.sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1));
  return scored.slice(0, limit).map((s) => shortClient(s.c));
}
