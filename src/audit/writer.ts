/**
 * The audit writer (DESIGN §5 "Writer", issue #4) for either store: a bounded queue on the
 * caller's thread whose batches go to the store's writer thread (SQLite: one `BEGIN IMMEDIATE`
 * transaction each; PostgreSQL: one statement or transaction each). This file is the queue and
 * its accounting; the thread is writer-thread.ts (started from the backend's spec), overflow
 * gaps writer-gaps.ts, the health report writer-health.ts. Nothing here throws into the host
 * after `openAuditSink` returns.
 */
import type { ErrorEvent, TrafficSample } from '../protocol/error-event.js';
import type { WriterWorkerSpec } from './backend.js';
import { eventToRow, rowService, rowTime } from './columns.js';
import type { BatchMessage, FromWorker, GapRow, TrafficRow } from './internal-types.js';
import { openBackend } from './open-backend.js';
import { checkOptions } from './options.js';
import type { AuditSinkOptions, Settings } from './options.js';
import { dbTargetProblem, isPostgresUrl, storeLabel } from './paths.js';
import { registerExitFlush, unregisterExitFlush } from './process-hooks.js';
import type { ExitFlushable } from './process-hooks.js';
import { addTraffic, gapRow, trafficKey, trafficToRow } from './row.js';
import type { AuditGap, AuditHealth, AuditSink } from './sink.js';
import { GapTracker } from './writer-gaps.js';
import { HealthReport } from './writer-health.js';
import { WriterThread } from './writer-thread.js';

/** Health with the counters only this sink has. */
export interface SqliteAuditHealth extends AuditHealth {
  /** Events whose `error_id` was already stored (not written again, not counted as written). */
  duplicates: number;
}

/** The audit sink: an {@link AuditSink} that also says where it writes. */
export interface SqliteAuditSink extends AuditSink {
  /** Absolute database path, or the PostgreSQL URL without its password. */
  readonly path: string;
  recordGap(gap: AuditGap): void;
  health(): SqliteAuditHealth;
}

/** A batch handed to the thread and not answered yet. */
interface InFlight {
  seq: number;
  rows: number;
  /** Gap rows sent with the batch: queued again if it fails, so no gap record is lost. */
  gaps: GapRow[];
  minAt: number;
  maxAt: number;
  service: string;
}

class Writer implements SqliteAuditSink, ExitFlushable {
  readonly path: string;
  readonly exitFlushTimeoutMs: number;
  private readonly settings: Settings;
  private readonly spec: WriterWorkerSpec;
  private thread: WriterThread | null = null;
  private readonly reports: HealthReport;
  private readonly overflow: GapTracker;
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
  private inFlight = new Map<number, InFlight>();
  private inFlightRows = 0;
  private seq = 0;
  private processedSeq = 0;
  private flushWaiters: Array<{ seq: number; resolve: () => void }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dueOnResult = false;
  private closing: Promise<void> | null = null;

  constructor(settings: Settings) {
    this.settings = settings;
    const targetProblem = dbTargetProblem(settings.path);
    // A PostgreSQL URL is shown (logs, health file) without its password.
    this.path = isPostgresUrl(settings.path) || targetProblem !== null ? storeLabel(settings.path) : settings.path;
    this.exitFlushTimeoutMs = settings.exitFlushTimeoutMs;
    this.reports = new HealthReport(this.path, settings, () => this.health());
    this.overflow = new GapTracker(settings.service);
    this.spec = openBackend(settings.path).writer;
    if (targetProblem !== null) {
      this.fail(targetProblem);
      return;
    }
    const thread = WriterThread.start(this.spec, settings, {
      message: (message) => this.onMessage(message),
      fail: (reason) => this.fail(reason),
      exit: () => {
        if (!this.closing) this.fail('audit writer thread exited unexpectedly');
        this.settle();
      },
    });
    if (typeof thread === 'string') {
      this.fail(thread);
      return;
    }
    this.thread = thread;
    registerExitFlush(this, settings.handleSignals);
  }

  private get alive(): boolean {
    return this.thread?.alive ?? false;
  }

  write(event: ErrorEvent): void {
    try {
      if (this.closing || this.state === 'failed') {
        this.failed++;
        this.reports.reportSoon();
        return;
      }
      if (this.pending.length + this.inFlightRows >= this.settings.queueLimit) {
        this.drop(event);
        return;
      }
      const row = eventToRow(event, this.settings.knownNames);
      if (this.overflow.isOpen) this.closeGap();
      this.pending.push(row);
      const at = rowTime(row);
      if (at < this.pendingMinAt) this.pendingMinAt = at;
      if (at > this.pendingMaxAt) this.pendingMaxAt = at;
      this.pendingService ??= rowService(row);
      if (this.pending.length >= this.settings.batchSize) {
        if (this.inFlight.size === 0) this.dispatch();
        else this.dueOnResult = true;
      } else this.arm();
    } catch (error) {
      this.failed++;
      // The error's name only: its message could quote the event.
      this.reports.warn('bad_event', { err: (error as Error)?.name ?? 'Error' }, 'audit: an error event could not be converted and was not recorded');
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
      this.reports.reportSoon();
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
          addTraffic(existing, row);
        } else if (this.traffic.size < this.settings.queueLimit) {
          this.traffic.set(key, row);
        } else {
          this.reports.warn('traffic_full', { keys: this.traffic.size }, 'audit: traffic buffer full; some request counters were not recorded');
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
    if (this.processedSeq < target && this.alive) {
      await new Promise<void>((resolve) => {
        this.flushWaiters.push({ seq: target, resolve });
        this.thread?.ref();
      });
    }
    await this.reports.written();
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
      const thread = this.thread;
      if (!thread?.alive) return;
      this.dispatchPending();
      const deadline = Date.now() + timeoutMs;
      if (!thread.waitProcessedSync(this.seq, deadline) || !close) return;
      // The process is ending: close the connection, so the last writer checkpoints and
      // truncates the WAL instead of leaving it at its high-water mark.
      if (thread.closeSync(deadline) && this.endedCleanly()) this.reports.removeAtExit();
    } catch {
      // exiting anyway
    }
  }

