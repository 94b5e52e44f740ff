/**
 * Loading the terminal UI's renderer (ink, React and the views), kept in its own module so the
 * CLI bundle can take src/tui/index.ts in while this file stays beside `render.js` and its
 * bundle, which it finds relative to its own URL (scripts/bundle-lib.mjs, issue 28 "first data
 * frame").
 */
import { statSync } from 'node:fs';

/**
 * Path, relative to this module, of the single-file bundle of `render.js` with ink and React
 * inside. Loading ink's few hundred modules one by one is most of the time to the first
 * frame (measured: 510–780 ms for render.js, 140–350 ms for the bundle; docs/benchmarks.md).
 * `npm run build` produces it with rolldown, with React's production build only (`runTui` sets
 * `NODE_ENV=production` when unset); without it (running from source, or a stale bundle), or
 * when `NODE_ENV` asks for another build, the modules load as they are.
 */
export const RENDER_BUNDLE = './bundle/render.js';

/** The renderer module's shape. */
export type RenderModule = typeof import('./render.js');

/**
 * The renderer: the bundle when the build made one at least as new as `render.js` (a bundle
 * left over from an older build would run old code) and `NODE_ENV` is `production` (the build
 * the bundle holds), else the plain modules. Rejects with the import's error.
 *
 * yoga-layout (ink's layout engine, WebAssembly) asks for `fetch` while it loads, only to fall
 * back to the binary it carries; Node's `fetch` is a lazy global whose first touch loads undici
 * (~60 modules' worth of code, tens of ms). The global is hidden while the renderer loads (its
 * top-level await covers yoga's set-up) and put back exactly as it was.
 */
export async function loadRenderer(): Promise<RenderModule> {
  let fresh = false;
  try {
    fresh =
      process.env['NODE_ENV'] === 'production' && statSync(new URL(RENDER_BUNDLE, import.meta.url)).mtimeMs >= statSync(new URL('./render.js', import.meta.url)).mtimeMs;
  } catch {
    fresh = false; // no bundle (or running from source)
  }
  const fetchDescriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetchDescriptor?.configurable) Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return fresh ? ((await import(RENDER_BUNDLE)) as RenderModule) : await import('./render.js');
  } finally {
    if (fetchDescriptor?.configurable) Object.defineProperty(globalThis, 'fetch', fetchDescriptor);
  }
}
