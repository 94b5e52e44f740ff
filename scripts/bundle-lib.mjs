// Bundles the library entry points from dist/ (tsc output) into dist/lib/, one ES module per
// entry plus shared chunks, every package left external: `import('aap-triage')` then loads a
// handful of our files instead of ~75 (issue 13: each module costs a host about 0.5–1 ms of
// start-up). The entries share chunks, so `aap-triage`, `aap-triage/protocol`,
// `aap-triage/client` and `aap-triage/register` in one process hold one copy of each module.
// Run by `npm run build` after tsc; the type declarations stay tsc's (dist/**/*.d.ts).
// It also bundles the terminal UI's renderer with ink and React inside (dist/tui/bundle/, see
// src/tui/index.ts RENDER_BUNDLE). Through rolldown's API both are quiet: no chunk table, only
// warnings (issue 31 "a quiet build").
import { rmSync, writeFileSync } from 'node:fs';
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

const out = new URL('../dist/lib/', import.meta.url);
rmSync(out, { recursive: true, force: true });
await build({
  input: {
    index: 'dist/instrument/index.js',
    protocol: 'dist/protocol/index.js',
    client: 'dist/client/index.js',
    register: 'dist/instrument/register.js',
  },
  platform: 'node',
  // Bare specifiers are packages (and node: built-ins): resolved by Node at run time, except
  // the semantic-conventions constants, inlined (only the ones used; its index is 7 files).
  external: isPackage,
  logLevel: 'warn',
  output: { dir: out.pathname, format: 'esm', chunkFileNames: 'chunk-[name]-[hash].js' },
});

// The command line as one file plus lazy chunks (issue 31 "Start-up"): `aap-triage --version`
// then loads a few files of ours instead of ~110. bin/aap-triage.js imports dist/bin/cli.js.
// The terminal UI and the demo stay the modules tsc wrote (dist/tui, dist/cli/demo), imported
// relatively when a command needs them: the TUI finds its renderer bundle beside its own module.
const LAZY_MODULES = new Set(['dist/tui/index.js', 'dist/tui/interactive.js', 'dist/cli/demo/command.js'].map((p) => fileURLToPath(new URL(`../${p}`, import.meta.url))));
const cliOut = new URL('../dist/bin/', import.meta.url);
rmSync(cliOut, { recursive: true, force: true });
await build({
  input: { cli: 'dist/cli/index.js' },
  platform: 'node',
  external: (id, importer) => {
    if (id.startsWith('.') && importer) return LAZY_MODULES.has(resolve(dirname(importer), id));
    return isPackage(id);
  },
  logLevel: 'warn',
  output: {
    dir: cliOut.pathname,
    format: 'esm',
    chunkFileNames: 'chunk-[name]-[hash].js',
    // A lazy module's specifier as seen from dist/bin (rolldown would keep it relative to dist/cli).
    paths: (id) => (LAZY_MODULES.has(id) ? relative(cliOut.pathname, id) : id),
  },
});

// The TUI renderer as one file: ink's few hundred modules load as one (src/tui/index.ts).
// better-sqlite3 is native; react-devtools-core is ink's optional dev dependency, never installed.
const tuiOut = new URL('../dist/tui/bundle/', import.meta.url);
rmSync(tuiOut, { recursive: true, force: true });
await build({
  input: 'dist/tui/render.js',
  platform: 'node',
  external: ['better-sqlite3', 'react-devtools-core'],
  logLevel: 'warn',
  output: { dir: tuiOut.pathname, format: 'esm' },
});

// Written last: scripts/build-if-stale.mjs (npm start) compares the sources against it.
writeFileSync(new URL('../dist/.build-stamp', import.meta.url), `${new Date().toISOString()}\n`);
