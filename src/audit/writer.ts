/**
 * The SQLite audit writer (DESIGN §5, issue #4 "Writer"): a bounded queue on the caller's
 * thread, batches handed to a worker thread that commits each in one `BEGIN IMMEDIATE`
 * transaction. Nothing here throws into the host after `openAuditSink` returns.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { ErrorEvent, TrafficSample } from '../protocol/error-event.js';
import { removeWriterHealthFiles, writeHealthFileAsync } from './health.js';
import type { BatchMessage, FromWorker, GapRow, TrafficRow, WorkerInit } from './internal-types.js';
import { applyMigrations } from './migrate.js';
import { checkOptions } from './options.js';
import type { AuditSinkOptions, Settings } from './options.js';
import { registerExitFlush, unregisterExitFlush } from './process-hooks.js';
import type { ExitFlushable } from './process-hooks.js';
import { dbTargetProblem, isPostgresUrl, nodePgConnectionString, storeLabel } from './paths.js';
import { ensurePartitions, migratePg, PG_MIGRATIONS, schemaFunctionsSource } from './pg/schema.js';
import { pgWriterWorkerMain, type PgWorkerInit } from './pg/writer-worker.js';
import { issueHoursBatchSql } from './pg/issue-hours.js';
import { eventToRow, gapRow, trafficKey, trafficToRow } from './row.js';
import { ERROR_EVENT_COLUMNS, ISSUE_HOURS_UPSERT_SQL, MIGRATIONS } from './schema.js';
import type { AuditGap, AuditHealth, AuditSink } from './sink.js';
import { writerWorkerMain } from './writer-worker.js';

/** Health with the counters only this sink has. */
export interface SqliteAuditHealth extends AuditHealth {
  /** Events whose `error_id` was already stored (not written again, not counted as written). */
  duplicates: number;
}

/** The SQLite sink: an {@link AuditSink} that also says where it writes. */
export interface SqliteAuditSink extends AuditSink {
  /** Absolute database path. */
  readonly path: string;
  recordGap(gap: AuditGap): void;
  health(): SqliteAuditHealth;
}

/** Minimum gap between two warn lines of the same kind, ms. */
const WARN_INTERVAL_MS = 60_000;

interface InFlight {
  seq: number;
  rows: number;
  /** Gap rows sent with the batch: queued again if it fails, so no gap record is lost. */
  gaps: GapRow[];
  minAt: number;
  maxAt: number;
  service: string;
}

interface Gap {
  service: string;
  startedAt: number;
  endedAt: number;
  count: number;
}

/**
 * First lines of both workers' source. The bundle (dist/lib, scripts/bundle-lib.mjs) rewrites
 * `require` inside the worker functions to rolldown's `__require` shim, which an eval worker
 * does not have: it gets Node's own `require` under that name.
 */
const WORKER_PRELUDE = "'use strict';\nconst __require = require;\n";

/** The worker's source: the migration function and the worker body, as plain JavaScript. */
function workerSource(): string {
  // Both functions inline as expressions (a bundler may rename their declarations), and
  // `require` passed in (the library bundle rewrites free `require(…)` calls to its own shim).
  return `'use strict';\n(${writerWorkerMain.toString()})(${applyMigrations.toString()}, require);\n`;
}

/** The PostgreSQL worker's source: the schema functions and the worker body (pg/writer-worker.ts). */
function pgWorkerSource(): string {
  // By the functions' own names: a bundler may rename them.
  return `${WORKER_PRELUDE}${schemaFunctionsSource()}\n(${pgWriterWorkerMain.toString()})({ migratePg: ${migratePg.name}, ensurePartitions: ${ensurePartitions.name}, issueHoursBatchSql: ${issueHoursBatchSql.name} });\n`;
}

class Writer implements SqliteAuditSink, ExitFlushable {
  readonly path: string;
  readonly exitFlushTimeoutMs: number;
  private readonly settings: Settings;
  private worker: Worker | null = null;
  private readonly signal = new SharedArrayBuffer(8);
  private readonly signalView = new Int32Array(this.signal);
  private state: AuditHealth['state'] = 'ok';
  private reason: string | null = null;
  private opened = false;
  private openWaiters: Array<() => void> = [];
  private written = 0;
  private dropped = 0;
  private failed = 0;
  private duplicates = 0;
  private pending: unknown[][] = [];
  private pendingMinAt = Infinity;
  private pendingMaxAt = -Infinity;
  private pendingService: string | null = null;
  private traffic = new Map<string, TrafficRow>();
  private gaps: GapRow[] = [];
  private openGap: Gap | null = null;
  private inFlight = new Map<number, InFlight>();
  private inFlightRows = 0;
  private seq = 0;
  private processedSeq = 0;
  private flushWaiters: Array<{ seq: number; resolve: () => void }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dueOnResult = false;
  private closing: Promise<void> | null = null;
  private lastWarn = new Map<string, number>();

