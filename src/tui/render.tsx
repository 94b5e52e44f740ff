import { render } from 'ink';
import { App, type AppProps } from './App.js';

/** Streams ink renders to and reads keys from. */
export interface TuiStreams {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/**
 * The stream ink writes to, minus its `rows`. ink clears the whole terminal — scrollback
 * included (`ESC[3J`) — whenever its previous frame is as tall as the terminal, which happens
 * on every resize to fewer rows, before the app has re-laid itself out. The app keeps its frame
 * below the terminal height itself (reading the real stream), so ink never needs that path.
 * Everything else (write, columns, isTTY, resize events) is the real stream's.
 */
function withoutHeight(stdout: NodeJS.WriteStream): NodeJS.WriteStream {
  return new Proxy(stdout, {
    get(target, prop) {
      if (prop === 'rows') return undefined;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Mounts the app and resolves when the operator quits. Kept apart from `index.ts` so ink and
 * React are loaded only once the terminal checks have passed (and not at all for `--json`).
 */
export async function renderApp(props: AppProps, streams: TuiStreams): Promise<void> {
  const instance = render(<App {...props} terminal={streams.stdout} />, {
    ...streams,
    stdout: withoutHeight(streams.stdout),
    exitOnCtrlC: true,
    // ink throttles redraws to maxFps (default 30, i.e. up to 33 ms added to a keystroke's echo).
    maxFps: 60,
    // Keeps stray console output from tearing the frame; skipped where the host replaced
    // `console` with one that has no Console constructor (test runners), as ink needs it.
    patchConsole: typeof (console as { Console?: unknown }).Console === 'function',
    // Not ink's incremental mode: in ink 6.8 it drew a frame of rows-1 lines one line off under
    // tmux. The default mode writes only when the frame text changed, as one write wrapped in
    // synchronized-update escapes (DEC 2026), so the live refresh does not tear or flicker in
    // terminals that support them.
    incrementalRendering: false,
  });
  await instance.waitUntilExit();
}
