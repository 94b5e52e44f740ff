/** Conformance rules for DMC-12 tool errors (spec/dmc12-errors.txt; reference dmc12-error.schema.json). */
import { DMC12_CODES, documentedDmc12CodeForLegacy, isDmc12Code } from './codes/dmc12-codes.js';
import { ERROR_ID_PATTERN } from './error-id.js';
import { own, ownObject } from './extract.js';
import { type ConformanceRule, DMC_SPEC as DMC } from './conformance-view.js';

const TAXONOMY = `${DMC}, "Error taxonomy"`;
const ENVELOPE = `${DMC}, "The envelope"`;
const TRACE_ID = /^trc_[\x21-\x7e]{1,124}$/;

/** DMC-12 rules, in report order. */
export const DMC12_RULES: readonly ConformanceRule[] = [
  {
    id: 'dmc12.taxonomy-fields',
    level: 'MUST',
    source: TAXONOMY,
    quote: 'As of DMC-12 v0.3 every error payload carries a stable error_code, a retryable flag, and a correlation error_id',
    check: (v) => {
      if (!v.dmc12) return null;
      const missing = ['error_code', 'retryable', 'error_id'].filter((k) => !Object.hasOwn(v.dmc12!, k));
      if (missing.length > 0) return `DMC-12 error lacks ${missing.join(', ')}`;
      if (!isDmc12Code(own(v.dmc12, 'error_code'))) return `error_code ${JSON.stringify(own(v.dmc12, 'error_code'))} is not one of the 21 codes`;
      return typeof own(v.dmc12, 'error') === 'string' ? null : 'legacy error string missing';
    },
  },
  {
    id: 'dmc12.legacy-matches-code',
    level: 'MUST',
    source: `${TAXONOMY}; the pairs of the examples of DMC-12's error schema https://dmc12.ai/schemas/error.json (DMC12_DOCUMENTED_LEGACY_PAIRS)`,
    quote: 'layered over the legacy error string, which is preserved byte-identically.',
    check: (v) => {
      const legacy = own(v.dmc12, 'error');
      const code = own(v.dmc12, 'error_code');
      if (typeof legacy !== 'string' || !isDmc12Code(code)) return null;
      const documented = documentedDmc12CodeForLegacy(legacy);
      return documented === undefined || documented === code
        ? null
        : `legacy error ${JSON.stringify(legacy)} is documented as ${documented}, but error_code is ${code}`;
    },
  },
  {
    id: 'dmc12.in-result',
    level: 'MUST',
    source: ENVELOPE,
    quote: 'Errors come back inside the normal envelope (HTTP 200 on the A2A rail, except auth failures which are JSON-RPC -32001 / HTTP 401).',
    check: (v) => (v.dmc12InError ? 'a DMC-12 tool error was sent in a JSON-RPC error member instead of result.data' : null),
  },
  {
    id: 'dmc12.http-status',
    level: 'MUST',
    source: `${ENVELOPE}; "Auth failures are different"`,
    quote: 'A bad/expired/wrong-audience bearer token returns JSON-RPC error -32001 with HTTP 401 — not the data.error envelope.',
    check: (v) => {
      if (v.httpStatus === undefined) return null;
      if (v.dmc12 && !v.dmc12InError && v.httpStatus !== 200) return `a DMC-12 tool error came with HTTP ${v.httpStatus}, not 200`;
      if (v.family !== 'dmc12') return null;
      const auth = v.jsonrpcCode === -32001;
      if (auth && v.httpStatus !== 401) return `the DMC-12 auth failure (-32001) came with HTTP ${v.httpStatus}, not 401`;
      if (!auth && v.httpStatus === 401) return 'HTTP 401 without the JSON-RPC -32001 auth failure';
      return null;
    },
  },
  {
    id: 'dmc12.retryable-boolean',
    level: 'MUST',
    source: `${DMC}, "Retry strategy"; DMC-12's error schema https://dmc12.ai/schemas/error.json (retryable: boolean)`,
    quote: 'Retry only when retryable === true',
    check: (v) =>
      v.dmc12 && Object.hasOwn(v.dmc12, 'retryable') && typeof own(v.dmc12, 'retryable') !== 'boolean'
        ? `retryable ${JSON.stringify(own(v.dmc12, 'retryable')) ?? 'undefined'} is not a JSON boolean`
        : null,
  },
  {
    id: 'dmc12.retryable-fixed',
    level: 'MUST',
    source: `${DMC}, "The full code set (21)"`,
    quote: 'retryable is true only for the three transient classes.',
    check: (v) => {
      // A non-boolean retryable is dmc12.retryable-boolean's finding: one broken habit, one rule.
      const code = own(v.dmc12, 'error_code');
      const r = own(v.dmc12, 'retryable');
      if (typeof r !== 'boolean' || !isDmc12Code(code)) return null;
      return DMC12_CODES[code].retryable !== r ? `retryable ${r} contradicts ${code}` : null;
    },
  },
  {
    id: 'dmc12.error-id-format',
    level: 'MUST',
    source: ENVELOPE,
    quote: 'error_id ↔ audit row error_id correlates 1:1 to an audit_log row; _metadata.trace_id correlates the whole call.',
    check: (v) => {
      if (!v.dmc12 || !Object.hasOwn(v.dmc12, 'error_id')) return null;
      const id = own(v.dmc12, 'error_id');
      return typeof id === 'string' && ERROR_ID_PATTERN.test(id) ? null : 'error_id is not err_ + 32 lowercase hex';
    },
  },
  {
    id: 'dmc12.trace-id',
    level: 'MUST',
    source: ENVELOPE,
    quote: '_metadata.trace_id correlates the whole call. Include both in any incident email',
    check: (v) => {
      if (!v.dmc12 || v.dmc12InError) return null;
      const trace = own(ownObject(own(v.response, 'result'), '_metadata'), 'trace_id');
      if (trace === undefined) return 'result._metadata.trace_id is missing';
      return typeof trace === 'string' && TRACE_ID.test(trace) ? null : 'result._metadata.trace_id is not trc_ followed by printable ASCII';
    },
  },
];
