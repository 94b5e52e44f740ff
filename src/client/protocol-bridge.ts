/**
 * The protocol functions the client uses, in one place (DESIGN §3: `client` imports only
 * `protocol`). Request classification, batch pairing and envelope parsing are all protocol's;
 * the client never interprets an envelope itself.
 */
export {
  allowListedSkill,
  classifyRequest,
  isParseFailure,
  KNOWN_SKILLS,
  matchBatch,
  parseResponse,
  readJsonBody,
} from '../protocol/index.js';
export type { CallOutcome, ParseFailure, RequestCall } from '../protocol/index.js';
