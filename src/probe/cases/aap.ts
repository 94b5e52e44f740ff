/**
 * The AAP battery (spec/aap-errors.txt over A2A v1.0 JSON-RPC): requests that a conforming dealer
 * agent must reject, each with the answer it must give. Every request is rejected before any
 * skill could act — by activation, version, media type, method, an unknown skill, a schema
 * error or a missing consent — so nothing here can create a lead.
 */
import { A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, BAD_REQUEST_TYPE_URL } from '../../protocol/index.js';
import { own, ownObject } from '../../protocol/extract.js';
import { aapPayloadOf, describeReply, errorInfosOf, jsonrpcCodeOf, replies } from '../inspect.js';
import type { Findings, ProbeAnswer, ProbeCase, ProbeRequest, ProbeTarget } from '../types.js';
import { conformanceFindings, errorMember, expectError, probeId, probeMessageId, singleReply } from './judge.js';

const AAP = 'AAP "Errors" page';
const JSONRPC = 'JSON-RPC 2.0';

/** A skill id no AAP contract defines, so a dealer must answer UNSUPPORTED_SKILL. */
export const UNKNOWN_SKILL = 'aap-triage-probe.unknown';
/** A JSON-RPC method no A2A version defines. */
export const UNKNOWN_METHOD = 'aap-triage-probe/NoSuchMethod';
/** A media type no dealer serves. */
export const UNSUPPORTED_MEDIA_TYPE = 'application/x-aap-triage-probe';
/** An A2A version no agent serves. */
export const UNSUPPORTED_VERSION = '99.0';
/** An extension URI that is not AAP's (an unrelated one). */
export const UNRELATED_EXTENSION = 'https://aap-triage-probe.invalid/extensions/not-aap';

/**
 * The schema errors planted in one `inventory.search` request: each a JSON pointer a dealer's
 * details.errors[] must name (additionalProperties may point at the parent object instead).
 */
export const PLANTED_SCHEMA_ERRORS = Object.freeze([
  { pointer: '/filters/year_min', keyword: 'type' },
  { pointer: '/filters/aap_triage_probe_unknown_filter', keyword: 'additionalProperties' },
  { pointer: '/pagination/limit', keyword: 'minimum' },
]);

/**
 * A lead.submit with a customer and no consent block. It can never be a lead: without a consent
 * grant no dealer may keep it (spec: CONTACT_CONSENT_REQUIRED), its contact data are reserved for
 * documentation (example.com, +1 555-01xx), its message says it is a probe, and its fixed
 * idempotency_key makes a repeat a duplicate, never a second lead.
 */
export function noConsentLead(): Record<string, unknown> {
  return {
    type: 'lead.submit.request',
    customer: { first_name: 'Probe', last_name: 'Example', email: 'probe@example.com', phone: '+15555550100', preferred_contact: 'email' },
    source_agent: { name: 'aap-triage probe' },
    message: 'aap-triage probe: a conformance check that carries no consent and must be rejected. Not a lead.',
    idempotency_key: 'aap-triage-probe-no-consent',
  };
}

const unknownSkillData = () => ({ type: `${UNKNOWN_SKILL}.request` });

const schemaErrorData = () => ({
  type: 'inventory.search.request',
  filters: { year_min: 'not-a-year', aap_triage_probe_unknown_filter: true },
  pagination: { limit: 0 },
});

interface MessageOptions {
  partMediaType?: string;
  acceptedOutputModes?: string[];
}

/** A `SendMessage` body with one data part. */
export function sendMessageBody(tag: string, data: unknown, options: MessageOptions = {}): string {
  return JSON.stringify(sendMessageCall(tag, data, options));
}

function sendMessageCall(tag: string, data: unknown, options: MessageOptions = {}): Record<string, unknown> {
  const part: Record<string, unknown> = { data };
  if (options.partMediaType) part.mediaType = options.partMediaType;
  const params: Record<string, unknown> = { message: { messageId: probeMessageId(), role: 'ROLE_USER', parts: [part] } };
  if (options.acceptedOutputModes) params.configuration = { acceptedOutputModes: options.acceptedOutputModes };
  return { jsonrpc: '2.0', id: probeId(tag), method: 'SendMessage', params };
}

