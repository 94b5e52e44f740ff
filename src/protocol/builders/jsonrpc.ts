/** Plain JSON-RPC 2.0 errors and response envelopes (JSON-RPC 2.0 §5). */
import { JSONRPC_ERRORS, type JsonRpcCode } from '../codes/jsonrpc-codes.js';
import { checkMessage } from './common.js';

/** A plain JSON-RPC `error` member. */
export interface JsonRpcErrorMember {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Builds a standard JSON-RPC error member (-32700, -32600, -32601, -32602, -32603) with no
 * typed payload. `message` defaults to the table meaning; a stack trace is refused (TypeError).
 */
export function buildJsonRpcError(code: JsonRpcCode | number, message?: string): JsonRpcErrorMember {
  const key = String(code);
  if (!Object.hasOwn(JSONRPC_ERRORS, key)) throw new TypeError(`code: ${key} is not a standard JSON-RPC error code`);
  const info = JSONRPC_ERRORS[key as JsonRpcCode];
  return { code: info.jsonrpcCode!, message: checkMessage(message, 'message', false) ?? info.meaning };
}

/** A JSON-RPC error response. `id` is null when the request id could not be read. */
export function errorResponse(id: string | number | null, error: object): { jsonrpc: '2.0'; id: string | number | null; error: object } {
  return { jsonrpc: '2.0', id, error };
}

/** A JSON-RPC success response (DMC-12 errors ride in one: `successResponse(id, buildDmc12Error(…))`). */
export function successResponse(id: string | number | null, result: unknown): { jsonrpc: '2.0'; id: string | number | null; result: unknown } {
  return { jsonrpc: '2.0', id, result };
}