  constructor(settings: Settings) {
    this.settings = settings;
    // A PostgreSQL URL is shown (logs, health file) without its password.
    const postgres = isPostgresUrl(settings.path);
    this.path = postgres || dbTargetProblem(settings.path) !== null ? storeLabel(settings.path) : settings.path;
    this.exitFlushTimeoutMs = settings.exitFlushTimeoutMs;
    const targetProblem = dbTargetProblem(settings.path);
    if (targetProblem !== null) {
      this.fail(targetProblem);
      return;
    }
    const driver = postgres ? 'pg' : 'better-sqlite3';
    let driverPath: string;
    try {
      driverPath = createRequire(import.meta.url).resolve(driver);
    } catch (error) {
      this.fail(`${driver} cannot be found (${String((error as Error).message).split('\n')[0]}): run npm install`);
      return;
    }
    const pgInit: PgWorkerInit = {
      url: nodePgConnectionString(settings.path),
      driverPath,
      retryForMs: settings.busyTimeoutMs,
      migrations: PG_MIGRATIONS,
      errorColumns: ERROR_EVENT_COLUMNS,
      signal: this.signal,
    };
    const init: WorkerInit = {
      path: settings.path,
      driverPath,
      busyTimeoutMs: settings.busyTimeoutMs,
      journalSizeLimitBytes: settings.journalSizeLimitBytes,
      idleCheckpointMs: settings.idleCheckpointMs,
      migrations: MIGRATIONS,
      errorColumns: ERROR_EVENT_COLUMNS,
      issueHoursUpsert: ISSUE_HOURS_UPSERT_SQL,
      signal: this.signal,
    };
    try {
      this.worker = postgres
        ? new Worker(pgWorkerSource(), { eval: true, workerData: pgInit, name: 'aap-triage-audit-writer-pg' })
        : new Worker(workerSource(), { eval: true, workerData: init, name: 'aap-triage-audit-writer' });
    } catch (error) {
      this.fail(`cannot start the audit writer thread: ${String((error as Error).message)}`);
      return;
    }
    this.worker.unref();
    this.worker.on('message', (message: FromWorker) => this.onMessage(message));
    this.worker.on('error', (error) => this.fail(`audit writer thread crashed: ${String(error.message).split('\n')[0]}`));
    this.worker.on('exit', () => {
      if (!this.closing) this.fail('audit writer thread exited unexpectedly');
      this.worker = null;
      this.settle();
    });
    registerExitFlush(this, settings.handleSignals);
  }

  write(event: ErrorEvent): void {
    try {
      if (this.closing || this.state === 'failed') {
        this.failed++;
        this.reportSoon();
        return;
      }
      if (this.pending.length + this.inFlightRows >= this.settings.queueLimit) {
        this.drop(event);
        return;
      }
      const row = eventToRow(event, this.settings.knownNames);
      if (this.openGap) this.closeGap();
      this.pending.push(row);
      const at = row[1] as number;
      if (at < this.pendingMinAt) this.pendingMinAt = at;
      if (at > this.pendingMaxAt) this.pendingMaxAt = at;
      this.pendingService ??= row[5] as string;
      if (this.pending.length >= this.settings.batchSize) {
        if (this.inFlight.size === 0) this.dispatch();
        else this.dueOnResult = true;
      } else this.arm();
    } catch (error) {
      this.failed++;
      // The error's name only: its message could quote the event.
      this.warn('bad_event', { err: (error as Error)?.name ?? 'Error' }, 'audit: an error event could not be converted and was not recorded');
    }
  }

  recordGap(gap: AuditGap): void {
    try {
      const count = Math.trunc(gap.count);
      if (!(count > 0)) return;
      if (this.closing || this.state === 'failed') {
        this.failed += count;
      } else {
        this.dropped += count;
        this.gaps.push(gapRow(gap.service, Math.trunc(gap.startedAt), Math.trunc(gap.endedAt), count, gap.reason));
        this.arm();
      }
      this.reportSoon();
    } catch {
      // a summary is best effort; never throw into the host
    }
  }

