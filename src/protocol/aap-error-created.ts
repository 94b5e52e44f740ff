/**
 * The global hook name shared by `AapError` (protocol/aap-error.ts), which calls
 * `globalThis[AAP_ERROR_CREATED]` with each new instance, and the instrumentation, which installs
 * the hook (instrument/taps/aap-error-hook.ts). A `Symbol.for`, so a second copy of the package
 * in the same process meets the same hook. A module of its own: `import('aap-triage')` exports
 * it without loading either side (issue 31 "Start-up").
 */
export const AAP_ERROR_CREATED = Symbol.for('aap-triage.aap-error-created');
