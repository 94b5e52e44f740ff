/**
 * The writer's health report (DESIGN §5 "overflow counted, never silent"; issue 31): the health
 * file rewritten off the event loop at most once a second with the latest snapshot last, the
 * host's `onHealth` hook, and warn lines throttled per kind. Never throws into the host.
 */
import { removeWriterHealthFiles, writeHealthFileAsync } from './health.js';
import type { Settings } from './options.js';
import type { AuditHealth } from './sink.js';

/** Minimum gap between two warn lines of the same kind, ms. */
const WARN_INTERVAL_MS = 60_000;
/** Minimum gap between two health file writes, ms (the last change is always written). */
const REPORT_INTERVAL_MS = 1000;

/** Reports one writer's health; `snapshot` gives its current counters. */
export class HealthReport {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last = 0;
  /** The health file write in progress, and whether a newer report waits for it. */
  private writing: Promise<void> | null = null;
  private dirty = false;
  /** Set once the writer is closed: the file is final (removed or last report). */
  private final = false;
  private readonly lastWarn = new Map<string, number>();

  constructor(
    private readonly path: string,
    private readonly settings: Settings,
    private readonly snapshot: () => AuditHealth,
  ) {}

  /** Writes the report now (file and hook). */
  report(): void {
    this.last = Date.now();
    const health = this.snapshot();
    this.writeFile();
    try {
      this.settings.onHealth?.(health);
    } catch {
      // a user hook never breaks the writer
    }
  }

  /** Rewrites the health file at most once per second, the last change included. */
  reportSoon(): void {
    if (this.timer !== undefined) return;
    const wait = this.last + REPORT_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.report();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.report();
    }, wait);
    this.timer.unref();
  }

  /** Drops a pending delayed report. */
  cancelSoon(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Resolves once the health file holds the latest report. */
  async written(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /**
   * The writer is done: no later report touches the file. `clean` (nothing lost) removes its
   * file (issue 31); otherwise the last report stays, so `doctor` can show it once.
   */
  finish(clean: boolean): void {
    if (clean) removeWriterHealthFiles(this.path, this.settings.service, process.pid);
    this.final = true;
  }

  /** Removes the file at a clean exit without closing the report (the synchronous exit flush). */
  removeAtExit(): void {
    this.cancelSoon();
    removeWriterHealthFiles(this.path, this.settings.service, process.pid);
  }

  /** One warn line of `kind`, at most once per minute. */
  warn(kind: string, fields: object, message: string): void {
    const now = Date.now();
    const last = this.lastWarn.get(kind);
    if (last !== undefined && now - last < WARN_INTERVAL_MS) return;
    this.lastWarn.set(kind, now);
    this.settings.logger.warn(fields, message);
  }

  /** Writes the health file off the event loop, one write at a time, the latest report last. */
  private writeFile(): void {
    if (this.final) return;
    if (this.writing) {
      this.dirty = true;
      return;
    }
    const health = this.snapshot();
    this.writing = writeHealthFileAsync({ ...health, path: this.path, service: this.settings.service, pid: process.pid, updatedAt: Date.now() }).then(() => {
      this.writing = null;
      if (this.dirty) {
        this.dirty = false;
        this.writeFile();
      }
    });
  }
}
