import type { ErrorProtocol } from '../error-event.js';
import type { CodeInfo } from '../types.js';
import { A2A_ERRORS, TASK_FAILED_INFO, TASK_REJECTED_INFO } from './a2a-codes.js';
import { AAP_CODES } from './aap-codes.js';
import { DMC12_CODES, DMC12_JSONRPC_ERRORS } from './dmc12-codes.js';
import { JSONRPC_ERRORS } from './jsonrpc-codes.js';

export * from './aap-codes.js';
export * from './a2a-codes.js';
export * from './jsonrpc-codes.js';
export * from './dmc12-codes.js';

const A2A_BY_NUMBER: ReadonlyMap<number, CodeInfo> = new Map(
  Object.values(A2A_ERRORS).map((info) => [info.jsonrpcCode, info] as const),
);

/**
 * The code-table entry for `code` in one protocol family, or undefined when unknown.
 *
 * - `aap`: the AAP code (`RATE_LIMITED`; legacy `AUTH_REQUIRED` included).
 * - `a2a`: the ErrorInfo reason (`EXTENSION_SUPPORT_REQUIRED`), the JSON-RPC code as number or
 *   string (`-32008`), `TASK_FAILED` or `TASK_REJECTED` (a failed or rejected task in a success).
 * - `jsonrpc`: the JSON-RPC code as number or string (`-32700`, `'-32700'`).
 * - `dmc12`: the `error_code` (`RESERVATION_CONFLICT`; see `dmc12CodeForLegacyError` for legacy
 *   strings), or DMC-12's own JSON-RPC code as number or string (`-32001`, the auth failure), which
 *   is what `parseResponse` reports as the code of a DMC-12 call's -32001.
 *
 * Never throws. Own-property lookups only, so `'__proto__'` or `'toString'` give undefined.
 */
export function lookupCode(protocol: ErrorProtocol, code: string | number): CodeInfo | undefined {
  const key = typeof code === 'number' ? String(code) : code;
  if (typeof key !== 'string') return undefined;
  switch (protocol) {
    case 'aap':
      return Object.hasOwn(AAP_CODES, key) ? AAP_CODES[key as keyof typeof AAP_CODES] : undefined;
    case 'dmc12':
      if (Object.hasOwn(DMC12_CODES, key)) return DMC12_CODES[key as keyof typeof DMC12_CODES];
      return Object.hasOwn(DMC12_JSONRPC_ERRORS, key) ? DMC12_JSONRPC_ERRORS[key as keyof typeof DMC12_JSONRPC_ERRORS] : undefined;
    case 'jsonrpc':
      return Object.hasOwn(JSONRPC_ERRORS, key) ? JSONRPC_ERRORS[key as keyof typeof JSONRPC_ERRORS] : undefined;
    case 'a2a': {
      if (Object.hasOwn(A2A_ERRORS, key)) return A2A_ERRORS[key as keyof typeof A2A_ERRORS];
      if (key === TASK_FAILED_INFO.code) return TASK_FAILED_INFO;
      if (key === TASK_REJECTED_INFO.code) return TASK_REJECTED_INFO;
      return /^-\d+$/.test(key) ? A2A_BY_NUMBER.get(Number(key)) : undefined;
    }
    default:
      return undefined;
  }
}
