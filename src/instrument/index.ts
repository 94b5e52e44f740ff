/**
 * `aap-triage`: server instrumentation for AAP (A2A) and DMC-12 dealer agents (issue 3).
 * Re-exports only.
 */
export { createTriage } from './create-triage.js';
export { AapTriageInstrumentation } from './instrumentation.js';
export { expressMiddleware } from './express.js';
export { wrapListener } from './node-http.js';
export { DEFAULT_KNOWN_METHODS, DEFAULT_KNOWN_SKILLS, DEFAULTS, defaultCredential } from './options.js';
export { AAP_ERROR_CREATED } from '../protocol/aap-error-created.js';
export * from './attributes.js';
export type { AapForm, AapTriageInstrumentationConfig, Pseudonymizer, Triage, TriageOptions } from './types.js';
