// Bundles the library entry points from dist/ (tsc output) into dist/lib/, one ES module per
// entry plus shared chunks, every package left external: `import('aap-triage')` then loads a
// handful of our files instead of ~75 (issue 13: each module costs a host about 0.5–1 ms of
// start-up). The entries share chunks, so `aap-triage`, `aap-triage/protocol`,
// `aap-triage/client` and `aap-triage/register` in one process hold one copy of each module.
// Run by `npm run build` after tsc; the type declarations stay tsc's (dist/**/*.d.ts).
// It also bundles the terminal UI's renderer with ink and React inside (dist/tui/bundle/, see
// src/tui/index.ts RENDER_BUNDLE). Through rolldown's API both are quiet: no chunk table, only
// warnings (issue 31 "a quiet build").
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

/**
 * Whether `id` stays an import resolved by Node at run time: a package or a built-in. Not
 * @opentelemetry/semantic-conventions: a constants-only package whose index loads 7 files, so
 * the few names used are inlined (issue 31 "Start-up").
 */
const INLINED = /^@opentelemetry\/semantic-conventions(\/|$)/;
const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !INLINED.test(id);

/**
 * The fronts' runtime (src/instrument/load-runtime.ts) is an entry of its own, dist/lib/runtime.js,
 * and its loader, a static import as tsc writes it, becomes a `require` of that file on first
 * use: `import('aap-triage')` then loads the fronts, options and constants only, and
 * `createTriage` or the first `enable()` loads the rest, synchronously (issue 31 "Start-up").
 * The loader lands in some chunk of dist/lib/, beside runtime.js, hence `./runtime.js`.
 */
const RUNTIME_LOADER = fileURLToPath(new URL('../dist/instrument/load-runtime.js', import.meta.url));
const LAZY_RUNTIME_LOADER = `import { createRequire } from 'node:module';
let runtime;
export function loadRuntime() {
  return (runtime ??= createRequire(import.meta.url)('./runtime.js'));
}
`;

const out = new URL('../dist/lib/', import.meta.url);
rmSync(out, { recursive: true, force: true });
await build({
  input: {
    index: 'dist/instrument/index.js',
    protocol: 'dist/protocol/index.js',
    client: 'dist/client/index.js',
    register: 'dist/instrument/register.js',
    runtime: 'dist/instrument/runtime.js',
  },
  platform: 'node',
  // Bare specifiers are packages (and node: built-ins): resolved by Node at run time, except
  // the semantic-conventions constants, inlined (only the ones used; its index is 7 files).
  external: isPackage,
  plugins: [{ name: 'lazy-runtime', load: (id) => (id === RUNTIME_LOADER ? LAZY_RUNTIME_LOADER : null) }],
  logLevel: 'warn',
  output: { dir: out.pathname, format: 'esm', chunkFileNames: 'chunk-[name]-[hash].js' },
});

// The command line as one file plus lazy chunks (issue 31 "Start-up"): `aap-triage --version`
// then loads a few files of ours instead of ~110. bin/aap-triage.js imports dist/bin/cli.js.
// The demo stays the modules tsc wrote (dist/cli/demo), imported relatively when it runs. The
// TUI's entry is bundled on its own below (dist/tui/entry.js), and the CLI imports that bundle.
const here = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
/**
 * Each command's action is its own lazy chunk (`await import('../actions/<verb>.js')` in
 * src/cli/commands/<verb>.ts), and `--version` / `--help` load only the definitions. For that,
 * our modules count as free of side effects at import (they declare; nothing registers or
 * patches on load): a module is bundled where one of its exports is used, so a definition that
 * names one constant of a barrel (`../triage/index.js`) does not pull every module behind the
 * barrel into the entry. Packages keep rolldown's default.
 */
