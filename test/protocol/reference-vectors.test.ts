import { describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  type ParsedError,
  checkConformance,
  classifyRequest,
  conformanceRuleIds,
  isParseFailure,
  parseAapPayload,
  parseDmc12Data,
  parseResponse,
  successResponse,
} from '../../src/protocol/index.js';
import { type AapExample, type Dmc12Example, HAVE_REFERENCE, SKIP_REASON, readReference } from './reference.js';

if (!HAVE_REFERENCE) console.info(`skipping reference-vector suites: ${SKIP_REASON}`);

/**
 * Expected normalised fields per aap-examples.json item, read off each vector by hand
 * (spec/aap-errors.txt decides which field is authoritative). `src` guards against the file's
 * order changing under us.
 */
const AAP_EXPECTED: Record<number, { src: string } & Partial<ParsedError> & { id?: string | number | null }> = {
  3: { src: 'v1.1/examples/error.example.json', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_01HX9P7Z6ZK4N3D6V5K3W2T7M0' },
  18: { src: 'v0.1/examples/error.example.json', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_01HX9P7Z6ZK4N3D6V5K3W2T7M0' },
  19: { src: 'v0.2/examples/error.example.json', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_01HX9P7Z6ZK4N3D6V5K3W2T7M0' },
  20: { src: 'v1.0/examples/error.example.json', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_01HX9P7Z6ZK4N3D6V5K3W2T7M0' },
  33: {
    src: 'json block #13',
    id: 'req-3',
    protocol: 'aap',
    form: 'aap-released',
    code: 'SCHEMA_VALIDATION_FAILED',
    jsonrpcCode: -32602,
    retryable: false,
    errorId: 'err_01HZ9EXAMPLE',
    violations: [
      { location: '/filters/year_min', keyword: 'type' },
      { location: '/filters/condition/0', keyword: 'enum' },
    ],
  },
  34: { src: 'errors.md, json block #1', code: 'SCHEMA_VALIDATION_FAILED', retryable: false, errorId: 'err_01HZ9EXAMPLE' },
  35: {
    src: 'errors.md, json block #2',
    id: 'req-3',
    protocol: 'aap',
    form: 'aap-released',
    code: 'SCHEMA_VALIDATION_FAILED',
    jsonrpcCode: -32602,
    retryable: false,
    errorId: 'err_01HZ9EXAMPLE',
    violations: [
      { location: '/filters/year_min', keyword: 'type' },
      { location: '/filters/make', keyword: 'additionalProperties' },
    ],
  },
  36: { src: 'errors.md, json block #3', code: 'CONTACT_CONSENT_REQUIRED', retryable: false, errorId: 'err_01HZ9CONSENT01' },
  37: { src: 'errors.md, json block #4', code: 'RATE_LIMITED', retryable: true, errorId: 'err_01HZ9RATE01', retryAfterMs: 30000 },
  38: {
    src: 'error-validation.jsonrpc',
    id: 'req-3',
    protocol: 'aap',
    form: 'aap-2.0',
    code: 'SCHEMA_VALIDATION_FAILED',
    jsonrpcCode: -32602,
    retryable: false,
    errorId: 'err_01HZ9EXAMPLE',
    violations: [
      { location: '/filters/year_min', keyword: 'type' },
      { location: '/filters/make', keyword: 'additionalProperties' },
    ],
  },
  39: {
    src: 'error-rate-limited.jsonrpc',
    id: 'req-rate-limited',
    protocol: 'aap',
    form: 'aap-2.0',
    code: 'RATE_LIMITED',
    jsonrpcCode: -32000,
    retryable: true,
    errorId: 'err_01HZ9RATE01',
    retryAfterMs: 30000,
  },
  40: { src: '@97b9fc4', id: 'req-3', protocol: 'a2a', form: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', jsonrpcCode: -32008, retryable: null, errorId: null },
  41: { src: '@12097db:spec/latest/examples/error-extension', id: 'req-3', protocol: 'a2a', form: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', jsonrpcCode: -32008, retryable: null, errorId: null },
  42: { src: '@8410c47', form: 'aap-2.0', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_01HX9P7Z6ZK4N3D6V5K3W2T7M0' },
  43: { src: 'consent-required example', form: 'aap-2.0', code: 'CONTACT_CONSENT_REQUIRED', retryable: false, errorId: 'err_01HZ9CONSENT01' },
  44: { src: '-32008 activation example', id: 'req-3', protocol: 'a2a', form: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', jsonrpcCode: -32008, retryable: null, errorId: null },
  46: {
    src: 'specification.md §9.5 (https',
    id: 1,
    protocol: 'jsonrpc',
    form: 'jsonrpc',
    code: '-32602',
    jsonrpcCode: -32602,
    retryable: null,
    errorId: null,
    violations: [{ location: 'message.parts', keyword: 'unknown' }],
  },
  47: { src: 'A2A@16ba526:docs/specification.md §9.5', id: 2, protocol: 'a2a', form: 'a2a', code: 'TASK_NOT_FOUND', jsonrpcCode: -32001, retryable: null, errorId: null },
  48: { src: 'default_request_handler.ts + src/errors', id: 'req-1', protocol: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', jsonrpcCode: -32008, retryable: null, errorId: null },
  49: { src: 'version.ts', id: 'req-1', protocol: 'a2a', code: 'VERSION_NOT_SUPPORTED', jsonrpcCode: -32009, retryable: null, errorId: null },
  50: { src: 'contentTypeGuard', id: null, protocol: 'a2a', code: 'CONTENT_TYPE_NOT_SUPPORTED', jsonrpcCode: -32005, retryable: null, errorId: null },
  51: { src: 'jsonErrorHandler', id: null, protocol: 'jsonrpc', form: 'jsonrpc', code: '-32700', jsonrpcCode: -32700, retryable: null, errorId: null },
  52: { src: 'jsonrpc_transport_handler', id: 'req-1', protocol: 'jsonrpc', form: 'jsonrpc', code: '-32601', jsonrpcCode: -32601, retryable: null, errorId: null },
  53: {
    src: '_runExecutor',
    id: 'req-1',
    protocol: 'a2a',
    form: 'task-failed',
    code: 'TASK_FAILED',
    jsonrpcCode: null,
    retryable: null,
    errorId: null,
  },
};

/** Conformance verdicts for the envelopes, from the spec text and the vectors' own notes. */
const AAP_CONFORMANCE: Record<number, string[]> = {
  33: [],
  35: [],
  38: [],
  39: [],
  // The spec's own -32008 examples use the draft host, which "MUST NOT be deployed".
  40: ['aap.no-draft-identifiers'],
  41: ['a2a.extension-required-message', 'aap.no-draft-identifiers'],
  44: ['aap.no-draft-identifiers'],
  48: ['a2a.extension-required-message', 'a2a.extension-required-detail'],
  53: ['aap.typed-payload-present'],
};

const SKILLS: Record<number, string> = {
  7: 'inventory.search',
  21: '<scope>.<thing>',
  23: 'dealer.information',
  25: 'inventory.facets',
  27: 'inventory.search',
  29: 'inventory.vehicle',
  31: 'lead.submit',
};

function isEnvelope(p: Record<string, unknown>): boolean {
  return p.jsonrpc === '2.0';
}

describe.skipIf(!HAVE_REFERENCE)('aap-examples.json (shared reference vectors)', () => {
  const items = HAVE_REFERENCE ? readReference<AapExample[]>('aap-examples.json') : [];

  it('has an expectation for every error item and every failed-task response', () => {
    const needing = items
      .map((x, i) => ({ x, i }))
      .filter(({ x }) => x.kind === 'error' || JSON.stringify(x.payload).includes('TASK_STATE_FAILED'))
      .map(({ i }) => i);
    expect(needing.filter((i) => !(i in AAP_EXPECTED))).toEqual([]);
  });

  for (const [index, want] of Object.entries(AAP_EXPECTED)) {
    const i = Number(index);
    it(`item ${i} (${want.src}) parses to code ${want.code}, retryable ${String(want.retryable)}, error_id ${String(want.errorId)}`, () => {
      const item = items[i]!;
      expect(item.source).toContain(want.src);
      const { src: _src, id, ...fields } = want;
      let got: ParsedError;
      if (isEnvelope(item.payload)) {
        const outcomes = parseResponse(item.payload);
        expect(isParseFailure(outcomes)).toBe(false);
        const list = outcomes as CallOutcome[];
        expect(list).toHaveLength(1);
        expect(list[0]!.ok).toBe(false);
        expect(list[0]!.id).toBe(id);
        got = list[0]!.error!;
        // The same bytes as text give the same answer.
        expect(parseResponse(JSON.stringify(item.payload))).toEqual(list);
      } else {
        got = parseAapPayload(item.payload, '@type' in item.payload ? 'aap-2.0' : 'aap-released');
      }
      expect(got).toMatchObject(fields);
    });
  }

  it('parses every JSON-RPC success envelope as ok', () => {
    const successes = items.filter((x) => x.kind === 'response' && isEnvelope(x.payload) && !JSON.stringify(x.payload).includes('FAILED'));
    expect(successes.length).toBeGreaterThanOrEqual(6);
    for (const x of successes) {
      expect(parseResponse(x.payload)).toEqual([{ id: x.payload.id, ok: true }]);
    }
  });

  it('refuses bodies that are not JSON-RPC responses (agent card, bare DataPart) with not-jsonrpc', () => {
    for (const x of items.filter((y) => y.kind === 'response' && !isEnvelope(y.payload))) {
      const r = parseResponse(x.payload);
      expect(isParseFailure(r) && r.parseError.code).toBe('not-jsonrpc');
    }
  });

  for (const [index, rules] of Object.entries(AAP_CONFORMANCE)) {
    it(`item ${index} breaks exactly [${rules.join(', ')}]`, () => {
      expect(conformanceRuleIds(items[Number(index)]!.payload)).toEqual(rules);
    });
  }

  it('classifies the skill of every JSON-RPC request example', () => {
    for (const [index, skill] of Object.entries(SKILLS)) {
      const calls = classifyRequest(items[Number(index)]!.payload);
      expect(Array.isArray(calls)).toBe(true);
      const [call] = calls as Exclude<typeof calls, { ok: false }>;
      expect(call).toMatchObject({ method: 'SendMessage', isNotification: false, family: 'aap', skill });
    }
  });
});

describe.skipIf(!HAVE_REFERENCE)('dmc12-error-examples.json (shared reference vectors)', () => {
  const items = HAVE_REFERENCE ? readReference<Dmc12Example[]>('dmc12-error-examples.json') : [];

  it('holds the six known examples', () => {
    expect(items).toHaveLength(6);
  });

  items.forEach((item, i) => {
    const data = (item.kind === 'a2a_result_envelope' ? item.payload.data : item.payload) as Record<string, unknown>;
    const wantCode = item.expected_error_code ?? (data.error_code as string);
    const wantRetryable = item.expected_retryable ?? (data.retryable as boolean);
    const wantErrorId = typeof data.error_id === 'string' ? data.error_id : null;

    it(`example ${i} (${item.kind}, ${String(data.error)}) parses to ${wantCode}, retryable ${String(wantRetryable)}, error_id ${String(wantErrorId)}`, () => {
      let got: ParsedError;
      if (item.kind === 'a2a_result_envelope') {
        const outcomes = parseResponse(successResponse('call-1', item.payload)) as CallOutcome[];
        expect(outcomes).toHaveLength(1);
        expect(outcomes[0]).toMatchObject({ id: 'call-1', ok: false });
        got = outcomes[0]!.error!;
        expect(got.upstreamTraceId).toBe((item.payload._metadata as { trace_id: string }).trace_id);
      } else {
        got = parseDmc12Data(item.payload);
      }
      expect(got.protocol).toBe('dmc12');
      expect(got.code).toBe(wantCode);
      expect(got.retryable).toBe(wantRetryable);
      expect(got.errorId).toBe(wantErrorId);
      expect(got.jsonrpcCode).toBeNull();
      expect(got.legacyError).toBe(data.error);
      expect(got.form).toBe('error_code' in data ? 'dmc12' : 'dmc12-legacy');
    });
  });

  it('flags the docs envelope whose error_id and trace_id are truncated, and legacy-only payloads as missing the taxonomy', () => {
    const envelope = items.find((x) => x.kind === 'a2a_result_envelope')!;
    expect(conformanceRuleIds(successResponse(1, envelope.payload))).toEqual(['dmc12.error-id-format', 'dmc12.trace-id']);
    const _metadata = { trace_id: 'trc_5f1c8e2a9b7d4c3e', tool: 'create_reservation', protocol: 'a2a' };
    const legacy = items.find((x) => x.kind === 'legacy_error_only')!;
    expect(conformanceRuleIds(successResponse(1, { data: legacy.payload, _metadata }))).toEqual(['dmc12.taxonomy-fields']);
    const verbatim = items.find((x) => x.kind === 'error_object')!;
    expect(checkConformance(successResponse(1, { data: verbatim.payload, _metadata }))).toEqual([]);
    expect(conformanceRuleIds(successResponse(1, { data: verbatim.payload }))).toEqual(['dmc12.trace-id']);
  });

  it('flags every documented legacy string sent with another error_code, and accepts it with its own', () => {
    const _metadata = { trace_id: 'trc_5f1c8e2a9b7d4c3e', tool: 'create_reservation', protocol: 'a2a' };
    const paired = items.filter((x) => typeof x.expected_error_code === 'string' || x.kind === 'error_object');
    expect(paired.length).toBeGreaterThanOrEqual(5);
    for (const item of paired) {
      const legacy = item.payload.error as string;
      const code = (item.expected_error_code ?? item.payload.error_code) as string;
      const retryable = code === 'RATE_LIMITED' || code === 'UPSTREAM_UNAVAILABLE' || code === 'INTERNAL_ERROR';
      const good = { error: legacy, error_code: code, retryable, error_id: 'err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90' };
      expect(conformanceRuleIds(successResponse(1, { data: good, _metadata })), legacy).toEqual([]);
      const other = code === 'INTERNAL_ERROR' ? 'UPSTREAM_UNAVAILABLE' : 'INTERNAL_ERROR';
      const bad = { ...good, error_code: other, retryable: true };
      expect(conformanceRuleIds(successResponse(1, { data: bad, _metadata })), legacy).toEqual(['dmc12.legacy-matches-code']);
    }
  });
});
