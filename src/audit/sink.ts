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