const OWN_MODULES_PURE = { moduleSideEffects: (id, external) => external || !id.startsWith(here('dist/')) };
const LAZY_MODULES = new Set(['dist/tui/interactive.js', 'dist/cli/demo/command.js'].map(here));
const TUI_ENTRY = { module: here('dist/tui/index.js'), bundle: here('dist/tui/entry.js') };
const cliOut = new URL('../dist/bin/', import.meta.url);
rmSync(cliOut, { recursive: true, force: true });
await build({
  input: { cli: 'dist/cli/index.js' },
  platform: 'node',
  treeshake: OWN_MODULES_PURE,
  // Lets the entry take in the small modules it shares with the actions (and export them to
  // their chunks) instead of loading each as a chunk of its own.
  preserveEntrySignatures: 'allow-extension',
  external: (id, importer) => {
    if (id.startsWith('.') && importer) return LAZY_MODULES.has(resolve(dirname(importer), id));
    // commander is in the entry: every run needs it, and one file loads faster than its eight.
    return isPackage(id) && id !== 'commander';
  },
  plugins: [
    {
      name: 'tui-entry-bundle',
      resolveId: (id, importer) => (id.startsWith('.') && importer && resolve(dirname(importer), id) === TUI_ENTRY.module ? { id: TUI_ENTRY.bundle, external: true } : null),
    },
  ],
  logLevel: 'warn',
  output: {
    dir: cliOut.pathname,
    format: 'esm',
    chunkFileNames: 'chunk-[name]-[hash].js',
    // A lazy module's specifier as seen from dist/bin (rolldown would keep it relative to dist/cli).
    paths: (id) => (LAZY_MODULES.has(id) || id === TUI_ENTRY.bundle ? relative(cliOut.pathname, id) : id),
  },
});

// The TUI's entry (runTui: checks, store, data source) as one file (issue 28 "first data frame":
// as tsc's modules it was ~80 files, and libphonenumber-js's 84 on top). Its renderer loader
// stays tsc's module beside render.js, which it finds the renderer bundle next to.
// Written beside tsc's modules (a relative external keeps its path as written).
const tuiDir = new URL('../dist/tui/', import.meta.url);
for (const f of readdirSync(tuiDir)) if (/^entry(-chunk-.*)?\.js$/.test(f)) rmSync(new URL(f, tuiDir));
await build({
  input: { entry: 'dist/tui/index.js' },
  platform: 'node',
  external: isPackage,
  plugins: [
    {
      name: 'renderer-loader-beside-render',
      resolveId: (id, importer) => {
        const path = id.startsWith('.') && importer ? resolve(dirname(importer), id) : null;
        return path === here('dist/tui/load-renderer.js') ? { id: path, external: true } : null;
      },
    },
  ],
  logLevel: 'warn',
  // triage-source.js imports the .eml writer lazily for the tsc-module path; here the draft code
  // holds it already, which is fine in one file: not worth a warning in a quiet build.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: { dir: tuiDir.pathname, format: 'esm', chunkFileNames: 'entry-chunk-[name]-[hash].js' },
});

// The TUI renderer as one file: ink's few hundred modules load as one (src/tui/index.ts).
// better-sqlite3 is native; react-devtools-core is ink's optional dev dependency, never installed.
// React's production build only: its development build is 40 % of the file, never run in the
// terminal UI (runTui sets NODE_ENV=production when unset; load-renderer.ts takes the bundle only then).
const tuiOut = new URL('../dist/tui/bundle/', import.meta.url);
rmSync(tuiOut, { recursive: true, force: true });
await build({
  input: 'dist/tui/render.js',
  platform: 'node',
  external: ['better-sqlite3', 'react-devtools-core'],
  transform: { define: { 'process.env.NODE_ENV': "'production'" } },
  logLevel: 'warn',
  output: { dir: tuiOut.pathname, format: 'esm' },
});

// Written last: scripts/build-if-stale.mjs (npm start) compares the sources against it.
writeFileSync(new URL('../dist/.build-stamp', import.meta.url), `${new Date().toISOString()}\n`);
