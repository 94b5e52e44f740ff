/**
 * The audit store's one boundary (DESIGN §5 "The store sits behind one interface"): an
 * {@link AuditBackend} is the writer side (how to start the writer's worker thread), the reader
 * side and the maintenance side of one store. `sqlite/backend.ts` (the embedded default) and
 * `pg/backend.ts` (the fleet store) implement it; {@link openBackend} picks one from the target,
 * the only place that asks which kind a target is.
 *
 * SQL handed to a reader is the portable subset both engines answer the same way: `?`
 * placeholders (PostgreSQL's are numbered for it), `COALESCE`, `CASE`, positional `GROUP BY`,
 * no engine-only functions. Text columns compare bytewise on both (SQLite's BINARY, PostgreSQL's
 * `COLLATE "C"`), so orderings agree.
 */
import type { IssueStateRow } from './issue-states.js';
import type { ClientLabel } from './labels.js';
import type { ForgetResult, PrunePreview, PruneResult } from './maintenance.js';
import type { Settings } from './options.js';
import type { Pseudonymizer } from './pseudonym.js';

/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;

/** Which engine a reader reads. Only diagnostics (doctor, benchmarks) look at it. */
export type AuditDialect = 'sqlite' | 'postgres';

/**
 * A read-only connection to the audit store. Numbers come back as JS numbers on both engines
 * (PostgreSQL's `bigint`/`numeric` results are converted); text as strings; NULL as null.
 * Methods reject with the engine's error for bad SQL; opening is where `AuditStoreError`s arise.
 */
export interface AuditReader {
  readonly dialect: AuditDialect;
  /** Where it reads, fit for logs and output: a file path, or a PostgreSQL URL without its password. */
  readonly location: string;
  /** Every row of `sql` with `params` bound to its `?` placeholders, in order. */
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row of `sql`, or undefined when there is none. */
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Release the connection(s). Idempotent. */
  close(): Promise<void>;
}

/**
 * How the writer (writer.ts) starts its worker thread for one store. The worker speaks the
 * messages of internal-types.ts whatever the store, so the queue, gaps, health and exit flush
 * are the same code for both.
 */
export interface WriterWorkerSpec {
  /** The npm package the worker loads; the writer resolves it first, so a missing one is one clear line. */
  readonly driver: string;
  /** Thread name (shown in diagnostics). */
  readonly threadName: string;
  /** The worker's source, started with `eval: true` (see writer-worker.ts for why). */
  source(): string;
  /** Its `workerData`, with the driver's resolved entry and the writer's signal buffer. */
  workerData(settings: Settings, driverPath: string, signal: SharedArrayBuffer): unknown;
  /** The one line logged when the driver failed to load inside the worker. */
  driverFailure(code: string, message: string): string;
}

/** One audit store: writer, reader and maintenance. Every method throws {@link AuditStoreError} when the store cannot be opened. */
export interface AuditBackend {
  readonly dialect: AuditDialect;
  /** The writer's worker thread for this store. */
  readonly writer: WriterWorkerSpec;
  /** Open it read-only; an older or newer schema is refused, never migrated here. */
  openReader(): Promise<AuditReader>;
  /**
   * `doctor --migrate`: bring it to this version (creating it when empty). `notes`: what to do by
   * hand after the migrations it ran, one line each.
   */
  migrate(): Promise<{ from: number; to: number; notes: string[] }>;
  /** `prune`: rows older than `now - olderThanMs` (ms). RangeError for a bad age. */
  prune(olderThanMs: number, now: number): Promise<PruneResult>;
  /** `prune --dry-run`: what `prune` would delete; writes nothing. RangeError for a bad age. */
  previewPrune(olderThanMs: number, now: number): Promise<PrunePreview>;
  /** `forget`: every row of one subject. TypeError when the value is neither an email nor a phone. */
  forget(pseudonymizer: Pseudonymizer, emailOrPhone: string): Promise<ForgetResult>;
  /** `clients label`: store (or replace) an already checked label. */
  setClientLabel(label: ClientLabel): Promise<void>;
  /** `clients unlabel`: true when there was a label. */
  removeClientLabel(client: string): Promise<boolean>;
  /** `issues resolve|mute|reopen` (issue 29): store (or replace) an issue's operator state, migrating an older schema first. */
  setIssueState(row: IssueStateRow): Promise<void>;
}
