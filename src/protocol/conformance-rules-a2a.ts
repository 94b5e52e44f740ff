/**
 * Conformance rules for A2A protocol errors as AAP profiles them (spec/aap-errors.txt "A2A
 * protocol-level errors", "The activation error MUST carry recovery instructions").
 */
import { A2A_EXTENSIONS_HEADER } from './codes/a2a-codes.js';
import { AAP_CODES, isAapCode } from './codes/aap-codes.js';
import { isObject, own, ownObject, ownString, urisIn } from './extract.js';
import { AAP_SPEC as AAP, type CallView, type ConformanceRule, extensionInfoOf, extensionUriOf } from './conformance-view.js';

const ACTIVATION = `${AAP}, "The activation error MUST carry recovery instructions"`;
const A2A_LEVEL = `${AAP}, "A2A protocol-level errors" (A2A §9.5)`;

/**
 * True when the call is an A2A protocol error (-32001 … -32009), not an AAP skill error that
 * legitimately uses one of those numbers (UNSUPPORTED_SKILL -32004; released RATE_LIMITED -32002).
 */
function isA2AProtocolError(v: CallView): boolean {
  // DMC-12 is not A2A: its -32001 is the auth failure, with its own error.data form.
  if (v.family === 'dmc12') return false;
  const n = v.jsonrpcCode;
  if (typeof n !== 'number' || n > -32001 || n < -32009) return false;
  const code = own(v.payload, 'code');
  if (!isAapCode(code)) return true;
  const info = AAP_CODES[code];
  return n !== (v.aapForm === 'released' ? info.releasedJsonrpcCode : info.jsonrpcCode);
}

/** A2A rules, in report order. */
export const A2A_RULES: readonly ConformanceRule[] = [
  {
    id: 'a2a.data-entries-typed',
    level: 'MUST',
    source: A2A_LEVEL,
    quote: 'per A2A §9.5, error.data is an array of detail objects and each one MUST carry an @type key.',
    check: (v) => {
      if (!v.dataArray) return null;
      const i = v.dataArray.findIndex((e) => !isObject(e) || typeof e['@type'] !== 'string');
      return i >= 0 ? `error.data[${i}] has no @type` : null;
    },
  },
  {
    id: 'a2a.own-shape',
    level: 'MUST',
    source: A2A_LEVEL,
    quote: "Dealer agents return these in A2A's own error shape, not as a typed aap.error payload",
    check: (v) => {
      if (!isA2AProtocolError(v)) return null;
      if (v.payload) return `A2A protocol error ${String(v.jsonrpcCode)} carries a typed aap.error payload`;
      const data = own(v.error, 'data');
      return data !== undefined && !Array.isArray(data) ? `A2A protocol error ${String(v.jsonrpcCode)} has an error.data that is not an array` : null;
    },
  },
  {
    id: 'a2a.extension-required-message',
    level: 'MUST',
    source: ACTIVATION,
    quote:
      'a dealer agent returning -32008 MUST include both the exact required extension URI and the literal header name A2A-Extensions in the human-readable error.message.',
    check: (v) => {
      if (v.jsonrpcCode !== -32008) return null;
      const message = ownString(v.error, 'message') ?? '';
      const uri = extensionUriOf(v);
      if (!message.includes(A2A_EXTENSIONS_HEADER)) return 'error.message lacks the literal header name A2A-Extensions';
      const named = uri === null || uri.length === 0 ? urisIn(message).length > 0 : message.includes(uri);
      return named ? null : 'error.message lacks the exact extension URI';
    },
  },
  {
    id: 'a2a.extension-required-detail',
    level: 'MUST',
    source: ACTIVATION,
    quote:
      'It MUST also include a google.rpc.ErrorInfo detail with domain: "a2a-protocol.org", reason: "EXTENSION_SUPPORT_REQUIRED", and string-valued metadata.extensionUri and metadata.requiredHeader.',
    check: (v) => {
      if (v.jsonrpcCode !== -32008) return null;
      const info = extensionInfoOf(v);
      if (!info) return 'no ErrorInfo with domain a2a-protocol.org and reason EXTENSION_SUPPORT_REQUIRED';
      const meta = ownObject(info, 'metadata');
      const uri = own(meta, 'extensionUri');
      if (typeof uri !== 'string') return 'ErrorInfo.metadata.extensionUri missing';
      if (uri.trim().length === 0 || /\s/.test(uri) || !URL.canParse(uri)) return 'ErrorInfo.metadata.extensionUri is empty or not an absolute URI';
      if (own(meta, 'requiredHeader') !== A2A_EXTENSIONS_HEADER) return 'ErrorInfo.metadata.requiredHeader is not "A2A-Extensions"';
      return null;
    },
  },
  {
    id: 'a2a.extension-required-same-uri',
    level: 'MUST',
    source: ACTIVATION,
    quote: 'The message and metadata MUST name the same extension URI.',
    check: (v) => {
      const uri = extensionUriOf(v);
      if (v.jsonrpcCode !== -32008 || uri === null || uri.length === 0) return null;
      // A message naming no URI at all is a2a.extension-required-message's finding, not this rule's.
      return urisIn(ownString(v.error, 'message') ?? '').every((u) => u === uri) ? null : 'error.message and metadata.extensionUri name different URIs';
    },
  },
];
