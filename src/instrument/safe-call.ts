/**
 * One place where every user hook and sink call is made, so nothing the instrumentation calls can
 * throw into the host (DESIGN §8). A failure is reported once per kind (`credential-hook`,
 * `audit-write`, …) and then counted silently: a broken sink must not flood the host's log.
 */
import { diag } from '@opentelemetry/api';

/** Where failures are reported: the triage logger's `warn`, or OpenTelemetry's `diag`. */
export type WarnFn = (fields: Record<string, unknown>, msg: string) => void;

export class SafeCaller {
  private readonly warned = new Set<string>();
  /** Failures per kind since creation (for tests and `doctor`). */
  readonly failures = new Map<string, number>();

  constructor(private readonly warn: WarnFn = (fields, msg) => diag.warn(`aap-triage: ${msg}`, fields)) {}

  /**
   * Runs `fn`; on a throw returns `fallback` and warns once for `kind`. The warning names the
   * error class only: an error message may echo a request value.
   */
  call<T>(kind: string, fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      this.fail(kind, err);
      return fallback;
    }
  }

  /** Same as `call` for a promise-returning function: never rejects. */
  async callAsync(kind: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.fail(kind, err);
    }
  }

  /** Records a failure of `kind` (warns the first time). */
  fail(kind: string, err: unknown): void {
    this.failures.set(kind, (this.failures.get(kind) ?? 0) + 1);
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    const errorType = err instanceof Error ? err.name : typeof err;
    try {
      this.warn({ kind, error_type: errorType }, `aap-triage: ${kind} failed; continuing without it (reported once)`);
    } catch {
      // The logger itself failed; nothing left to report to.
    }
  }
}
