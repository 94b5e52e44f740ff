import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** Terminal size in display cells / lines. */
export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/**
 * The size of the terminal ink renders to, updated on `resize`. A fixed `override` (tests,
 * benchmarks) wins; a stream without a size (ink-testing-library reports 100 columns and no
 * rows) falls back to 80 × 24. `terminal` is the real stream when ink was given a view of it
 * (see `render.tsx`).
 *
 * @example const { columns, rows } = useTerminalSize();
 */
export function useTerminalSize(override?: Partial<TerminalSize>, terminal?: NodeJS.WriteStream): TerminalSize {
  const { stdout: inkStdout } = useStdout();
  const stdout = terminal ?? inkStdout;
  const read = (): TerminalSize => ({
    columns: override?.columns ?? (stdout.columns || 80),
    rows: override?.rows ?? (stdout.rows || 24),
  });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, override?.columns, override?.rows]);
  return size;
}
