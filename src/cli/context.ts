import type { Command } from 'commander';
import { AuditStoreError, dbTargetProblem, isPostgresUrl, loadPseudonymizer, postgresUrlForCommand, PseudonymKeyError, resolveDbPath, type Pseudonymizer } from '../triage/store.js';
import type { Db, TimeWindow } from '../triage/index.js';
import { shellWord } from './invocation.js';
import { dbPathProblem, parseTimeSpec, resolveTimeSpec } from '../triage/index.js';

/** `camelCase` → `camel_case`; any other key (snake_case, codes, flags, pseudonyms with `-`/`_`/digits first) as it is. */
export function snakeCaseKey(key: string): string {
  return /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
}

/**
 * A JSON value with every object key in snake_case ({@link snakeCaseKey}), deeply; values are
 * untouched. Keys that are data rather than names (codes such as `RATE_LIMITED`, retry flags)
 * are never camelCase, so they pass unchanged; a camelCase key needs an uppercase letter
 * followed by a lowercase one, which a base64url pseudonym key could only have by chance — no
 * command prints an object keyed by pseudonyms.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[snakeCaseKey(k)] = snakeCaseKeys(v);
  return out;
}

/** Exit codes of `aap-triage` (documented in `--help` and docs/cli.md). */
export const EXIT = Object.freeze({
  /** Done. */
  OK: 0,
  /** Nothing found where that matters: unknown error id, trace id or storm id; nothing to draft. */
  NOT_FOUND: 1,
  /** Usage or input error: bad flag, bad query, bad duration, bad value. */
  USAGE: 2,
  /** Environment error: missing or unreadable database, schema too old or too new, native module, key file. */
  ENV: 3,
});

/** One day, ms. */
export const DAY_MS = 86_400_000;

/** Default window of search, stats, storms and draft when --since is not given: the last 24 h, in ms. */
export const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Where the program writes; injectable so tests run `main` in-process. */
export interface CliIo {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string | Uint8Array): unknown };
  /** Environment (`AAP_TRIAGE_DB`, `AAP_TRIAGE_KEY`). Default `process.env`. */
  env: NodeJS.ProcessEnv;
  /** Clock, epoch ms. Default `Date.now`. */
  now: () => number;
  /**
   * How the user starts aap-triage, as hints print it (`invocationOf`, src/cli/invocation.ts):
   * `aap-triage` or `node '/path/to/bin/aap-triage.js'`. Default `aap-triage`.
   */
  invocation?: string;
  /** Where `hash -` reads its value from. Default `process.stdin` (touched only by `hash -`). */
  stdin?: AsyncIterable<string | Uint8Array>;
  /** Aborts long-running commands (`tail`); SIGINT does the same in a real process. */
  signal?: AbortSignal;
}

/**
 * An error the program reports as one line, `aap-triage: <what> — <how to fix>`, with an exit
 * code. Commands throw it; `main` prints it. Never a stack trace.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly what: string,
    readonly how: string | null,
    readonly exitCode: number,
  ) {
    super(how ? `${what} — ${how}` : what);
  }
}

/** Global options as given (see `registerGlobalOptions`). */
export interface GlobalOptions {
  db?: string;
  json?: boolean;
  since?: string;
  until?: string;
  limit?: string;
  keyFile?: string;
  /** false for `--no-color`. */
  color?: boolean;
}

/** What a command gets: output helpers, resolved globals, the store and the key. */
export class CommandContext {
  /** Exit code the running command settled on. */
  exitCode: number = EXIT.OK;
  /**
   * The store this run opened (read-only, once: `openDb`, src/cli/open-db.ts, which the command
   * actions import, so `--version` and `--help` never load the reader); {@link close} closes it.
   */
  db: Db | undefined;

  constructor(readonly io: CliIo) {}

  /** How hints name this program: `io.invocation`, default `aap-triage`. */
  get invocation(): string {
    return this.io.invocation ?? 'aap-triage';
  }

  now(): number {
    return this.io.now();
  }

  /** Writes text to stdout, adding a final newline when missing. */
  out(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Writes one line to stderr (notes such as "no rows"; never data). */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /**
   * Prints a value as indented JSON with snake_case keys (issue #17: every command's `--json`
   * uses one key style; docs/cli.md documents each shape). See {@link snakeCaseKeys}.
   */
  json(value: unknown): void {
    this.out(JSON.stringify(snakeCaseKeys(value), null, 2));
  }

  /** Global options merged with the command's own. */
  globals(cmd: Command): GlobalOptions & Record<string, unknown> {
    return cmd.optsWithGlobals();
  }

  /**
   * The database path: `--db`, else `AAP_TRIAGE_DB`, else `./aap-triage.db`.
   * @throws CliError exit 2 for an empty `--db`, and for a URL that cannot name a store (`pg://…`,
   *   a port that is not a number, an unknown sslmode), in one line without the password, naming
   *   where it came from.
   */
  dbPath(cmd: Command): string {
    const given = this.globals(cmd).db;
    // An empty --db (an unset shell variable, `--db ""`) would name the current folder.
    if (given !== undefined && given.trim() === '') throw new CliError('--db is empty: give a SQLite file path or a postgres:// URL', null, EXIT.USAGE);
    const path = resolveDbPath(given, this.io.env);
    const problem = dbTargetProblem(path);
    if (problem !== null) throw new CliError(`${given !== undefined ? '--db' : 'AAP_TRIAGE_DB'} ${problem}`, null, EXIT.USAGE);
    return path;
  }

  /**
   * {@link dbPath} for a command that opens the store (not for the key's `<db>.key` default):
   * a directory is refused before SQLite sees it.
   * @throws CliError exit 3 `<path> is a directory, not an audit database — pass the .db file`.
   */
  storePath(cmd: Command): string {
    const path = this.dbPath(cmd);
    const problem = dbPathProblem(path);
    if (problem) throw new CliError(problem.what, problem.how, EXIT.ENV);
    return path;
  }

  /** Closes the store if a command opened it ({@link db}). */
  async close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    await db?.close().catch(() => undefined);
  }

