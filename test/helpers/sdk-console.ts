/**
 * The @a2a-js/sdk server writes its own errors straight to `console.error` (no logger option in
 * 1.3): "Agent execution failed for message …" when an executor throws, "Unhandled error in
 * JSON-RPC POST handler: …" for a version it refuses, "Pre-stream error for request …" when a
 * stream call fails before its first event. Tests that make it fail on purpose capture
 * those lines here and assert them, so a passing run prints no stack traces; any other
 * `console.error` still reaches the terminal.
 */
import { format } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';

/** The SDK's own error lines, by the prefix it writes. */
const SDK_PREFIXES = ['Agent execution failed for', 'Unhandled error in JSON-RPC POST handler', 'Pre-stream error for request'] as const;

export interface SdkConsole {
  /** The first argument of every SDK `console.error` line captured so far (see `per`). */
  readonly lines: string[];
  /** The same lines in full, every argument formatted as `console.error` prints it (`util.format`). */
  readonly texts: string[];
}

/**
 * Installs the capture for the calling file.
 * @param per `'test'` (default): lines are collected per test (`beforeEach`/`afterEach`), for
 *   tests that make the SDK fail themselves; `'file'`: from `beforeAll` to `afterAll`, for files
 *   that drive their traffic in `beforeAll` (register this before that `beforeAll`).
 * @returns the captured lines.
 */
export function captureSdkConsole(per: 'test' | 'file' = 'test'): SdkConsole {
  const captured: SdkConsole = { lines: [], texts: [] };
  let restore: (() => void) | undefined;
  const install = (): void => {
    captured.lines.length = 0;
    captured.texts.length = 0;
    const original = console.error.bind(console);
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      const first = typeof args[0] === 'string' ? args[0] : '';
      if (SDK_PREFIXES.some((p) => first.startsWith(p))) {
        captured.lines.push(first);
        captured.texts.push(format(...args));
      } else original(...args);
    });
    restore = () => spy.mockRestore();
  };
  if (per === 'file') {
    beforeAll(install);
    afterAll(() => restore?.());
  } else {
    beforeEach(install);
    afterEach(() => restore?.());
  }
  return captured;
}
