/**
 * A one-line progress bar on a TTY stream (stderr), redrawn in place with `\r`; silent on a
 * non-TTY stream so logs and pipes get no control characters.
 */
export interface ProgressBar {
  /** Redraws with `fraction` in [0, 1] and a short status text. */
  update(fraction: number, status: string): void;
  /** Ends the line (once). */
  done(): void;
}

/** Creates a progress bar on `stream`; a no-op when the stream is not a terminal. */
export function createProgressBar(stream: { write(chunk: string): unknown; isTTY?: boolean; columns?: number }, label: string): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let finished = false;
  return {
    update(fraction, status) {
      if (finished) return;
      const cols = Math.max(40, Math.min(stream.columns ?? 80, 120));
      const width = Math.max(10, cols - label.length - status.length - 12);
      const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width);
      const pct = `${Math.round(fraction * 100)}`.padStart(3);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${pct}% ${status}\x1b[K`);
    },
    done() {
      if (finished) return;
      finished = true;
      stream.write('\n');
    },
  };
}