  /**
   * The pseudonymiser of the current key, never creating a key file. With `required`, a missing
   * key is an exit-3 error; otherwise null.
   */
  pseudonymizer(cmd: Command, required: boolean): Pseudonymizer | null {
    const g = this.globals(cmd);
    try {
      return loadPseudonymizer({ dbPath: this.dbPath(cmd), env: this.io.env, keyFile: g.keyFile, create: false, logger: this.lineLogger() });
    } catch (error) {
      if (!required && error instanceof PseudonymKeyError && error.kind === 'missing') return null;
      if (error instanceof RangeError) throw new CliError(`AAP_TRIAGE_PHONE_REGION '${this.io.env['AAP_TRIAGE_PHONE_REGION'] ?? ''}' is not a region`, 'use a two-letter country code such as GB or US', EXIT.ENV);
      throw toCliError(error);
    }
  }

  /** A logger for the audit layer that writes its warnings as one `aap-triage: warning:` line each. */
  lineLogger(): { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void } {
    const line = (level: string) => (_obj: object, msg?: string) => {
      if (msg) this.io.stderr.write(`aap-triage: ${level}: ${msg}\n`);
    };
    return { info: () => undefined, warn: line('warning'), error: line('error') };
  }

  /**
   * A command line for a hint, runnable as printed: how this process was started (`io.invocation`), the global options the
   * operator gave that say where the data is — `--db`, `--key-file`, and `--since` / `--until`
   * unless `window` is false — then `rest` (the command and its options, already shell words).
   * Values are quoted for the shell when needed (a path with spaces).
   */
  commandLine(cmd: Command, rest: string, options: { window?: boolean } = {}): string {
    const g = this.globals(cmd);
    const parts = [this.invocation];
    const add = (flag: string, value: string | undefined) => {
      if (value !== undefined) parts.push(flag, shellWord(value));
    };
    // A PostgreSQL URL is repeated without its password (PGPASSWORD or ~/.pgpass supplies it).
    add('--db', g.db !== undefined && isPostgresUrl(g.db) ? postgresUrlForCommand(g.db) : g.db);
    add('--key-file', g.keyFile);
    if (options.window !== false) {
      add('--since', g.since);
      add('--until', g.until);
    }
    parts.push(rest);
    return parts.join(' ');
  }

  /** Whether colours may be used: not with `--no-color`, nor with `NO_COLOR` set to a non-empty value (no-color.org). */
  color(cmd: Command): boolean {
    return this.globals(cmd).color !== false && !this.io.env['NO_COLOR'];
  }

  /** `--limit` as a positive integer (default `dflt`); a bad value is a usage error. */
  limit(cmd: Command, dflt: number): number {
    const raw = this.globals(cmd).limit;
    if (raw === undefined) return dflt;
    if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1) throw new CliError(`--limit must be a positive integer, got '${raw}'`, 'e.g. --limit 100', EXIT.USAGE);
    return Number(raw);
  }

  /** The window from `--since` / `--until` (durations count back from now), default the last `defaultMs` (24 h). */
  window(cmd: Command, defaultMs: number = DEFAULT_WINDOW_MS): TimeWindow {
    const g = this.globals(cmd);
    const now = this.now();
    const at = (flag: string, raw: string | undefined, dflt: number): number => {
      if (raw === undefined) return dflt;
      const spec = parseTimeSpec(raw);
      if (!spec) throw new CliError(`${flag} '${raw}' is not a duration or an RFC 3339 time`, 'use e.g. 15m, 24h, 7d or 2026-11-30T01:00:00Z', EXIT.USAGE);
      return resolveTimeSpec(spec, now);
    };
    const until = at('--until', g.until, now + 1);
    const since = at('--since', g.since, until - defaultMs);
    if (since >= until) throw new CliError('--since is not before --until', 'swap them or widen the window', EXIT.USAGE);
    return { since, until };
  }
}

/**
 * Maps store and key errors to one-line exit-3 errors (every `AuditStoreError` kind, including
 * `schema-too-old`, whose message names `doctor --migrate`); anything else passes through.
 */
export function toCliError(error: unknown): unknown {
  if (error instanceof AuditStoreError) return new CliError(error.message, null, EXIT.ENV);
  if (error instanceof PseudonymKeyError) return new CliError(error.message, null, EXIT.ENV);
  return error;
}

/** One command of the program: `src/cli/commands/<verb>.ts` exports one of these. */
export interface CommandModule {
  /** The verb, as typed. */
  name: string;
  /** Adds the command to `program`; its action sets `ctx.exitCode` (or throws `CliError`). */
  register(program: Command, ctx: CommandContext): void;
}
