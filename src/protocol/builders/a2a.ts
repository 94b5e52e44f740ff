/**
 * A2A protocol errors in A2A's own shape (A2A v1.0 §9.5: `error.data` is an array of `@type`
 * detail objects) and the AAP -32008 activation error (spec/aap-errors.txt "The activation error
 * MUST carry recovery instructions").
 */
import {
  A2A_ERROR_DOMAIN,
  A2A_ERRORS,
  A2A_EXTENSIONS_HEADER,
  BAD_REQUEST_TYPE_URL,
  ERROR_INFO_TYPE_URL,
  type A2AReason,
} from '../codes/a2a-codes.js';
import { isObject, urisIn } from '../extract.js';
import { checkMessage, checkNoDraftIdentifier } from './common.js';

/** The JSON-RPC `error` member of an A2A protocol error. */
export interface A2AErrorMember {
  code: number;
  message: string;
  data: Array<Record<string, unknown>>;
}

/** Options of `buildA2AError`. */
export interface BuildA2AErrorOptions {
  /** `error.message`; default: the table meaning. A stack trace is refused. */
  message?: string;
  /** ErrorInfo metadata; every value must be a string (google.rpc.ErrorInfo map<string,string>). */
  metadata?: Record<string, string>;
  /** Optional google.rpc.BadRequest field violations appended after the ErrorInfo. */
  fieldViolations?: Array<{ field: string; description: string }>;
}

function checkMetadata(metadata: unknown, option: string): Record<string, string> | undefined {
  if (metadata === undefined) return undefined;
  if (!isObject(metadata)) throw new TypeError(`${option} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string') throw new TypeError(`${option}.${k} must be a string (ErrorInfo metadata is map<string,string>)`);
    checkNoDraftIdentifier(v, `${option}.${k}`);
    out[k] = v;
  }
  return out;
}

/**
 * Builds an A2A protocol error `{ code, message, data: [ErrorInfo, BadRequest?] }` for `reason`
 * (-32001 … -32009; ErrorInfo `domain` a2a-protocol.org).
 *
 * Throws TypeError for an unknown reason, non-string metadata, a message with a stack trace, and
 * for EXTENSION_SUPPORT_REQUIRED: a bare -32008 cannot be built, use `buildExtensionRequiredError`.
 */
export function buildA2AError(reason: A2AReason, options: BuildA2AErrorOptions = {}): A2AErrorMember {
  if (typeof reason !== 'string' || !Object.hasOwn(A2A_ERRORS, reason)) {
    throw new TypeError(`reason: unknown A2A error reason ${JSON.stringify(reason)}`);
  }
  if (reason === 'EXTENSION_SUPPORT_REQUIRED') {
    throw new TypeError('reason: a bare -32008 is not allowed; use buildExtensionRequiredError(extensionUri)');
  }
  const info = A2A_ERRORS[reason];
  const opts: BuildA2AErrorOptions = isObject(options) ? options : {};
  const message = checkMessage(opts.message, 'message', false) ?? info.meaning;
  const metadata = checkMetadata(opts.metadata, 'metadata');
  const data: Array<Record<string, unknown>> = [
    { '@type': ERROR_INFO_TYPE_URL, reason, domain: A2A_ERROR_DOMAIN, ...(metadata ? { metadata } : {}) },
  ];
  if (opts.fieldViolations !== undefined) {
    if (!Array.isArray(opts.fieldViolations)) throw new TypeError('fieldViolations must be an array');
    const fieldViolations = opts.fieldViolations.map((v, i) => {
      if (!isObject(v) || typeof v.field !== 'string' || typeof v.description !== 'string') {
        throw new TypeError(`fieldViolations[${i}] needs string field and description`);
      }
      checkMessage(v.description, `fieldViolations[${i}].description`);
      checkNoDraftIdentifier(v.field, `fieldViolations[${i}].field`);
      return { field: v.field, description: v.description };
    });
    data.push({ '@type': BAD_REQUEST_TYPE_URL, fieldViolations });
  }
  return { code: info.jsonrpcCode, message, data };
}

/** Options of `buildExtensionRequiredError`. */
export interface BuildExtensionRequiredOptions {
  /** Custom `error.message`; must contain the exact URI and the literal `A2A-Extensions`. */
  message?: string;
}

/**
 * Builds the -32008 ExtensionSupportRequiredError a dealer returns when the request did not
 * activate the required AAP extension: `error.message` contains the exact `extensionUri` and the
 * literal header name `A2A-Extensions`; `error.data` is one ErrorInfo with domain
 * a2a-protocol.org, reason EXTENSION_SUPPORT_REQUIRED and string metadata `extensionUri`,
 * `requiredHeader` (spec/aap-errors.txt "The activation error MUST carry recovery instructions").
 *
 * Throws TypeError when `extensionUri` is not an absolute URL without whitespace or is a draft
 * identifier (`draft.autoagentprotocol.invalid` MUST NOT be deployed), or a custom message lacks
 * the URI or the header name, or names any other http(s) URI ("The message and metadata MUST name
 * the same extension URI").
 */
export function buildExtensionRequiredError(extensionUri: string, options: BuildExtensionRequiredOptions = {}): A2AErrorMember {
  if (typeof extensionUri !== 'string' || /\s/.test(extensionUri) || !URL.canParse(extensionUri)) {
    throw new TypeError('extensionUri must be an absolute URI without whitespace');
  }
  checkNoDraftIdentifier(extensionUri, 'extensionUri');
  const custom = checkMessage(isObject(options) ? options.message : undefined, 'message', false);
  if (custom !== undefined && (!custom.includes(extensionUri) || !custom.includes(A2A_EXTENSIONS_HEADER))) {
    throw new TypeError(`message must contain the exact extension URI and the literal header name ${A2A_EXTENSIONS_HEADER}`);
  }
  // "The message and metadata MUST name the same extension URI": a second URI in the message
  // (another extension, a docs link) would make the envelope fail its own conformance rule.
  const other = custom === undefined ? undefined : urisIn(custom).find((u) => u !== extensionUri);
  if (other !== undefined) {
    throw new TypeError(`message names ${other}; it must name no URI other than the extension's (${extensionUri})`);
  }
  const message =
    custom ?? `Activate ${extensionUri} in the ${A2A_EXTENSIONS_HEADER} header before retrying this request.`;
  return {
    code: A2A_ERRORS.EXTENSION_SUPPORT_REQUIRED.jsonrpcCode,
    message,
    data: [
      {
        '@type': ERROR_INFO_TYPE_URL,
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        domain: A2A_ERROR_DOMAIN,
        metadata: { extensionUri, requiredHeader: A2A_EXTENSIONS_HEADER },
      },
    ],
  };
}
