/**
 * The terminal UI of aap-triage (issue 6): `runTui` for the CLI and the demo; the view models
 * and the data-source interface for anyone embedding the views.
 */
import type { StartView } from './registry.js';
import type { QueryPseudonymizer } from '../triage/compile.js';
import { dbPathProblem } from '../triage/db-path.js';
import { AuditStoreError, isPostgresUrl, openStoreReader, storeLabel } from '../triage/store.js';
import { parseTimeSpec } from '../triage/time.js';
import { EXTENSION_URI_ENV, extensionUriProblem } from '../triage/extension-uri.js';
import { TRACE_URL_ENV, traceUrlProblem } from '../triage/trace-link.js';
import { interactiveProblem, NOT_INTERACTIVE_MESSAGE } from './interactive.js';
import { loadRenderer } from './load-renderer.js';
import { createTriageSource } from './triage-source.js';
import { operatorName } from '../triage/issue-actions.js';
import { filterWindow, type TuiSource } from './source.js';
import { initialNav } from './navigation.js';
import type { IssuePage, WindowSpec } from './types.js';

/** The operator named by the environment (issue 29), or null when none or not printable. */
function operatorOrNull(env: NodeJS.ProcessEnv): string | null {
  try {
    return operatorName(env);
  } catch {
    return null;
  }
}

export { isCi, interactiveProblem, notInteractiveMessage, NOT_INTERACTIVE_MESSAGE } from './interactive.js';
export type { TuiSource } from './source.js';
export { createTriageSource, DEFAULT_MAIL } from './triage-source.js';
export type * from './types.js';
export { RENDER_BUNDLE } from './load-renderer.js';

/**
 * The Issues view's first page for `window` and `query` now, in its default order, as the App
 * would read it at mount (`AppProps.firstIssues`); undefined when the read fails (a bad query:
 * the App then reads and shows the error itself).
 */
async function readFirstIssues(source: TuiSource, window: WindowSpec, query: string): Promise<{ at: number; page: IssuePage } | undefined> {
  const at = Date.now();
  try {
    return { at, page: await source.issues(query, filterWindow(source, window, query, at), initialNav('issues', query, window).issueSort) };
  } catch {
    return undefined;
  }
}