/** Headers of a well-formed AAP call: the card's version and every required extension activated. */
function headers(t: ProbeTarget, over: { version?: string | null; extensions?: string | null } = {}): Record<string, string> {
  const h: Record<string, string> = {};
  const version = over.version === undefined ? (t.versions.includes('1.0') ? '1.0' : (t.versions[0] ?? '1.0')) : over.version;
  if (version !== null) h[A2A_VERSION_HEADER] = version;
  const ext = over.extensions === undefined ? t.requiredExtensions.join(', ') : over.extensions;
  if (ext !== null && ext !== '') h[A2A_EXTENSIONS_HEADER] = ext;
  return h;
}

const request = (label: string, h: Record<string, string>, body: string): ProbeRequest => ({ label, headers: h, body });

const noRequiredExtension = (t: ProbeTarget) =>
  t.requiredExtensions.length === 0 ? 'the agent card declares no extension with required: true, so no request needs activating' : null;

const undeclared = (skill: string) => (t: ProbeTarget) => (t.skills.includes(skill) ? null : `the agent card declares no ${skill} skill`);

/** Findings unless the answer is the typed aap.error with `code` (2.0 array or released form). */
function expectAapError(a: ProbeAnswer, code: string): { findings: Findings; payload: Record<string, unknown> | null } {
  const one = singleReply(a);
  if ('findings' in one) return { findings: one.findings, payload: null };
  const payload = aapPayloadOf(one.reply);
  const label = a.request.label;
  const out: Findings = [];
  if (Object.hasOwn(one.reply, 'result')) out.push(`${label}: accepted — a success result came back, want the typed aap.error ${code}`);
  else if (!payload) out.push(`${label}: got ${describeReply(one.reply).got} without a typed aap.error payload, want aap.error ${code}`);
  else if (own(payload, 'code') !== code) out.push(`${label}: got aap.error ${String(own(payload, 'code'))}, want ${code}`);
  // The JSON-RPC code that goes with the payload's code (per form) is the checker's aap.jsonrpc-code.
  return { findings: [...out, ...conformanceFindings(a)], payload };
}

/** Findings on a -32008 beyond the checker: the URI it names must be the card's required one, exactly. */
function sameUriAsCard(a: ProbeAnswer, t: ProbeTarget): Findings {
  const error = errorMember(a);
  if (!error || own(error, 'code') !== -32008) return [];
  const info = errorInfosOf({ error }).find((i) => own(i, 'reason') === 'EXTENSION_SUPPORT_REQUIRED');
  const uri = own(ownObject(info, 'metadata'), 'extensionUri');
  const message = typeof own(error, 'message') === 'string' ? (own(error, 'message') as string) : '';
  const out: Findings = [];
  if (typeof uri === 'string' && !t.requiredExtensions.includes(uri)) out.push(`${a.request.label}: metadata.extensionUri is not the card's required URI (${t.requiredExtensions.join(', ')})`);
  if (!t.requiredExtensions.some((u) => message.includes(u))) out.push(`${a.request.label}: error.message does not name the card's required extension URI`);
  return out;
}

const activationFindings = (answers: readonly ProbeAnswer[], t: ProbeTarget): Findings =>
  answers.flatMap((a) => [...expectError(a, { jsonrpcCode: -32008 }), ...sameUriAsCard(a, t)]);

