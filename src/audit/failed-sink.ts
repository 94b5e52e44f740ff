/**
 * The sink that stands in when audit writing must not start (issue 16): the pseudonymisation key
 * cannot be loaded or saved. Rows made with a throwaway key could never be found by `client:` /
 * `subject:` lookups or erased by `forget`, so none are written: every record is counted as
 * failed, health says `failed` with the reason, and the health file (read by `doctor`) is
 * rewritten when the counts change. Never throws.
 */
import { writeHealthFile } from './health.js';
import { storeLabel } from './paths.js';
import type { AuditLogger } from './logger.js';
import { defaultLogger } from './logger.js';
import type { AuditGap, AuditHealth, AuditSink } from './sink.js';
import type { TrafficSample } from '../protocol/error-event.js';

/** Options of {@link openFailedSink}. */
export interface FailedSinkOptions {
  /** Database path the records were meant for (names the health file). */
  path: string;
  /** One line: why nothing is written (the key error's message). */
  reason: string;
  /** `service` for the health file. Default: null. */
  service?: string | null;
  /** Where the one error line goes. Default: the audit store's logger (pino to stderr). */
  logger?: AuditLogger;
}

/** Shortest interval between two health-file rewrites, ms. */
const REPORT_INTERVAL_MS = 1000;

/**
 * Opens a sink that writes nothing and says why: logs one error line
 * (`audit: <reason>; audit writing is stopped …`), writes the health file (`state: 'failed'`),
 * then counts every `write` (and every record a gap stands for) as failed.
 */
export function openFailedSink(options: FailedSinkOptions): AuditSink {
  // The store as it may be shown: a PostgreSQL URL without its password (logs, health file).
  const path = storeLabel(options.path);
  const { reason } = options;
  const service = options.service ?? null;
  let failed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastReport = 0;
  const health = (): AuditHealth => ({ state: 'failed', reason, written: 0, dropped: 0, failed, queueSize: 0 });
  const report = (): void => {
    lastReport = Date.now();
    writeHealthFile({ ...health(), path, service, pid: process.pid, updatedAt: lastReport });
  };
  const reportSoon = (): void => {
    if (timer !== undefined) return;
    const wait = lastReport + REPORT_INTERVAL_MS - Date.now();
    if (wait <= 0) return report();
    timer = setTimeout(() => {
      timer = undefined;
      report();
    }, wait);
    timer.unref();
  };
  try {
    (options.logger ?? defaultLogger()).error({ path }, `audit: ${reason}; audit writing is stopped (every error record is counted as failed)`);
  } catch {
    // a broken logger never stops the host
  }
  report();
  return {
    write(): void {
      failed++;
      reportSoon();
    },
    recordGap(gap: AuditGap): void {
      const n = Math.trunc(gap?.count);
      if (n > 0) failed += n;
      reportSoon();
    },
    recordTraffic(_samples: TrafficSample[]): void {
      // counters need the same key as the rows: not recorded either
    },
    async flush(): Promise<void> {},
    async close(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      report();
    },
    health,
  };
}
