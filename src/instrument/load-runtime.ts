/**
 * `loadRuntime()`: the runtime of the fronts (runtime.ts), which `createTriage` and the first
 * `enable()` of an `AapTriageInstrumentation` load, not `import('aap-triage')` (issue 31
 * "Start-up": the import then costs a host a fifth of the code).
 *
 * As tsc writes it (the tests, the demo, the CLI) this module imports the runtime statically.
 * The library bundle (scripts/bundle-lib.mjs) puts the runtime in dist/lib/runtime.js and
 * replaces this module with one that `require`s that file on the first call: synchronous, so
 * `createTriage` and `enable()` stay synchronous and the whole runtime is in place before they
 * return, i.e. before the host serves its first request (require of an ES module: Node ≥ 20.19).
 */
import * as runtime from './runtime.js';

/** The runtime's exports (runtime.ts). */
export type Runtime = typeof runtime;

/** The runtime (runtime.ts); loads it on the first call in the library bundle. Never throws on a built package. */
export function loadRuntime(): Runtime {
  return runtime;
}