/** The AAP cases, in report order. */
export const AAP_CASES: readonly ProbeCase[] = Object.freeze([
  {
    id: 'aap.activation.missing-header',
    family: 'aap',
    level: 'MUST',
    title: 'a call without A2A-Extensions gets a complete -32008 (URI and header name in the message, ErrorInfo with extensionUri and requiredHeader)',
    spec: { source: `${AAP}, "The activation error MUST carry recovery instructions"`, quote: 'A dealer agent MUST NOT return a bare -32008 without those message instructions and the detail object.' },
    safety: 'dealer.information without activation: rejected before any skill runs',
    skipReason: noRequiredExtension,
    requests: (t) => [request('no-header', headers(t, { extensions: null }), sendMessageBody('no-ext', { type: 'dealer.information.request' }))],
    judge: activationFindings,
  },
  {
    id: 'aap.activation.wrong-uri',
    family: 'aap',
    level: 'MUST',
    title: "A2A-Extensions naming another URI, or the required one with a suffix, gets -32008 (the card's exact URI is required)",
    spec: {
      source: `${AAP}, "The activation error MUST carry recovery instructions"`,
      quote: "The server MUST check activation before invoking AAP skill logic and reject a request whose A2A-Extensions list lacks the card's exact required URI.",
    },
    safety: 'dealer.information without the exact extension: rejected before any skill runs',
    skipReason: noRequiredExtension,
    requests: (t) => [
      request('unrelated-uri', headers(t, { extensions: UNRELATED_EXTENSION }), sendMessageBody('ext-other', { type: 'dealer.information.request' })),
      request('uri-with-suffix', headers(t, { extensions: `${t.requiredExtensions[0] ?? ''}-probe` }), sendMessageBody('ext-suffix', { type: 'dealer.information.request' })),
    ],
    judge: activationFindings,
  },
  {
    id: 'aap.activation.before-skill-logic',
    family: 'aap',
    level: 'MUST',
    title: 'without activation, an unknown skill, a schema error and a consent-less lead all get -32008, never a skill error',
    spec: {
      source: `${AAP}, "The activation error MUST carry recovery instructions"`,
      quote: 'The server MUST check activation before invoking AAP skill logic',
    },
    safety: 'each request is also one skill logic must reject (unknown skill, schema error, no consent)',
    skipReason: noRequiredExtension,
    requests: (t) => [
      request('unknown-skill', headers(t, { extensions: null }), sendMessageBody('order-skill', unknownSkillData())),
      request('schema-error', headers(t, { extensions: null }), sendMessageBody('order-schema', schemaErrorData())),
      ...(t.skills.includes('lead.submit') ? [request('lead-no-consent', headers(t, { extensions: null }), sendMessageBody('order-lead', noConsentLead()))] : []),
    ],
    judge: (answers) =>
      answers.flatMap((a) => {
        const error = errorMember(a);
        const payload = aapPayloadOf(singleReplyOf(a));
        if (payload) return [`${a.request.label}: skill logic ran before activation — got aap.error ${String(own(payload, 'code'))} instead of -32008`];
        return error && own(error, 'code') === -32008 ? [] : expectError(a, { jsonrpcCode: -32008 });
      }),
  },
  {
    id: 'aap.version.unsupported',
    family: 'aap',
    level: 'MUST',
    title: `A2A-Version ${UNSUPPORTED_VERSION} gets -32009 VersionNotSupportedError`,
    spec: {
      source: `${AAP}, "A2A protocol-level errors" (A2A §3.6.2)`,
      quote: 'VersionNotSupportedError -32009 The A2A-Version header names a Major.Minor the interface does not serve.',
    },
    safety: 'a version no agent serves: rejected by the A2A layer',
    requests: (t) => [request('version-99', headers(t, { version: UNSUPPORTED_VERSION }), sendMessageBody('version', { type: 'dealer.information.request' }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32009 })),
  },
  {
    id: 'aap.version.empty',
    family: 'aap',
    level: 'MUST',
    title: 'an empty A2A-Version reads as 0.3 and gets -32009 from an agent that serves only 1.x',
    spec: { source: `${AAP}, "A2A protocol-level errors" (A2A §3.6.2)`, quote: 'A2A §3.6.2 explicitly treats an empty value as 0.3, not 1.0;' },
    safety: 'a version the agent does not serve: rejected by the A2A layer',
    skipReason: (t) => (t.versions.some((v) => v.startsWith('0.3')) ? 'the agent card serves A2A 0.3, so an empty A2A-Version is valid there' : null),
    requests: (t) => [request('version-empty', headers(t, { version: '' }), sendMessageBody('version-empty', { type: 'dealer.information.request' }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32009 })),
  },
  {
    id: 'aap.media-type.input-part',
    family: 'aap',
    level: 'SHOULD',
    title: `a data part of media type ${UNSUPPORTED_MEDIA_TYPE} gets -32005 ContentTypeNotSupportedError`,
    spec: { source: `${AAP}, "A2A protocol-level errors"`, quote: 'A dealer agent that rejects on media type SHOULD use this error rather than a generic code.' },
    safety: 'a read-only skill (dealer.information) in a media type no dealer serves',
    requests: (t) => [request('part-media-type', headers(t), sendMessageBody('media-part', { type: 'dealer.information.request' }, { partMediaType: UNSUPPORTED_MEDIA_TYPE }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32005 })),
  },
  {
    id: 'aap.media-type.output-modes',
    family: 'aap',
    level: 'SHOULD',
    title: `acceptedOutputModes [${UNSUPPORTED_MEDIA_TYPE}] (nothing the agent can produce) gets -32005`,
    spec: {
      source: `${AAP}, "A2A protocol-level errors"`,
      quote: "ContentTypeNotSupportedError -32005 An input part's mediaType is unsupported, or none of the client's configuration.acceptedOutputModes can be produced.",
    },
    safety: 'a read-only skill (dealer.information) asking for an output mode no dealer produces',
    requests: (t) => [
      request('output-modes', headers(t), sendMessageBody('media-out', { type: 'dealer.information.request' }, { acceptedOutputModes: [UNSUPPORTED_MEDIA_TYPE] })),
    ],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32005 })),
  },
  {
    id: 'aap.media-type.http-content-type',
    family: 'aap',
    level: 'SHOULD',
    title: 'a body sent as Content-Type text/plain gets -32005, not a bare HTTP 415 or a generic code',
    spec: { source: `${AAP}, "A2A protocol-level errors"`, quote: 'A dealer agent that rejects on media type SHOULD use this error rather than a generic code.' },
    safety: 'a read-only skill (dealer.information) in the wrong HTTP media type',
    requests: (t) => [request('content-type', { ...headers(t), 'content-type': 'text/plain' }, sendMessageBody('media-http', { type: 'dealer.information.request' }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32005, id: 'any' })),
  },
  {
    id: 'aap.jsonrpc.method-not-found',
    family: 'aap',
    level: 'MUST',
    title: `an unknown method (${UNKNOWN_METHOD}) gets -32601`,
    spec: { source: `${JSONRPC} §5.1`, quote: '-32601 Method not found: The method does not exist / is not available.' },
    safety: 'a method no agent implements',
    requests: (t) => [request('unknown-method', headers(t), JSON.stringify({ jsonrpc: '2.0', id: probeId('method'), method: UNKNOWN_METHOD, params: {} }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32601 })),
  },
  {
    id: 'aap.jsonrpc.parse-error',
    family: 'aap',
    level: 'MUST',
    title: 'truncated JSON gets -32700 with id null',
    spec: { source: `${JSONRPC} §5`, quote: 'If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null.' },
    safety: 'a body that cannot be parsed',
    requests: (t) => [request('truncated-json', headers(t), sendMessageBody('parse', { type: 'dealer.information.request' }).slice(0, 60))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32700, id: 'null' })),
  },
  {
    id: 'aap.jsonrpc.batch-notification',
    family: 'aap',
    level: 'MUST',
    title: 'a batch of one call (unknown skill) and one notification (unknown method) gets no reply for the notification',
    spec: { source: `${JSONRPC} §4.1`, quote: 'The Server MUST NOT reply to a Notification, including those that are within a batch request.' },
    safety: 'an unknown skill and a notification of an unknown method',
    requests: (t) => [
      request('batch', headers(t), JSON.stringify([sendMessageCall('batch-call', unknownSkillData()), { jsonrpc: '2.0', method: UNKNOWN_METHOD, params: {} }])),
    ],
    judge: (answers) =>
      answers.flatMap((a) => {
        if (a.transportError !== null) return [`batch: no answer (${a.transportError})`];
        if (a.json === undefined) return a.text.length === 0 ? [] : [`batch: HTTP ${a.status} with a body that is not JSON`];
        const list = replies(a.json);
        const toNotification = list.filter((r) => own(r, 'id') === null && (!Array.isArray(a.json) ? jsonrpcCodeOf(r) === -32601 : true));
        if (toNotification.length > 0) return [`batch: ${toNotification.length} repl${toNotification.length === 1 ? 'y' : 'ies'} with id null answer the notification (${describeReply(toNotification[0]).got})`];
        if (Array.isArray(a.json) && list.length > 1) return [`batch: ${list.length} replies for one call`];
        return conformanceFindings(a);
      }),
  },
  {
    id: 'aap.jsonrpc.batch-array',
    family: 'aap',
    level: 'SHOULD',
    title: 'that batch is answered with an array holding the one call’s reply',
    spec: {
      source: `${JSONRPC} §6`,
      quote: 'The Server should respond with an Array containing the corresponding Response objects, after all of the batch Request objects have been processed.',
    },
    safety: 'judges the answer of aap.jsonrpc.batch-notification; sends nothing',
    answersOf: 'aap.jsonrpc.batch-notification',
    requests: () => [],
    judge: (answers) =>
      answers.flatMap((a) => {
        if (!Array.isArray(a.json)) return [`batch: ${a.json === undefined ? 'no JSON' : `one ${describeReply(a.json).got} for the whole batch`} instead of an array of replies`];
        return a.json.some((r) => own(r, 'id') === 'probe-batch-call') ? [] : ['batch: the array holds no reply with the call’s id'];
      }),
  },
  {
    id: 'aap.skill.unsupported',
    family: 'aap',
    level: 'MUST',
    title: `an unknown skill (${UNKNOWN_SKILL}) gets the typed aap.error UNSUPPORTED_SKILL, not a bare -32004`,
    spec: {
      source: `${AAP}, "What dealer agents MUST and MUST NOT do"`,
      quote: 'Dealer agents MUST return skill-level errors using this schema (typed aap.error payload), not free-text messages.',
    },
    safety: 'a skill no dealer implements',
    requests: (t) => [
      request('unknown-skill', headers(t), sendMessageBody('skill', unknownSkillData())),
      request('repeat', headers(t), sendMessageBody('skill-again', unknownSkillData())),
    ],
    judge: (answers) => answers.flatMap((a) => expectAapError(a, 'UNSUPPORTED_SKILL').findings),
  },
  {
    id: 'aap.error-id.unique',
    family: 'aap',
    level: 'MUST',
    title: 'the same rejected request sent twice gets two different error_ids',
    spec: { source: `${AAP}, "Error payload shape"`, quote: 'error_id string yes Unique identifier for this error instance (UUID recommended), suitable for support correlation.' },
    safety: 'judges the two answers of aap.skill.unsupported; sends nothing',
    answersOf: 'aap.skill.unsupported',
    requests: () => [],
    judge: (answers) => uniqueIdFindings(answers),
  },
  {
    id: 'aap.validation.all-errors',
    family: 'aap',
    level: 'MUST',
    title: `an inventory.search with ${PLANTED_SCHEMA_ERRORS.length} schema errors gets SCHEMA_VALIDATION_FAILED listing every one in details.errors (and in BadRequest when sent)`,
    spec: { source: `${AAP}, "details.errors[] — all problems at once"`, quote: 'A dealer agent MUST return all currently-detectable validation errors in one response — never just the first.' },
    safety: 'a read-only skill with an invalid payload',
    skipReason: undeclared('inventory.search'),
    requests: (t) => [request('three-errors', headers(t), sendMessageBody('schema', schemaErrorData()))],
    judge: (answers) =>
      answers.flatMap((a) => {
        const { findings, payload } = expectAapError(a, 'SCHEMA_VALIDATION_FAILED');
        if (!payload) return findings;
        const errors = own(ownObject(payload, 'details'), 'errors');
        const listed = (Array.isArray(errors) ? errors : []).map((e) => ({ pointer: own(e, 'instanceLocation'), keyword: own(e, 'keyword') }));
        const missing = missingPlants(listed);
        if (missing.length > 0) findings.push(`details.errors names ${PLANTED_SCHEMA_ERRORS.length - missing.length} of the ${PLANTED_SCHEMA_ERRORS.length} errors sent; missing ${missing.join(', ')}`);
        const bad = badRequestOf(singleReplyOf(a));
        if (bad) {
          const fields = (Array.isArray(own(bad, 'fieldViolations')) ? (own(bad, 'fieldViolations') as unknown[]) : []).map((v) => ({ pointer: own(v, 'field'), keyword: keywordOf(own(v, 'description')) }));
          const missingBad = missingPlants(fields);
          if (missingBad.length > 0) findings.push(`BadRequest.fieldViolations names ${PLANTED_SCHEMA_ERRORS.length - missingBad.length} of the ${PLANTED_SCHEMA_ERRORS.length}; missing ${missingBad.join(', ')}`);
        }
        return findings;
      }),
  },
  {
    id: 'aap.validation.bad-request',
    family: 'aap',
    level: 'SHOULD',
    title: 'the 2.0 array of that SCHEMA_VALIDATION_FAILED carries a google.rpc.BadRequest (what an SDK that keeps only the well-known details shows)',
    spec: { source: AAP, quote: 'Dealer agents MAY append further well-known A2A detail objects as additional entries.' },
    safety: 'judges the answer of aap.validation.all-errors; sends nothing',
    answersOf: 'aap.validation.all-errors',
    skipReason: undeclared('inventory.search'),
    requests: () => [],
    judge: (answers) =>
      answers.flatMap((a) => {
        const reply = singleReplyOf(a);
        const data = own(ownObject(reply, 'error'), 'data');
        if (!Array.isArray(data)) return [`${a.request.label}: error.data is not the 2.0 array, so no BadRequest`];
        return badRequestOf(reply) ? [] : [`${a.request.label}: no google.rpc.BadRequest in error.data`];
      }),
  },
  {
    id: 'aap.lead.consent-required',
    family: 'aap',
    level: 'MUST',
    title: 'a lead.submit with a customer and no consent gets CONTACT_CONSENT_REQUIRED (the request can never become a lead)',
    spec: {
      source: `${AAP}, "Per-code semantics: CONTACT_CONSENT_REQUIRED"`,
      quote: "Returned when a lead.submit request omits consent, or when the consent.allowed_channels[] does not include the channel the dealer's process needs to use for follow-up.",
    },
    safety: 'no consent block (no dealer may keep it), documentation-only contact data, a message saying it is a probe, a fixed idempotency_key',
    skipReason: undeclared('lead.submit'),
    requests: (t) => [request('no-consent', headers(t), sendMessageBody('lead', noConsentLead()))],
    judge: (answers) => answers.flatMap((a) => expectAapError(a, 'CONTACT_CONSENT_REQUIRED').findings),
  },
  {
    id: 'aap.lead.idempotent-repeat',
    family: 'aap',
    level: 'MUST',
    title: 'that consent-less lead.submit sent again with the same idempotency_key and payload gets CONTACT_CONSENT_REQUIRED again, never IDEMPOTENCY_CONFLICT',
    spec: {
      source: `${AAP} "Per-code semantics: IDEMPOTENCY_CONFLICT"`,
      quote: 'A retry with the same key AND the same payload MUST be treated as idempotent — the dealer returns the original lead (e.g. data.status: "duplicate"), not this error.',
    },
    safety: 'the same request as aap.lead.consent-required (no consent, documentation-only contact data, a fixed idempotency_key): a repeat can only be the same rejection or a duplicate',
    skipReason: undeclared('lead.submit'),
    requests: (t) => [request('same-key-same-payload', headers(t), sendMessageBody('lead-again', noConsentLead()))],
    judge: (answers) => answers.flatMap((a) => expectAapError(a, 'CONTACT_CONSENT_REQUIRED').findings),
  },
] satisfies ProbeCase[]);

