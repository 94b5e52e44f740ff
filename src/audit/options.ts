/** Options of the SQLite audit writer: the type, the defaults, and the checks run at open. */
import type { AuditLogger } from './logger.js';
import { defaultLogger } from './logger.js';
import { resolveDbPath } from './paths.js';
import type { TrafficSample } from '../protocol/error-event.js';
import type { AuditHealth } from './sink.js';

/** Options of {@link openAuditSink}. Every field is optional; units are in the names. */
export interface AuditSinkOptions {
  /**
   * Database file, or a `postgres://` / `postgresql://` URL for the PostgreSQL store
   * (credentials from the URL or the `PG*` variables). @default `AAP_TRIAGE_DB`, else `./aap-triage.db`
   */
  path?: string;
  /** Rows per transaction: a batch is handed to the worker when this many are queued. @default 500 */
  batchSize?: number;
  /** Longest a queued row waits before its batch is handed over, ms. @default 200 */
  flushIntervalMs?: number;
  /** Most rows queued or in flight; beyond it records are dropped, counted and a gap row written. @default 10000 */
  queueLimit?: number;
  /**
   * SQLite: how long a transaction waits for another process's write lock. PostgreSQL: how long
   * one batch keeps retrying (new connection, backoff) while the server is away before it is
   * counted as failed and recorded in a gap row. ms. @default 5000
   */
  busyTimeoutMs?: number;
  /** `service.name` for gap rows. @default the dropped events' own `service` */
  service?: string;
  /** pino-compatible logger. @default pino to stderr */
  logger?: AuditLogger;
  /** Called with a snapshot whenever the state changes (ok / degraded / failed). */
  onHealth?: (health: AuditHealth) => void;
  /**
   * Counters the sink pulls in (and records as `recordTraffic` would) right before its exit flush
   * (beforeExit, exit, SIGTERM/SIGINT): the instrumentation's per-minute traffic not yet handed
   * over, so a process that ends without `close()` keeps them as it keeps its error rows.
   */
  trafficSource?: () => TrafficSample[];
  /** `PRAGMA journal_size_limit`: the WAL is cut back to this size after a checkpoint, bytes. @default 67108864 (64 MiB) */
  journalSizeLimitBytes?: number;
  /** Idle time after the last batch before a TRUNCATE (else PASSIVE) checkpoint, ms. @default 1000 */
  idleCheckpointMs?: number;
  /** Flush on SIGTERM/SIGINT (re-raising the signal when no other listener exists). @default true */
  handleSignals?: boolean;
  /** Longest the synchronous flush at exit or on a signal blocks, ms. @default 3000 */
  exitFlushTimeoutMs?: number;
  /** Names `sanitizePointer` keeps in violation pointers. @default DEFAULT_KNOWN_NAMES */
  knownNames?: ReadonlySet<string>;
}

/** Default `PRAGMA journal_size_limit` of the writer: the WAL is cut back to this after a checkpoint, bytes (64 MiB). */
export const DEFAULT_JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/** Defaults, in one place. */
export const AUDIT_SINK_DEFAULTS = {
  batchSize: 500,
  flushIntervalMs: 200,
  queueLimit: 10_000,
  busyTimeoutMs: 5_000,
  journalSizeLimitBytes: DEFAULT_JOURNAL_SIZE_LIMIT_BYTES,
  idleCheckpointMs: 1_000,
  handleSignals: true,
  exitFlushTimeoutMs: 3_000,
} as const;

const OPTION_NAMES = new Set([
  'path',
  'batchSize',
  'flushIntervalMs',
  'queueLimit',
  'busyTimeoutMs',
  'service',
  'logger',
  'onHealth',
  'trafficSource',
  'journalSizeLimitBytes',
  'idleCheckpointMs',
  'handleSignals',
  'exitFlushTimeoutMs',
  'knownNames',
]);
const MISSPELLINGS: Record<string, string> = {
  filename: 'path',
  dbPath: 'path',
  file: 'path',
  flushInterval: 'flushIntervalMs',
  interval: 'flushIntervalMs',
  busyTimeout: 'busyTimeoutMs',
  timeout: 'busyTimeoutMs',
  queueSize: 'queueLimit',
  maxQueue: 'queueLimit',
  batch: 'batchSize',
};

