/**
 * The DMC-12 battery (spec/dmc12-errors.txt): `tools/call` requests a DMC-12 dealer must reject.
 * The only tool called is one that reads a vehicle by VIN (`get_vehicle`, else `request_quote`),
 * always with a VIN that cannot exist, so no quote, reservation or hand-off can come of it.
 */
import { own } from '../../protocol/extract.js';
import { describeReply, dmc12DataOf } from '../inspect.js';
import type { Findings, ProbeCase, ProbeRequest, ProbeTarget } from '../types.js';
import { conformanceFindings, expectError, probeId, singleReply } from './judge.js';
import { uniqueIdFindings } from './aap.js';

const DMC = 'DMC-12 "Error taxonomy" page';
const JSONRPC = 'JSON-RPC 2.0';

/** A VIN no vehicle has: too short, with hyphens (a VIN is 17 characters of A–Z minus I, O, Q, and digits). */
export const MALFORMED_VIN = 'AAP-TRIAGE-PROBE';

/** Tools that take a `vin`, in order of preference (read-only first). */
export const VIN_TOOLS = ['get_vehicle', 'request_quote'] as const;

/** The tool the battery calls: the first VIN tool the agent lists, else `get_vehicle`. */
export function vinTool(t: ProbeTarget): string {
  return VIN_TOOLS.find((tool) => t.skills.includes(tool)) ?? 'get_vehicle';
}

const vinCall = (t: ProbeTarget, tag: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: probeId(tag), method: 'tools/call', params: { name: vinTool(t), arguments: { vin: MALFORMED_VIN } } });

const request = (label: string, body: string, auth: ProbeRequest['auth'] = 'token'): ProbeRequest => ({ label, headers: {}, body, auth });

const needsToken = (t: ProbeTarget): string | null =>
  t.hasToken ? null : 'needs a partner bearer token (set AAP_TRIAGE_PROBE_TOKEN or pass --token-file): without one every call is refused with -32001';

const needsVinTool = (t: ProbeTarget): string | null =>
  needsToken(t) ?? (VIN_TOOLS.some((tool) => t.skills.includes(tool)) ? null : `tools/list names no tool that takes a VIN (${VIN_TOOLS.join(', ')})`);

/** The DMC-12 cases, in report order. */
export const DMC12_CASES: readonly ProbeCase[] = Object.freeze([
  {
    id: 'dmc12.validation.malformed-vin',
    family: 'dmc12',
    level: 'MUST',
    title: `a malformed VIN (${MALFORMED_VIN}) gets VALIDATION_FAILED inside the result envelope (HTTP 200): error_code, retryable, error_id, the legacy error string, _metadata.trace_id`,
    spec: {
      source: `${DMC}, "Error taxonomy"`,
      quote:
        'As of DMC-12 v0.3 every error payload carries a stable error_code, a retryable flag, and a correlation error_id — layered over the legacy error string, which is preserved byte-identically.',
    },
    safety: 'a VIN that cannot exist, on a read-only tool (a quote needs a real VIN)',
    skipReason: needsVinTool,
    requests: (t) => [request('malformed-vin', vinCall(t, 'vin')), request('repeat', vinCall(t, 'vin-again'))],
    judge: (answers) =>
      answers.flatMap((a) => {
        const one = singleReply(a);
        if ('findings' in one) return one.findings;
        const label = a.request.label;
        const data = dmc12DataOf(one.reply);
        if (!data) {
          const got = Object.hasOwn(one.reply, 'error') ? describeReply(one.reply).got : 'a success result without an error';
          return [`${label}: got ${got}, want VALIDATION_FAILED inside result.data`];
        }
        // The envelope's fields, HTTP 200 and the trace id are the checker's rules (dmc12.taxonomy-fields,
        // dmc12.http-status, dmc12.trace-id); retryable against the table is dmc12.retryable.code-table's.
        const out: Findings = [];
        if (own(data, 'error_code') !== 'VALIDATION_FAILED') out.push(`${label}: error_code ${JSON.stringify(own(data, 'error_code')) ?? 'absent'}, want "VALIDATION_FAILED"`);
        return [...out, ...conformanceFindings(a)];
      }),
  },
  {
    id: 'dmc12.error-id.unique',
    family: 'dmc12',
    level: 'MUST',
    title: 'the same rejected call sent twice gets two different error_ids',
    spec: { source: `${DMC}, "The envelope"`, quote: 'error_id ↔ audit row error_id correlates 1:1 to an audit_log row; _metadata.trace_id correlates the whole call.' },
    safety: 'judges the two answers of dmc12.validation.malformed-vin; sends nothing',
    answersOf: 'dmc12.validation.malformed-vin',
    skipReason: needsVinTool,
    requests: () => [],
    judge: (answers) => uniqueIdFindings(answers),
  },
  {
    id: 'dmc12.auth.missing-token',
    family: 'dmc12',
    level: 'MUST',
    title: 'a call without a bearer token gets JSON-RPC -32001 with HTTP 401, not the data.error envelope',
    spec: { source: `${DMC}, "Auth failures are different"`, quote: 'A bad/expired/wrong-audience bearer token returns JSON-RPC error -32001 with HTTP 401 — not the data.error envelope.' },
    safety: 'no credential, and a VIN that cannot exist',
    requests: (t) => [request('no-token', vinCall(t, 'no-token'), 'none')],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32001, httpStatus: 401 })),
  },
  {
    id: 'dmc12.auth.invalid-token',
    family: 'dmc12',
    level: 'MUST',
    title: 'a call with an unknown bearer token gets JSON-RPC -32001 with HTTP 401',
    spec: { source: `${DMC}, "Auth failures are different"`, quote: 'A bad/expired/wrong-audience bearer token returns JSON-RPC error -32001 with HTTP 401 — not the data.error envelope.' },
    safety: 'a token no agent issued, and a VIN that cannot exist',
    requests: (t) => [request('invalid-token', vinCall(t, 'bad-token'), 'invalid')],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32001, httpStatus: 401 })),
  },
  {
    id: 'dmc12.jsonrpc.method-not-found',
    family: 'dmc12',
    level: 'MUST',
    title: 'an unknown method gets -32601',
    spec: { source: `${JSONRPC} §5.1`, quote: '-32601 Method not found: The method does not exist / is not available.' },
    safety: 'a method no agent implements',
    skipReason: needsToken,
    requests: () => [request('unknown-method', JSON.stringify({ jsonrpc: '2.0', id: probeId('method'), method: 'aap-triage-probe/no_such_method', params: {} }))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32601 })),
  },
  {
    id: 'dmc12.jsonrpc.parse-error',
    family: 'dmc12',
    level: 'MUST',
    title: 'truncated JSON gets -32700 with id null',
    spec: { source: `${JSONRPC} §5`, quote: 'If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null.' },
    safety: 'a body that cannot be parsed',
    skipReason: needsToken,
    requests: (t) => [request('truncated-json', vinCall(t, 'parse').slice(0, 50))],
    judge: (answers) => answers.flatMap((a) => expectError(a, { jsonrpcCode: -32700, id: 'null' })),
  },
] satisfies ProbeCase[]);
