import type { CodeInfo } from '../types.js';

/** JSON-RPC 2.0 standard error codes (JSON-RPC 2.0 §5.1), as strings. */
export type JsonRpcCode = '-32700' | '-32600' | '-32601' | '-32602' | '-32603';

const SPEC = 'JSON-RPC 2.0 §5.1 "Error object"';

/**
 * The JSON-RPC standard errors, keyed by the code as a string (`'-32700'`). `retryable` is our
 * default for an error with no typed payload: only -32603 (internal error) is treated as transient.
 */
export const JSONRPC_ERRORS: Readonly<Record<JsonRpcCode, CodeInfo>> = Object.freeze({
  '-32700': {
    code: '-32700',
    protocol: 'jsonrpc',
    meaning: 'Parse error: the server received invalid JSON.',
    jsonrpcCode: -32700,
    retryable: false,
    clientAction: 'Fix the payload: send well-formed UTF-8 JSON with Content-Type application/json.',
    specSection: SPEC,
  },
  '-32600': {
    code: '-32600',
    protocol: 'jsonrpc',
    meaning: 'Invalid Request: the JSON sent is not a valid Request object.',
    jsonrpcCode: -32600,
    retryable: false,
    clientAction: 'Fix the payload: jsonrpc "2.0", a method string, params object or array, valid id.',
    specSection: SPEC,
  },
  '-32601': {
    code: '-32601',
    protocol: 'jsonrpc',
    meaning: 'Method not found (e.g. an A2A 0.3 method name on a 1.0 server).',
    jsonrpcCode: -32601,
    retryable: false,
    clientAction: 'Call a method the server serves (AAP: SendMessage; DMC-12: tools/call); do not retry.',
    specSection: SPEC,
  },
  '-32602': {
    code: '-32602',
    protocol: 'jsonrpc',
    meaning: 'Invalid params.',
    jsonrpcCode: -32602,
    retryable: false,
    clientAction: 'Fix the payload and resend; do not retry as-is.',
    specSection: SPEC,
  },
  '-32603': {
    code: '-32603',
    protocol: 'jsonrpc',
    meaning: 'Internal JSON-RPC error.',
    jsonrpcCode: -32603,
    retryable: true,
    clientAction: 'Back off and retry a few times; if it persists, surface to the operator.',
    specSection: SPEC,
  },
} satisfies Record<JsonRpcCode, CodeInfo>);

/** Type guard: `code` (number or string) is one of the five standard JSON-RPC errors. */
export function isJsonRpcCode(code: unknown): code is JsonRpcCode {
  const key = typeof code === 'number' ? String(code) : code;
  return typeof key === 'string' && Object.hasOwn(JSONRPC_ERRORS, key);
}