function positiveInteger(options: AuditSinkOptions, name: keyof AuditSinkOptions, fallback: number, min = 1): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`Expected the "${name}" option to be an integer, got ${JSON.stringify(value) ?? typeof value}`);
  }
  if (value < min) throw new RangeError(`The "${name}" option must be at least ${min}, got ${value}`);
  return value;
}

/** Check `options` (better-sqlite3 style: the error names the option) and fill in defaults. */
export function checkOptions(options: AuditSinkOptions) {
  if (options === null || typeof options !== 'object') throw new TypeError('Expected the options to be an object');
  for (const key of Object.keys(options)) {
    if (OPTION_NAMES.has(key)) continue;
    const hint = MISSPELLINGS[key];
    throw new TypeError(hint ? `Unknown option "${key}": did you mean "${hint}"?` : `Unknown option "${key}"`);
  }
  if (options.path !== undefined && (typeof options.path !== 'string' || options.path === '' || options.path === ':memory:')) {
    throw new TypeError('Expected the "path" option to be a file path (not empty, not ":memory:")');
  }
  if (options.service !== undefined && typeof options.service !== 'string') throw new TypeError('Expected the "service" option to be a string');
  if (options.logger !== undefined && (typeof options.logger?.warn !== 'function' || typeof options.logger?.error !== 'function' || typeof options.logger?.info !== 'function')) {
    throw new TypeError('Expected the "logger" option to be a pino-compatible logger (info, warn, error)');
  }
  if (options.onHealth !== undefined && typeof options.onHealth !== 'function') throw new TypeError('Expected the "onHealth" option to be a function');
  if (options.trafficSource !== undefined && typeof options.trafficSource !== 'function') throw new TypeError('Expected the "trafficSource" option to be a function');
  if (options.handleSignals !== undefined && typeof options.handleSignals !== 'boolean') throw new TypeError('Expected the "handleSignals" option to be a boolean');
  if (options.knownNames !== undefined && !(options.knownNames instanceof Set)) throw new TypeError('Expected the "knownNames" option to be a Set of strings');
  const batchSize = positiveInteger(options, 'batchSize', AUDIT_SINK_DEFAULTS.batchSize);
  const queueLimit = positiveInteger(options, 'queueLimit', Math.max(AUDIT_SINK_DEFAULTS.queueLimit, batchSize));
  if (queueLimit < batchSize) throw new RangeError(`The "queueLimit" option (${queueLimit}) must be at least "batchSize" (${batchSize})`);
  return {
    path: resolveDbPath(options.path),
    batchSize,
    queueLimit,
    flushIntervalMs: positiveInteger(options, 'flushIntervalMs', AUDIT_SINK_DEFAULTS.flushIntervalMs),
    busyTimeoutMs: positiveInteger(options, 'busyTimeoutMs', AUDIT_SINK_DEFAULTS.busyTimeoutMs, 0),
    journalSizeLimitBytes: positiveInteger(options, 'journalSizeLimitBytes', AUDIT_SINK_DEFAULTS.journalSizeLimitBytes, 0),
    idleCheckpointMs: positiveInteger(options, 'idleCheckpointMs', AUDIT_SINK_DEFAULTS.idleCheckpointMs),
    exitFlushTimeoutMs: positiveInteger(options, 'exitFlushTimeoutMs', AUDIT_SINK_DEFAULTS.exitFlushTimeoutMs, 0),
    handleSignals: options.handleSignals ?? AUDIT_SINK_DEFAULTS.handleSignals,
    service: options.service ?? null,
    logger: options.logger ?? defaultLogger(),
    onHealth: options.onHealth,
    trafficSource: options.trafficSource,
    knownNames: options.knownNames,
  };
}

/** Checked options with defaults applied. */
export type Settings = ReturnType<typeof checkOptions>;