/** Options of `runTui`. */
export interface RunTuiOptions {
  /** Audit store: a SQLite path or a `postgres://` URL (opened read-only). */
  readonly dbPath: string;
  /** Window start: a duration back from now (`15m`, `1h`, `7d`) or an RFC 3339 time. @default '1h' */
  readonly since?: string;
  /** Window end (RFC 3339 or duration back from now); absent = now, following the clock. */
  readonly until?: string;
  /** Initial filter in the query language of `aap-triage search`. @default '' */
  readonly query?: string;
  /** View shown first. @default 'issues' */
  readonly view?: StartView;
  /** Live refresh period, milliseconds. @default 2000 */
  readonly refreshMs?: number;
  /** Folder `w` writes drafts to. @default process.cwd() */
  readonly draftDir?: string;
  /** Pseudonymiser of the current key, so raw `client:`/`subject:` values work in the filter. */
  readonly pseudonymizer?: QueryPseudonymizer | null;
  /** From / To of `.eml` drafts. @default DEFAULT_MAIL */
  readonly mail?: { readonly from?: string; readonly to?: string | string[] };
  /** @default process.stdin */
  readonly stdin?: NodeJS.ReadStream;
  /** @default process.stdout */
  readonly stdout?: NodeJS.WriteStream;
  /** Where the one-line refusals go (not a terminal, bad window, missing database). @default process.stderr */
  readonly stderr?: { write(chunk: string): unknown };
  /** @default process.env; `AAP_TRIAGE_TRACE_URL` (trace links, src/triage/trace-link.ts) and `AAP_TRIAGE_EXTENSION_URI` (drafts' -32008 advice, src/triage/extension-uri.ts) are read from it. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs the terminal UI until the operator quits and resolves to the exit code:
 * - 0 after `q` (or Ctrl+C);
 * - 2 when stdin or stdout is not a terminal or `CI` is set (one line on stderr naming the
 *   `--json` commands; ink is never loaded, so there is no raw-mode error), for a bad `since`,
 *   for an `AAP_TRIAGE_TRACE_URL` that is not an http(s) URL with `{trace_id}`, or an
 *   `AAP_TRIAGE_EXTENSION_URI` that is not an absolute http(s) URI;
 * - 3 when the database is missing or unreadable (the `AuditStoreError` line on stderr), or
 *   the path is a directory (`<path> is a directory, not an audit database — pass the .db file`).
 * Never throws for these; other errors propagate.
 */
export async function runTui(options: RunTuiOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  if (interactiveProblem(stdin, stdout, env) !== null) {
    stderr.write(NOT_INTERACTIVE_MESSAGE + '\n');
    return 2;
  }
  const traceUrl = env[TRACE_URL_ENV] || null;
  const traceProblem = traceUrl ? traceUrlProblem(traceUrl) : null;
  if (traceProblem) {
    stderr.write(`aap-triage: ${traceProblem}\n`);
    return 2;
  }
  const extensionUri = env[EXTENSION_URI_ENV] || null;
  const uriProblem = extensionUri ? extensionUriProblem(extensionUri, EXTENSION_URI_ENV) : null;
  if (uriProblem) {
    stderr.write(`aap-triage: ${uriProblem}\n`);
    return 2;
  }
  const since = options.since ?? '1h';
  for (const [name, value] of [['--since', since], ['--until', options.until]] as const) {
    if (value !== undefined && !parseTimeSpec(value)) {
      stderr.write(`aap-triage: bad ${name} '${value}': expected a duration like 15m, 24h, 7d or an RFC 3339 time\n`);
      return 2;
    }
  }
  // React's development build (the default when NODE_ENV is unset) checks and times every
  // element and roughly doubles the cost of a frame; an operator's terminal wants production.
  // Only when unset, and before React is first loaded (it reads NODE_ENV once).
  if (process.env['NODE_ENV'] === undefined) process.env['NODE_ENV'] = 'production';
  // Start loading ink and React (most of the time to the first frame) while the store opens.
  const loading = loadRenderer();
  loading.catch(() => undefined);
  const pathProblem = isPostgresUrl(options.dbPath) ? null : dbPathProblem(options.dbPath);
  if (pathProblem) {
    stderr.write(`aap-triage: ${pathProblem.what} — ${pathProblem.how}\n`);
    return 3;
  }
  let db;
  try {
    db = await openStoreReader(options.dbPath);
  } catch (err) {
    if (err instanceof AuditStoreError) {
      stderr.write(`aap-triage: ${err.message}\n`);
      return 3;
    }
    throw err;
  }
  try {
    const source = createTriageSource(db, {
      pseudonymizer: options.pseudonymizer ?? null,
      ...options.mail,
      traceUrl,
      extensionUri,
      issueStates: { target: options.dbPath, operator: operatorOrNull(env) },
    });
    const window = options.until ? { since, until: options.until } : { since };
    const query = options.query ?? '';
    const view = options.view ?? 'issues';
    // The first page is read while the renderer loads, so the first frame is the data frame
    // (issue 28 "first data frame"); the loading line covers only a read that fails here.
    const [{ renderApp }, firstIssues] = await Promise.all([loading, view === 'issues' ? readFirstIssues(source, window, query) : undefined]);
    await renderApp(
      {
        source,
        dbLabel: isPostgresUrl(options.dbPath) ? storeLabel(options.dbPath) : options.dbPath,
        window,
        query,
        view,
        refreshMs: options.refreshMs ?? 2000,
        draftDir: options.draftDir ?? process.cwd(),
        ...(firstIssues ? { firstIssues } : {}),
      },
      { stdin, stdout, stderr: process.stderr },
    );
    return 0;
  } finally {
    await db.close();
  }
}
