import type { ErrorEvent, TrafficSample } from '../protocol/error-event.js';

/**
 * What the instrumentation hands audit records to (DESIGN §2, §5). Implemented by the SQLite
 * writer (worker thread, batched) and by the in-memory sink used when auditing is off.
 *
 * No method throws: a full queue or a broken database is counted and reported in `health()`.
 */
export interface AuditSink {
  /** Queue one error record. Never blocks the caller on I/O. */
  write(event: ErrorEvent): void;
  /** Queue per-minute traffic counters (added to what the store holds for the same key). */
  recordTraffic(samples: TrafficSample[]): void;
  /**
   * Record that `gap.count` error records were seen but not stored one by one (DESIGN §5
   * "overflow counted, never silent"): one `audit_gaps` row, counted in `dropped`. The
   * instrumentation calls it for the errors of one exchange past `maxAuditedCallsPerExchange`
   * (reason `exchange_cap`). Optional for sinks of other stores; without it the log line is the
   * only record.
   */
  recordGap?(gap: AuditGap): void;
  /** Resolves when everything queued so far is committed (or counted as failed). */
  flush(): Promise<void>;
  /** Flush, then release the database. Idempotent. */
  close(): Promise<void>;
  /** Counters and state for metrics (`aap.audit.records`, `aap.audit.queue.size`) and `doctor`. */
  health(): AuditHealth;
}

/** Audit pipeline state. Counts are since the sink was created. */
export interface AuditHealth {
  /** `ok`, or why records are not being written. */
  state: 'ok' | 'degraded' | 'failed';
  /** One-line reason when not ok. */
  reason: string | null;
  written: number;
  dropped: number;
  failed: number;
  /** Records waiting to be written now. */
  queueSize: number;
}

/** A run of error records that were seen but not stored one by one. Times are epoch ms. */
export interface AuditGap {
  service: string;
  startedAt: number;
  endedAt: number;
  /** How many records the gap stands for (≥ 1). */
  count: number;
  /** Machine reason, `[a-z_]+` (`exchange_cap`, `queue_full`, `write_failed`…). */
  reason: string;
}
