/**
 * Bounded code values for span and metric attributes (issue 13, semconv 1.45 RPC rules). A code
 * comes from the wire, so a peer could send any string: only the codes the protocol tables know
 * (src/protocol/codes) reach an attribute, anything else is `_OTHER`. 80 invented codes therefore
 * give one label value, not 80 series.
 */
import { ERROR_TYPE_VALUE_OTHER } from '@opentelemetry/semantic-conventions';
import {
  A2A_ERRORS,
  AAP_CODES,
  DMC12_CODES,
  DMC12_JSONRPC_ERRORS,
  JSONRPC_ERRORS,
  TASK_FAILED_INFO,
  TASK_REJECTED_INFO,
} from '../../protocol/codes/index.js';
import { DMC12_UNMAPPED_LEGACY, MALFORMED_ERROR_MEMBER } from '../../protocol/parse-response.js';

/** `_OTHER`: the value of a code no table knows (semconv `error.type` fallback). */
export const CODE_OTHER = ERROR_TYPE_VALUE_OTHER;

/** Every domain code of the tables: AAP codes, A2A reasons, DMC-12 codes, the parser's own two. */
const DOMAIN_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(AAP_CODES),
  ...Object.keys(A2A_ERRORS),
  ...Object.keys(DMC12_CODES),
  TASK_FAILED_INFO.code,
  TASK_REJECTED_INFO.code,
  DMC12_UNMAPPED_LEGACY,
  MALFORMED_ERROR_MEMBER,
]);

/** Every JSON-RPC error code some table defines (-32700 … -32603, A2A's, AAP's both forms, DMC-12's). */
const STATUS_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(JSONRPC_ERRORS),
  ...Object.keys(DMC12_JSONRPC_ERRORS),
  ...Object.values(A2A_ERRORS).map((i) => String(i.jsonrpcCode)),
  ...Object.values(AAP_CODES).flatMap((i) => [String(i.jsonrpcCode), String(i.releasedJsonrpcCode)]),
]);

/**
 * The JSON-RPC status code of an error member as a string (`'-32602'`), `_OTHER` for a code no
 * table defines, or null when there was no error member (a DMC-12 result error, a failed task).
 */
export function boundedStatusCode(jsonrpcCode: number | null): string | null {
  if (jsonrpcCode === null) return null;
  const s = String(jsonrpcCode);
  return STATUS_CODES.has(s) ? s : CODE_OTHER;
}

/**
 * A domain code (AAP / DMC-12 code, A2A reason, or a JSON-RPC code as a string) as the tables
 * know it, else `_OTHER`. Never throws; a non-string gives `_OTHER`.
 */
export function boundedDomainCode(code: unknown): string {
  if (typeof code !== 'string') return CODE_OTHER;
  // HTTP_401 and the like: the observer's code for a bare HTTP error page (no JSON-RPC answer).
  return DOMAIN_CODES.has(code) || STATUS_CODES.has(code) || /^HTTP_[1-5]\d\d$/.test(code) ? code : CODE_OTHER;
}

/**
 * `error.type` by the semconv 1.45 RPC rule: the status code when the call returned a JSON-RPC
 * error member, else (DMC-12 result errors, failed tasks) the domain code. Both bounded.
 */
export function errorTypeOf(jsonrpcCode: number | null, code: string): string {
  return boundedStatusCode(jsonrpcCode) ?? boundedDomainCode(code);
}