function singleReplyOf(a: ProbeAnswer): Record<string, unknown> | null {
  const one = singleReply(a);
  return 'reply' in one ? one.reply : null;
}

function badRequestOf(reply: unknown): Record<string, unknown> | null {
  const data = own(ownObject(reply, 'error'), 'data');
  return Array.isArray(data) ? ((data.find((e) => own(e, '@type') === BAD_REQUEST_TYPE_URL) as Record<string, unknown> | undefined) ?? null) : null;
}

/** `type: must be integer` → `type` (BadRequest descriptions lead with the keyword, as the spec's example does). */
function keywordOf(description: unknown): unknown {
  return typeof description === 'string' ? description.split(':')[0]?.trim() : undefined;
}

/** The planted errors a list does not name: by pointer, or for additionalProperties by the parent pointer with that keyword. */
function missingPlants(listed: { pointer: unknown; keyword: unknown }[]): string[] {
  return PLANTED_SCHEMA_ERRORS.filter(
    (p) =>
      !listed.some(
        (l) => l.pointer === p.pointer || (p.keyword === 'additionalProperties' && l.keyword === p.keyword && l.pointer === p.pointer.slice(0, p.pointer.lastIndexOf('/'))),
      ),
  ).map((p) => p.pointer);
}

/** Findings unless every answer has an error_id and no two share one. */
export function uniqueIdFindings(answers: readonly ProbeAnswer[]): Findings {
  const ids = answers.map((a) => a.errorIds[0] ?? null);
  if (ids.some((id) => id === null)) return [`${ids.filter((id) => id === null).length} of ${ids.length} answers carry no error_id`];
  return new Set(ids).size === ids.length ? [] : [`error_id ${String(ids[0])} came back for ${ids.length} separate errors`];
}
