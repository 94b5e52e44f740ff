/**
 * Storm sampling of the human-readable error lines (DESIGN §2), the way zap samples: per code and
 * per wall-clock second, the first `perSecond` lines pass; the rest of that second are counted,
 * and once the second is over one summary says exactly how many were left out. Only the pino
 * line is sampled — the audit row, the metrics and the OpenTelemetry `aap.error` record are one
 * per error, always. One sampler per triage core, so the service is fixed; the codes are bounded
 * (value-patterns.ts), so the table is too.
 */

/** A second's count of one code. */
interface Window {
  /** The second (epoch ms / 1000, floored). */
  second: number;
  /** Lines admitted in it. */
  lines: number;
  /** Lines left out in it. */
  omitted: number;
}

/** What a summary reports: `omitted` lines of `code` in the second starting at `second` × 1000 ms. */
export interface OmittedLines {
  code: string;
  omitted: number;
  /** Start of the second, epoch seconds. */
  second: number;
}

/** Most codes tracked at once; past it the table starts over (codes are bounded, so only a flood of `_OTHER`-free junk could reach it). */
const MAX_CODES = 1024;

export class LineSampler {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param perSecond lines admitted per code and second (≥ 1)
   * @param summarise called once per code and second that left lines out, after that second
   *   (from a timer, or from `flush()`); it must not throw (the caller guards it)
   */
  constructor(
    private readonly perSecond: number,
    private readonly summarise: (omitted: OmittedLines) => void,
  ) {}

  /** Whether the line of an error with `code` at `now` (epoch ms) may be written; counts it otherwise. */
  admit(code: string, now: number): boolean {
    const second = Math.floor(now / 1000);
    let w = this.windows.get(code);
    if (w === undefined) {
      if (this.windows.size >= MAX_CODES) this.flush();
      w = { second, lines: 0, omitted: 0 };
      this.windows.set(code, w);
    } else if (w.second !== second) {
      this.report(code, w);
      w.second = second;
      w.lines = 0;
    }
    if (w.lines < this.perSecond) {
      w.lines++;
      return true;
    }
    w.omitted++;
    // One timer while anything waits to be summarised: a storm that stops still gets its summary.
    if (this.timer === null) {
      this.timer = setTimeout(() => this.onTimer(), (second + 1) * 1000 - now + 1);
      this.timer.unref();
    }
    return false;
  }

  /** Summarises every code's left-out lines now (at shutdown). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const [code, w] of this.windows) this.report(code, w);
    this.windows.clear();
  }

  private onTimer(): void {
    this.timer = null;
    const second = Math.floor(Date.now() / 1000);
    let waiting = false;
    for (const [code, w] of this.windows) {
      if (w.second < second) {
        this.report(code, w);
        this.windows.delete(code);
      } else if (w.omitted > 0) waiting = true;
    }
    if (waiting) {
      this.timer = setTimeout(() => this.onTimer(), 1000 - (Date.now() % 1000) + 1);
      this.timer.unref();
    }
  }

  private report(code: string, w: Window): void {
    if (w.omitted === 0) return;
    const omitted = w.omitted;
    w.omitted = 0;
    this.summarise({ code, omitted, second: w.second });
  }
}
