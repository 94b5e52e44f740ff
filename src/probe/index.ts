/**
 * The probe (DESIGN §10, docs/probe.md): a fixed battery of requests a conforming AAP or DMC-12
 * dealer agent must reject in known ways, sent at a capped rate, each answer checked with the
 * protocol checker and reported per spec sentence. Re-exports only.
 */
export { runProbe, resolveProbeOptions, summarize, summarizeAnswer } from './run.js';
export { batteryFor, ALL_CASES } from './battery.js';
export { discoverTarget, placeholderTarget, readCard, cardUrls, ProbeUnreachableError, ProbeTargetError, AGENT_CARD_PATH, type CardFacts } from './target.js';
export { ProbeSender, RequestCapReached, INVALID_TOKEN, PROBE_USER_AGENT, type SenderOptions } from './sender.js';
export { renderText, renderJunit, renderBattery, reportJson, xmlEscape } from './report.js';
export { noConsentLead, PLANTED_SCHEMA_ERRORS, UNKNOWN_SKILL, UNKNOWN_METHOD } from './cases/aap.js';
export { MALFORMED_VIN } from './cases/dmc12.js';
export {
  PROBE_DEFAULTS,
  type AnswerSummary,
  type CaseResult,
  type Findings,
  type ProbeAnswer,
  type ProbeCase,
  type ProbeFamily,
  type ProbeLevel,
  type ProbeOptions,
  type ProbeReport,
  type ProbeRequest,
  type ProbeTarget,
  type ProbeVerdict,
  type SpecSentence,
} from './types.js';