  private async doClose(): Promise<void> {
    await this.flush();
    this.clearTimer();
    unregisterExitFlush(this);
    await this.thread?.close();
    this.reports.cancelSoon();
    this.reports.report();
    await this.reports.written();
    // A clean shutdown leaves no health file behind (issue 31); one that lost records keeps its
    // last report, so `doctor` can show it (once) after the process is gone. Later writes only count.
    this.reports.finish(this.endedCleanly());
  }

  /** True when the writer is closing with nothing lost: state ok, no record dropped or failed. */
  private endedCleanly(): boolean {
    return this.state === 'ok' && this.dropped === 0 && this.failed === 0;
  }

  private hasPending(): boolean {
    return this.pending.length > 0 || this.traffic.size > 0 || this.gaps.length > 0;
  }

  /** Hand the next batch (at most batchSize rows, plus traffic and gaps) to the thread. */
  private dispatch(): void {
    this.clearTimer();
    this.dueOnResult = false;
    const thread = this.thread;
    if (!thread?.alive) {
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
        const at = rowTime(row);
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
        const at = rowTime(row);
        if (at < this.pendingMinAt) this.pendingMinAt = at;
        if (at > this.pendingMaxAt) this.pendingMaxAt = at;
      }
      this.pendingService = rowService(rest[0] as unknown[]);
      if (rest.length >= this.settings.batchSize) this.dueOnResult = true;
      else this.arm();
    }
    thread.ref();
    thread.post(message);
  }

  /** Hand over everything queued, in batches of at most batchSize (flush, exit). */
  private dispatchAll(): void {
    if (this.overflow.isOpen) this.closeGap();
    while (this.hasPending() && this.alive) this.dispatch();
    if (!this.alive && this.pending.length > 0) this.dispatch();
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
    this.reports.reportSoon();
    if (this.overflow.drop(event)) {
      this.reports.warn(
        'queue_full',
        { queueLimit: this.settings.queueLimit, path: this.path },
        'audit: queue full; error records are being dropped and counted (a gap row will say how many)',
      );
    }
  }

  private closeGap(): void {
    const row = this.overflow.close();
    if (!row) return;
    this.gaps.push(row);
    this.arm();
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        this.opened = true;
        if (message.chmodded) this.settings.logger.warn({ path: this.path }, 'audit: database file was readable by others; set it to mode 0600');
        this.reports.report();
        this.releaseOpenWaiters();
        return;
      case 'failed':
        this.opened = true;
        this.fail(
          message.kind === 'native-module'
            ? this.spec.driverFailure(message.code, message.message)
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
      else this.reports.warn(`reopen_${reopened.error.code}`, { path: this.path, what: reopened.what, code: reopened.error.code }, `audit: ${file} and cannot be reopened (${reopened.error.code}: ${reopened.error.message})`);
    }
    if (message.error === null) {
      this.written += message.written;
      this.duplicates += rows - message.written;
      if (this.state === 'degraded') {
        this.state = 'ok';
        this.reason = null;
        this.settings.logger.info({ path: this.path }, 'audit: writes succeed again');
        this.reports.report();
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
        this.reports.warn(`batch_${message.error.code}`, { path: this.path, code: message.error.code, rows }, `audit: ${this.reason}`);
        if (first) this.reports.report();
      }
    }
    // Health is rewritten when counts change, not only on a state change (throttled).
    this.reports.reportSoon();
    if (this.pending.length >= this.settings.batchSize || (this.dueOnResult && this.hasPending())) this.dispatch();
    else if (this.hasPending()) this.arm();
    this.settle();
  }

  /** Resolve flush waiters and unref the thread once nothing is in flight. */
  private settle(): void {
    const done = this.alive ? this.processedSeq : Infinity;
    this.flushWaiters = this.flushWaiters.filter((waiter) => {
      if (waiter.seq > done) return true;
      waiter.resolve();
      return false;
    });
    if (this.inFlight.size === 0 && this.flushWaiters.length === 0 && !this.closing) this.thread?.unref();
    if (!this.alive) this.releaseOpenWaiters();
  }

  private whenOpened(): Promise<void> {
    if (this.opened || !this.alive) return Promise.resolve();
    this.thread?.ref();
    return new Promise((resolve) => this.openWaiters.push(resolve));
  }

  private releaseOpenWaiters(): void {
    const waiters = this.openWaiters;
    this.openWaiters = [];
    for (const resolve of waiters) resolve();
    if (this.inFlight.size === 0 && this.flushWaiters.length === 0 && !this.closing) this.thread?.unref();
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
    this.reports.report();
  }
}

/**
 * Open the batched audit writer (DESIGN §5, issue #4) on the store `options.path` names (a SQLite
 * file, or a PostgreSQL URL). Returns at once; the store is opened (SQLite: created 0600, WAL;
 * both: migrated) in a worker thread. If that fails, the sink reports
 * `state: 'failed'` in `health()` and the health file, logs one line, and counts every record
 * as failed: `write` and `recordTraffic` never throw and never block on I/O.
 *
 * @throws {TypeError | RangeError} only for invalid options, naming the option.
 */
export function openAuditSink(options: AuditSinkOptions = {}): SqliteAuditSink {
  return new Writer(checkOptions(options));
}