  recordTraffic(samples: TrafficSample[]): void {
    try {
      if (this.closing || this.state === 'failed' || !Array.isArray(samples)) return;
      for (const sample of samples) {
        const row = trafficToRow(sample);
        if (!row) continue;
        const key = trafficKey(sample);
        const existing = this.traffic.get(key);
        if (existing) {
          existing[4] += row[4];
          existing[5] += row[5];
          existing[6] += row[6];
        } else if (this.traffic.size < this.settings.queueLimit) {
          this.traffic.set(key, row);
        } else {
          this.warn('traffic_full', { keys: this.traffic.size }, 'audit: traffic buffer full; some request counters were not recorded');
        }
      }
      this.arm();
    } catch {
      // counters are best effort; never throw into the host
    }
  }

  async flush(): Promise<void> {
    await this.whenOpened();
    this.dispatchAll();
    const target = this.seq;
    if (this.processedSeq < target && this.worker) {
      await new Promise<void>((resolve) => {
        this.flushWaiters.push({ seq: target, resolve });
        this.worker?.ref();
      });
    }
    await this.healthWritten();
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  health(): SqliteAuditHealth {
    return {
      state: this.state,
      reason: this.reason,
      written: this.written,
      dropped: this.dropped,
      failed: this.failed,
      queueSize: this.pending.length + this.inFlightRows,
      duplicates: this.duplicates,
    };
  }

  dispatchPending(): void {
    const source = this.settings.trafficSource;
    if (source) {
      try {
        this.recordTraffic(source());
      } catch {
        // counters are best effort; the error rows still go out
      }
    }
    this.dispatchAll();
  }

  flushSync(timeoutMs: number, close = false): void {
    try {
      if (!this.worker) return;
      this.dispatchPending();
      const target = this.seq;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const seen = Atomics.load(this.signalView, 0);
        const left = deadline - Date.now();
        if (left <= 0) return;
        if (seen >= target) break;
        Atomics.wait(this.signalView, 0, seen, left);
      }
      if (!close) return;
      // The process is ending: close the connection, so the last writer checkpoints and
      // truncates the WAL instead of leaving it at its high-water mark.
      this.worker.postMessage({ type: 'close' });
      const left = deadline - Date.now();
      if (left > 0 && Atomics.load(this.signalView, 1) === 0) Atomics.wait(this.signalView, 1, 0, left);
      if (Atomics.load(this.signalView, 1) !== 0 && this.endedCleanly()) {
        this.clearReportTimer();
        removeWriterHealthFiles(this.path, this.settings.service, process.pid);
      }
    } catch {
      // exiting anyway
    }
  }

