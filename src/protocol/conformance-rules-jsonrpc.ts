/** Conformance rules of JSON-RPC 2.0 itself (§5 Response object, §6 Batch). */
import { own } from './extract.js';
import type { ConformanceRule } from './conformance-view.js';

const noCallCheck = (): null => null;

/** JSON-RPC 2.0 rules, in report order. */
export const JSONRPC_RULES: readonly ConformanceRule[] = [
  {
    id: 'jsonrpc.envelope',
    level: 'MUST',
    source: 'JSON-RPC 2.0 §5',
    quote: 'Either the result member or error member MUST be included, but both members MUST NOT be included.',
    check: (v) => {
      if (own(v.response, 'jsonrpc') !== '2.0') return 'jsonrpc member is not "2.0"';
      if (Object.hasOwn(v.response, 'result') && Object.hasOwn(v.response, 'error')) return 'both result and error are present';
      if (Object.hasOwn(v.response, 'error')) {
        if (!v.error) return 'error member is not an object';
        if (typeof v.jsonrpcCode !== 'number' || !Number.isInteger(v.jsonrpcCode)) return 'error.code is not an integer';
        if (typeof own(v.error, 'message') !== 'string') return 'error.message is not a string';
      }
      return null;
    },
  },
  {
    id: 'jsonrpc.id',
    level: 'MUST',
    source: 'JSON-RPC 2.0 §5',
    quote: 'id This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object.',
    check: (v) => {
      if (!Object.hasOwn(v.response, 'id')) return 'the response has no id member (null when the request id could not be read)';
      const id = own(v.response, 'id');
      const ok = id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
      return ok ? null : 'id is not a string, a number or null';
    },
  },
  {
    id: 'jsonrpc.batch-not-empty',
    level: 'MUST NOT',
    source: 'JSON-RPC 2.0 §6',
    quote:
      'If there are no Response objects contained within the Response array as it is to be sent to the client, the server MUST NOT return an empty Array and should return nothing at all.',
    check: noCallCheck,
    checkBody: (body) => (Array.isArray(body) && body.length === 0 ? 'the body is an empty array' : null),
  },
];