  private async doClose(): Promise<void> {
    await this.flush();
    this.clearTimer();
    unregisterExitFlush(this);
    const worker = this.worker;
    if (worker) {
      worker.ref();
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ type: 'close' });
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
      if ((await Promise.race([exited, timeout])) === 'timeout') await worker.terminate();
    }
    this.clearReportTimer();
    this.report();
    await this.healthWritten();
    // A clean shutdown leaves no health file behind (issue 31); one that lost records keeps its
    // last report, so `doctor` can show it (once) after the process is gone.
    if (this.endedCleanly()) removeWriterHealthFiles(this.path, this.settings.service, process.pid);
    this.closed = true;
  }

  /** Set once close() is done: the health file is final (removed or last report); later writes only count. */
  private closed = false;

  /** True when the writer is closing with nothing lost: state ok, no record dropped or failed. */
  private endedCleanly(): boolean {
    return this.state === 'ok' && this.dropped === 0 && this.failed === 0;
  }

  private clearReportTimer(): void {
    if (this.reportTimer !== undefined) clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
  }

  private hasPending(): boolean {
    return this.pending.length > 0 || this.traffic.size > 0 || this.gaps.length > 0;
  }

  /** Hand the next batch (at most batchSize rows, plus traffic and gaps) to the worker. */
  private dispatch(): void {
    this.clearTimer();
    this.dueOnResult = false;
    if (!this.worker) {
      this.failed += this.pending.length;
      this.resetPending();
      return;
    }
    const rows = this.pending.length > this.settings.batchSize ? this.pending.slice(0, this.settings.batchSize) : this.pending;
    const rest = rows === this.pending ? [] : this.pending.slice(rows.length);
    const seq = ++this.seq;
    const message: BatchMessage = { type: 'batch', seq, rows, traffic: [...this.traffic.values()], gaps: this.gaps };
    let minAt = this.pendingMinAt;
    let maxAt = this.pendingMaxAt;
    if (rest.length > 0) {
      minAt = Infinity;
      maxAt = -Infinity;
      for (const row of rows) {
        const at = row[1] as number;
        if (at < minAt) minAt = at;
        if (at > maxAt) maxAt = at;
      }
    }
    this.inFlight.set(seq, { seq, rows: rows.length, gaps: this.gaps, minAt, maxAt, service: this.pendingService ?? this.settings.service ?? 'unknown_service' });
    this.inFlightRows += rows.length;
    this.resetPending();
    if (rest.length > 0) {
      this.pending = rest;
      for (const row of rest) {
        const at = row[1] as number;
        if (at < this.pendingMinAt) this.pendingMinAt = at;
        if (at > this.pendingMaxAt) this.pendingMaxAt = at;
      }
      this.pendingService = rest[0]?.[5] as string;
      if (rest.length >= this.settings.batchSize) this.dueOnResult = true;
      else this.arm();
    }
    this.worker.ref();
    this.worker.postMessage(message);
  }

  /** Hand over everything queued, in batches of at most batchSize (flush, exit). */
  private dispatchAll(): void {
    if (this.openGap) this.closeGap();
    while (this.hasPending() && this.worker) this.dispatch();
    if (!this.worker && this.pending.length > 0) this.dispatch();
    this.clearTimer();
  }

  private resetPending(): void {
    this.pending = [];
    this.traffic = new Map();
    this.gaps = [];
    this.pendingMinAt = Infinity;
    this.pendingMaxAt = -Infinity;
    this.pendingService = null;
  }

  private arm(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight.size === 0) this.dispatch();
      else this.dueOnResult = true;
    }, this.settings.flushIntervalMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private drop(event: ErrorEvent): void {
    this.dropped++;
    this.reportSoon();
    const at = typeof event?.occurred_at === 'number' && Number.isFinite(event.occurred_at) ? Math.trunc(event.occurred_at) : Date.now();
    if (!this.openGap) {
      const service = this.settings.service ?? (typeof event?.service === 'string' ? event.service : 'unknown_service');
      this.openGap = { service, startedAt: at, endedAt: at, count: 0 };
      this.warn(
        'queue_full',
        { queueLimit: this.settings.queueLimit, path: this.path },
        'audit: queue full; error records are being dropped and counted (a gap row will say how many)',
      );
    }
    this.openGap.count++;
    if (at < this.openGap.startedAt) this.openGap.startedAt = at;
    if (at > this.openGap.endedAt) this.openGap.endedAt = at;
  }

  private closeGap(): void {
    const gap = this.openGap;
    if (!gap) return;
    this.openGap = null;
    this.gaps.push(gapRow(gap.service, gap.startedAt, gap.endedAt, gap.count, 'queue_full'));
    this.arm();
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        this.opened = true;
        if (message.chmodded) this.settings.logger.warn({ path: this.path }, 'audit: database file was readable by others; set it to mode 0600');
        this.report();
        this.releaseOpenWaiters();
        return;
      case 'failed':
        this.opened = true;
        this.fail(
          message.kind === 'native-module'
            ? isPostgresUrl(this.settings.path)
              ? `the pg client failed to load (${message.code}: ${message.message}): install pg; the server keeps running without an audit log`
              : `better-sqlite3 failed to load (${message.code}: ${message.message}): run npm rebuild better-sqlite3; the server keeps running without an audit log`
            : `cannot open audit database ${this.path} (${message.code}: ${message.message}); the server keeps running without an audit log`,
        );
        this.releaseOpenWaiters();
        return;
      case 'result':
        this.onResult(message);
        return;
      case 'closed':
        return;
    }
  }

  private onResult(message: Extract<FromWorker, { type: 'result' }>): void {
    const batch = this.inFlight.get(message.seq);
    this.inFlight.delete(message.seq);
    this.processedSeq = message.seq;
    const rows = batch?.rows ?? 0;
    this.inFlightRows -= rows;
    const reopened = message.reopened;
    if (reopened) {
      const file = reopened.what === 'lost' ? 'database file was lost earlier' : `database file was ${reopened.what} while open`;
      if (reopened.error === null) this.settings.logger.warn({ path: this.path, what: reopened.what }, `audit: ${file}; reopened ${this.path}`);
      else this.warn(`reopen_${reopened.error.code}`, { path: this.path, what: reopened.what, code: reopened.error.code }, `audit: ${file} and cannot be reopened (${reopened.error.code}: ${reopened.error.message})`);
    }
    if (message.error === null) {
      this.written += message.written;
      this.duplicates += rows - message.written;
      if (this.state === 'degraded') {
        this.state = 'ok';
        this.reason = null;
        this.settings.logger.info({ path: this.path }, 'audit: writes succeed again');
        this.report();
      }
    } else {
      this.failed += rows;
      if (this.state !== 'failed') {
        const first = this.state === 'ok';
        this.state = 'degraded';
        this.reason = `a batch of ${rows} audit records failed (${message.error.code}: ${message.error.message})`;
        // The batch's own gap rows were not written either: queue them again, then one for its rows.
        if (batch) this.gaps.unshift(...batch.gaps);
        if (batch && rows > 0) this.gaps.push(gapRow(batch.service, batch.minAt, batch.maxAt, rows, reopened ? `file_${reopened.what}` : 'write_failed'));
        this.warn(`batch_${message.error.code}`, { path: this.path, code: message.error.code, rows }, `audit: ${this.reason}`);
        if (first) this.report();
      }
    }
    // Health is rewritten when counts change, not only on a state change (throttled).
    this.reportSoon();
    if (this.pending.length >= this.settings.batchSize || (this.dueOnResult && this.hasPending())) this.dispatch();
    else if (this.hasPending()) this.arm();
    this.settle();
  }

  /** Resolve flush waiters and unref the worker once nothing is in flight. */
  private settle(): void {
    const done = this.worker ? this.processedSeq : Infinity;
    this.flushWaiters = this.flushWaiters.filter((waiter) => {
      if (waiter.seq > done) return true;
      waiter.resolve();
      return false;
    });
    if (this.inFlight.size === 0 && this.flushWaiters.length === 0 && !this.closing) this.worker?.unref();
    if (!this.worker) this.releaseOpenWaiters();
  }

  private whenOpened(): Promise<void> {
    if (this.opened || !this.worker) return Promise.resolve();
    this.worker.ref();
    return new Promise((resolve) => this.openWaiters.push(resolve));
  }

  private releaseOpenWaiters(): void {
    const waiters = this.openWaiters;
    this.openWaiters = [];
    for (const resolve of waiters) resolve();
    if (this.inFlight.size === 0 && this.flushWaiters.length === 0 && !this.closing) this.worker?.unref();
  }

  private fail(reason: string): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    this.reason = reason;
    const lost = this.pending.length + this.inFlightRows;
    this.failed += lost;
    this.inFlightRows = 0;
    this.inFlight.clear();
    this.resetPending();
    this.clearTimer();
    this.settings.logger.error({ path: this.path, lost }, `audit: ${reason}`);
    this.report();
  }

  private reportTimer: ReturnType<typeof setTimeout> | undefined;
  private lastReport = 0;

  /** Rewrites the health file at most once per second, the last change included. */
  private reportSoon(): void {
    if (this.reportTimer !== undefined) return;
    const wait = this.lastReport + 1000 - Date.now();
    if (wait <= 0) {
      this.report();
      return;
    }
    this.reportTimer = setTimeout(() => {
      this.reportTimer = undefined;
      this.report();
    }, wait);
    this.reportTimer.unref();
  }

  /** The health file write in progress, and whether a newer report waits for it. */
  private healthWrite: Promise<void> | null = null;
  private healthDirty = false;

  /** Resolves once the health file holds the latest report. */
  private async healthWritten(): Promise<void> {
    while (this.healthWrite) await this.healthWrite;
  }

  /** Writes the health file off the event loop, one write at a time, the latest report last. */
  private writeHealth(): void {
    if (this.closed) return;
    if (this.healthWrite) {
      this.healthDirty = true;
      return;
    }
    const health = this.health();
    this.healthWrite = writeHealthFileAsync({ ...health, path: this.path, service: this.settings.service, pid: process.pid, updatedAt: Date.now() }).then(() => {
      this.healthWrite = null;
      if (this.healthDirty) {
        this.healthDirty = false;
        this.writeHealth();
      }
    });
  }

  private report(): void {
    this.lastReport = Date.now();
    const health = this.health();
    this.writeHealth();
    try {
      this.settings.onHealth?.(health);
    } catch {
      // a user hook never breaks the writer
    }
  }

  private warn(kind: string, fields: object, message: string): void {
    const now = Date.now();
    const last = this.lastWarn.get(kind);
    if (last !== undefined && now - last < WARN_INTERVAL_MS) return;
    this.lastWarn.set(kind, now);
    this.settings.logger.warn(fields, message);
  }
}

/**
 * Open the batched SQLite audit writer (DESIGN §5, issue #4). Returns at once; the database is
 * opened (created 0600, WAL, migrated) in a worker thread. If that fails, the sink reports
 * `state: 'failed'` in `health()` and the health file, logs one line, and counts every record
 * as failed: `write` and `recordTraffic` never throw and never block on I/O.
 *
 * @throws {TypeError | RangeError} only for invalid options, naming the option.
 */
export function openAuditSink(options: AuditSinkOptions = {}): SqliteAuditSink {
  return new Writer(checkOptions(options));
}
