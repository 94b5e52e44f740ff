import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_RULES,
  buildAapError,
  buildDmc12Error,
  buildExtensionRequiredError,
  type CheckConformanceOptions,
  checkConformance,
  conformanceRuleIds,
  errorResponse,
  successResponse,
} from '../../src/protocol/index.js';
import { HAVE_SPEC, readSpec } from './reference.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test mutations reach deep

const ERRORS = [
  { instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' },
  { instanceLocation: '/filters/make', keyword: 'additionalProperties', error: 'unknown filter key' },
];
const URI = 'https://autoagentprotocol.org/extensions/aap/v1.3';

const aap2 = (): Json =>
  errorResponse('r', buildAapError('SCHEMA_VALIDATION_FAILED', { form: '2.0', message: 'request failed validation with 2 errors', details: { errors: ERRORS } }));
const aapRate2 = (): Json => errorResponse('r', buildAapError('RATE_LIMITED', { form: '2.0', message: 'Slow down.', details: { retry_after_ms: 1000 } }));
const aapReleased = (): Json =>
  errorResponse('r', buildAapError('RATE_LIMITED', { form: 'released', message: 'Slow down.', details: { retry_after_ms: 1000 } }));
const ext = (): Json => errorResponse('r', buildExtensionRequiredError(URI));
const dmc = (): Json => successResponse('r', buildDmc12Error('RATE_LIMITED', { tool: 'search_inventory', message: 'Slow down.' }));
const payloadOf = (e: Json): Json => (e.error.data as Json[]).find((d) => d['@type'] === 'https://autoagentprotocol.org/extensions/aap/error')!;

function mutate(make: () => Json, change: (e: Json) => void): Json {
  const e = structuredClone(make());
  change(e);
  return e;
}

/** A body with the exchange context the checker is told about. */
interface WithContext {
  body: unknown;
  options: CheckConformanceOptions;
}
const withContext = (body: unknown, options: CheckConformanceOptions): WithContext => ({ body, options });
const isWithContext = (e: unknown): e is WithContext => typeof e === 'object' && e !== null && 'options' in e && 'body' in e;
const check = (e: Json | WithContext) => (isWithContext(e) ? checkConformance(e.body, e.options) : checkConformance(e));

const DRAFT_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
const extDraft = (): Json => ({
  jsonrpc: '2.0',
  id: 'r',
  error: {
    code: -32008,
    message: `Activate ${DRAFT_URI} in the A2A-Extensions header before retrying this request.`,
    data: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        domain: 'a2a-protocol.org',
        metadata: { extensionUri: DRAFT_URI, requiredHeader: 'A2A-Extensions' },
      },
    ],
  },
});
const dmcAuth = (): Json => errorResponse('r', { code: -32001, message: 'Unauthorized: bearer token expired' });

/** Per rule: envelopes that pass it (and must not be flagged) and envelopes that break it. */
const CASES: Record<string, { pass: Array<Json | WithContext>; breaks: Array<Json | WithContext> }> = {
  'jsonrpc.envelope': {
    pass: [aap2(), dmc()],
    breaks: [
      mutate(aap2, (e) => delete e.jsonrpc),
      mutate(aap2, (e) => (e.result = {})),
      mutate(aap2, (e) => (e.error.code = '-32602')),
      mutate(aap2, (e) => delete e.error.message),
    ],
  },
  'jsonrpc.id': {
    pass: [aap2(), errorResponse(null, { code: -32700, message: 'Parse error' })],
    breaks: [mutate(aap2, (e) => delete e.id), mutate(dmc, (e) => (e.id = { n: 1 }))],
  },
  'jsonrpc.batch-not-empty': {
    pass: [[aap2()] as unknown as Json, aap2()],
    breaks: [[] as unknown as Json, withContext('[]', {})],
  },
  'a2a.data-entries-typed': {
    pass: [aap2(), ext()],
    breaks: [mutate(ext, (e) => e.error.data.push({ reason: 'x' }))],
  },
  'a2a.own-shape': {
    pass: [ext(), aapReleased(), errorResponse('r', buildAapError('UNSUPPORTED_SKILL', { form: '2.0', message: 'No such skill.' }))],
    breaks: [
      mutate(ext, (e) => e.error.data.push(payloadOf(aap2()))),
      mutate(ext, (e) => (e.error.data = { extensionUri: URI })),
      mutate(aapRate2, (e) => (e.error.code = -32009)),
    ],
  },
  'a2a.extension-required-message': {
    pass: [ext()],
    breaks: [
      mutate(ext, (e) => (e.error.message = `Activate ${URI} before retrying.`)),
      mutate(ext, (e) => (e.error.message = 'Use the A2A-Extensions header.')),
      mutate(ext, (e) => {
        e.error.message = 'Use the A2A-Extensions header.';
        e.error.data[0].metadata.extensionUri = '';
      }),
    ],
  },
  'a2a.extension-required-detail': {
    pass: [ext()],
    breaks: [
      mutate(ext, (e) => delete e.error.data[0].metadata),
      mutate(ext, (e) => (e.error.data[0].metadata.requiredHeader = 'X-Extensions')),
      mutate(ext, (e) => (e.error.data = [])),
      mutate(ext, (e) => (e.error.data[0].metadata.extensionUri = '')),
      mutate(ext, (e) => (e.error.data[0].metadata.extensionUri = 'aap latest')),
    ],
  },
  'a2a.extension-required-same-uri': {
    pass: [ext()],
    breaks: [mutate(ext, (e) => (e.error.message = 'Activate https://example.test/other in the A2A-Extensions header.'))],
  },
  'aap.no-draft-identifiers': {
    pass: [ext(), aap2()],
    breaks: [extDraft(), mutate(aap2, (e) => (payloadOf(e).details.spec = 'https://draft.autoagentprotocol.invalid/latest/schemas/error.schema.json'))],
  },
  'aap.errorinfo-leads': {
    pass: [aap2(), aapRate2()],
    breaks: [
      mutate(aap2, (e) => e.error.data.reverse()),
      mutate(aap2, (e) => (e.error.data[0].domain = 'a2a-protocol.org')),
      mutate(aap2, (e) => (e.error.data[0].reason = 'MISSING_REQUIRED_FIELD')),
      mutate(aap2, (e) => delete e.error.data[0].metadata.created_at),
    ],
  },
  'aap.errorinfo-reason-known': {
    pass: [aap2(), ext()],
    breaks: [
      mutate(aap2, (e) => (e.error.data[0].reason = 'SLOW_DOWN')),
      mutate(aap2, (e) => e.error.data.push({ ...e.error.data[0], reason: 'AUTH_REQUIRED' })),
    ],
  },
  'aap.errorinfo-domain': {
    pass: [aap2(), ext()],
    breaks: [
      mutate(aap2, (e) => (e.error.data[0].domain = 'a2a-protocol.org')),
      mutate(aap2, (e) => {
        e.error.data = [{ ...e.error.data[0], domain: 'a2a-protocol.org' }];
      }),
    ],
  },
  'aap.errorinfo-metadata-strings': {
    pass: [aap2(), ext()],
    breaks: [mutate(aap2, (e) => (e.error.data[0].metadata.retryable = false)), mutate(ext, (e) => (e.error.data[0].metadata.extensionUri = 1))],
  },
  'aap.errorinfo-retryable-literal': {
    pass: [aap2(), aapRate2()],
    breaks: [
      mutate(aap2, (e) => (e.error.data[0].metadata.retryable = 'False')),
      mutate(aapRate2, (e) => (e.error.data[0].metadata.retryable = 'yes')),
      mutate(aapRate2, (e) => (e.error.data[0].metadata.retryable = '')),
    ],
  },
  'aap.errorinfo-metadata-code': {
    pass: [aap2()],
    breaks: [mutate(aap2, (e) => (e.error.data[0].metadata.code = 'INVALID_CONDITION')), mutate(aap2, (e) => delete e.error.data[0].metadata.code)],
  },
  'aap.errorinfo-metadata-matches': {
    pass: [aap2(), aapRate2()],
    breaks: [
      mutate(aap2, (e) => (e.error.data[0].metadata.error_id = 'err_other')),
      mutate(aapRate2, (e) => (e.error.data[0].metadata.retryable = 'false')),
    ],
  },
  'aap.typed-payload-present': {
    pass: [aap2(), aapReleased()],
    breaks: [
      mutate(aap2, (e) => (e.error.data = [e.error.data[0]])),
      successResponse('r', { task: { id: 't', status: { state: 'TASK_STATE_FAILED' } } }),
      successResponse('r', { task: { id: 't', status: { state: 'TASK_STATE_REJECTED' } } }),
      successResponse('r', { kind: 'task', id: 't', status: { state: 'rejected' } }),
    ],
  },
  'aap.schema-released': {
    pass: [aapReleased(), mutate(aapReleased, (e) => (e.error.data.created_at = '2028-02-29T23:59:59+05:30'))],
    breaks: [
      mutate(aapReleased, (e) => (e.error.data.extra = 1)),
      mutate(aapReleased, (e) => (e.error.data.details = ['retry later'])),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-02-30T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '12026-04-30T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2027-02-29T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data['@type'] = 'https://autoagentprotocol.org/extensions/aap/error')),
    ],
  },
  'aap.schema-v2': {
    pass: [aap2(), aapRate2(), mutate(aap2, (e) => e.error.data.push({ '@type': 'type.googleapis.com/google.rpc.Help', links: [] }))],
    breaks: [
      mutate(aap2, (e) => (payloadOf(e).extra = 1)),
      mutate(aapRate2, (e) => (payloadOf(e).details = 'retry later')),
      mutate(aap2, (e) => (payloadOf(e).created_at = '2026-02-30T10:15:30Z')),
      mutate(aap2, (e) => (payloadOf(e).created_at = '10000-01-01T00:00:00Z')),
      mutate(aap2, (e) => (e.error.data[0].extra = 'x')),
      mutate(aap2, (e) => delete e.error.data[1].fieldViolations),
    ],
  },
  'aap.form-matches-endpoint': {
    pass: [withContext(aapReleased(), { form: 'released' }), withContext(aap2(), { form: '2.0' }), aap2(), withContext(ext(), { form: 'released' })],
    breaks: [withContext(aap2(), { form: 'released' }), withContext(aapReleased(), { form: '2.0' })],
  },
  'aap.payload-shape': {
    pass: [aap2(), aapReleased()],
    breaks: [
      mutate(aap2, (e) => (payloadOf(e).code = 'AUTH_REQUIRED')),
      mutate(aapReleased, (e) => (e.error.data.type = 'error')),
      mutate(aap2, (e) => delete payloadOf(e).message),
    ],
  },
  'aap.jsonrpc-code': {
    pass: [aap2(), aapRate2(), aapReleased()],
    breaks: [
      mutate(aapRate2, (e) => (e.error.code = -32002)),
      mutate(aapReleased, (e) => (e.error.code = -32000)),
      mutate(aapRate2, (e) => {
        e.error.data = [e.error.data[0]];
        e.error.code = -32603;
      }),
    ],
  },
  'aap.retryable-boolean': {
    pass: [aap2(), aapReleased(), errorResponse('r', buildAapError('INTERNAL_ERROR', { form: '2.0', message: 'Bug.', retryable: false }))],
    breaks: [mutate(aapReleased, (e) => (e.error.data.retryable = 'true')), mutate(aap2, (e) => delete payloadOf(e).retryable)],
  },
  'aap.error-id-present': {
    pass: [aap2(), aapReleased()],
    breaks: [mutate(aapReleased, (e) => delete e.error.data.error_id), mutate(aap2, (e) => (payloadOf(e).error_id = ''))],
  },
  'aap.created-at-valid': {
    pass: [aap2(), aapReleased(), mutate(aapReleased, (e) => (e.error.data.created_at = '2028-02-29T10:15:30.250-08:00'))],
    breaks: [
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30 10:15:30')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30 10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-13-01T00:00:00Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30T10:15:30')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-02-30T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2100-02-29T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '20260-04-30T10:15:30Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30T10:15:30+0100')),
    ],
  },
  'aap.details-object': {
    pass: [aap2(), aapReleased(), errorResponse('r', buildAapError('VEHICLE_NOT_FOUND', { form: 'released', message: 'No such VIN.' }))],
    breaks: [
      mutate(aapReleased, (e) => (e.error.data.details = null)),
      mutate(aap2, (e) => (payloadOf(e).details = [1, 2])),
      mutate(aapRate2, (e) => (payloadOf(e).details = 'retry in 1 s')),
    ],
  },
  'aap.validation-details': {
    pass: [aap2()],
    breaks: [mutate(aap2, (e) => (payloadOf(e).details.errors = [])), mutate(aap2, (e) => delete payloadOf(e).details.errors[1].keyword)],
  },
  'aap.rate-limited-retry-after': {
    pass: [aapRate2(), aapReleased(), mutate(aapReleased, (e) => (e.error.data.details = { retry_after_seconds: 30 }))],
    breaks: [mutate(aapReleased, (e) => delete e.error.data.details), mutate(aapRate2, (e) => (payloadOf(e).details = { retry_after_ms: -5 }))],
  },
  'aap.no-stack-trace': {
    pass: [aap2(), dmc(), mutate(aap2, (e) => (e.error.message = 'Meet us at Main St (open 9:30) about the 2024 Outback.'))],
    breaks: [
      mutate(aap2, (e) => (e.error.message = 'TypeError: x\n    at handler (/srv/dealer/skills.js:41:13)')),
      mutate(dmc, (e) => (e.result.data.message = 'Traceback (most recent call last):\n  File "app.py", line 3')),
      mutate(aap2, (e) => (e.error.message = 'TypeError: boom at Foo (/x.js:1:2)')),
      mutate(aapReleased, (e) => (e.error.data.message = 'failed: Error: boom at async file:///srv/app/index.mjs:10:5')),
      mutate(aap2, (e) => (payloadOf(e).details.errors[0].error = 'NullPointerException at com.dealer.Lead.submit(Lead.java:42)')),
    ],
  },
  'dmc12.taxonomy-fields': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => delete e.result.data.error_code), mutate(dmc, (e) => (e.result.data.error_code = 'SLOW_DOWN'))],
  },
  'dmc12.legacy-matches-code': {
    pass: [dmc(), successResponse('r', buildDmc12Error('RESERVATION_CONFLICT', { tool: 'create_reservation', legacyError: 'vin_already_reserved' }))],
    breaks: [
      mutate(dmc, (e) => (e.result.data.error = 'email_send_failed')),
      mutate(dmc, (e) => {
        e.result.data.error = 'vin_already_reserved';
        e.result.data.error_code = 'VEHICLE_UNAVAILABLE';
        e.result.data.retryable = false;
      }),
    ],
  },
  'dmc12.in-result': {
    pass: [dmc(), dmcAuth()],
    breaks: [errorResponse('r', { code: -32000, message: 'Rate limited', data: dmc().result.data })],
  },
  'dmc12.http-status': {
    pass: [withContext(dmc(), { httpStatus: 200, family: 'dmc12' }), withContext(dmcAuth(), { httpStatus: 401, family: 'dmc12' }), dmcAuth()],
    breaks: [
      withContext(dmc(), { httpStatus: 429, family: 'dmc12' }),
      withContext(dmcAuth(), { httpStatus: 200, family: 'dmc12' }),
      withContext(errorResponse('r', { code: -32600, message: 'Invalid Request' }), { httpStatus: 401, family: 'dmc12' }),
    ],
  },
  'dmc12.retryable-boolean': {
    pass: [dmc(), mutate(dmc, (e) => (e.result.data.retryable = false))],
    breaks: [mutate(dmc, (e) => (e.result.data.retryable = 'true')), mutate(dmc, (e) => (e.result.data.retryable = 'False')), mutate(dmc, (e) => (e.result.data.retryable = 1))],
  },
  'dmc12.retryable-fixed': {
    pass: [dmc(), mutate(dmc, (e) => (e.result.data.retryable = 'true'))],
    breaks: [mutate(dmc, (e) => (e.result.data.retryable = false))],
  },
  'dmc12.error-id-format': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => (e.result.data.error_id = 'err_3f9a2c…')), mutate(dmc, (e) => (e.result.data.error_id = 'ERR_ABC'))],
  },
  'dmc12.trace-id': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => delete e.result._metadata), mutate(dmc, (e) => (e.result._metadata.trace_id = 'trc_…'))],
  },
};

describe('conformance rules', () => {
  it('have unique, stable ids, a source and a quoted spec sentence each, and a test case each', () => {
    const ids = CONFORMANCE_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of CONFORMANCE_RULES) {
      expect(r.id).toMatch(/^(jsonrpc|a2a|aap|dmc12)\.[a-z0-9-]+$/);
      expect(r.source.length).toBeGreaterThan(5);
      expect(r.quote.length).toBeGreaterThan(20);
      expect(['MUST', 'MUST NOT', 'SHOULD']).toContain(r.level);
    }
    expect(Object.keys(CASES).sort()).toEqual([...ids].sort());
  });

  for (const [rule, { pass, breaks }] of Object.entries(CASES)) {
    it(`${rule}: conformant envelopes pass, each breaking change is reported with the spec sentence`, () => {
      expect(pass.length).toBeGreaterThan(0);
      expect(breaks.length).toBeGreaterThan(0);
      for (const e of pass) expect(check(e).map((v) => v.rule), JSON.stringify(e)).not.toContain(rule);
      for (const e of breaks) {
        const found = check(e).filter((v) => v.rule === rule);
        expect(found, JSON.stringify(e)).toHaveLength(1);
        const quote = CONFORMANCE_RULES.find((r) => r.id === rule)!.quote;
        expect(found[0]!.message).toContain(quote);
        expect(found[0]!.level).toBe(CONFORMANCE_RULES.find((r) => r.id === rule)!.level);
      }
    });
  }

  it('accepts every freshly built envelope with no findings', () => {
    for (const e of [aap2(), aapRate2(), aapReleased(), ext(), dmc()]) expect(checkConformance(e)).toEqual([]);
  });

  it('flags a -32000 without payload only when the caller says the call was an AAP skill call', () => {
    const bare = errorResponse(1, { code: -32000, message: 'Server error' });
    expect(conformanceRuleIds(bare)).toEqual([]);
    expect(conformanceRuleIds(bare, { family: 'aap' })).toEqual(['aap.typed-payload-present']);
  });

  it('reports a string retryable once, under aap.retryable-boolean, in both forms', () => {
    const released = mutate(aapReleased, (e) => (e.error.data.retryable = 'false'));
    const v2 = mutate(aap2, (e) => (payloadOf(e).retryable = 'false'));
    expect(conformanceRuleIds(released)).toEqual(['aap.retryable-boolean']);
    expect(conformanceRuleIds(v2)).toEqual(['aap.retryable-boolean']);
  });

  it('reads a DMC-12 -32001 auth failure with error.data {error_id} as DMC-12, not as an A2A protocol error', () => {
    const auth = errorResponse(1, { code: -32001, message: 'Unauthorized: bearer token missing or invalid', data: { error_id: 'err_01a231d9631a74b9a9ab7df9630dffad' } });
    expect(conformanceRuleIds(auth, { family: 'dmc12' })).toEqual([]);
    expect(conformanceRuleIds(auth)).toContain('a2a.own-shape');
  });

  it('checks every call of a batch, prefixing messages with the id, and reads text bodies', () => {
    const batch = [aap2(), mutate(dmc, (e) => (e.result.data.retryable = false))];
    const found = checkConformance(JSON.stringify(batch));
    expect(found.map((f) => f.rule)).toEqual(['dmc12.retryable-fixed']);
    expect(found[0]!.message).toMatch(/^id "r": retryable false contradicts RATE_LIMITED/);
    expect(checkConformance('{"jsonrpc":')).toEqual([{ rule: 'jsonrpc.envelope', level: 'MUST', message: expect.stringMatching(/unreadable body/) }]);
  });
});

describe.skipIf(!HAVE_SPEC)('conformance rule quotes', () => {
  const norm = (s: string) => s.replace(/\s+/g, ' ');
  const spec: Record<string, string> = HAVE_SPEC
    ? { 'AAP "Errors" page': norm(readSpec('aap-errors.txt')), 'DMC-12 "Error taxonomy" page': norm(readSpec('dmc12-errors.txt')) }
    : {};

  it('appear verbatim in the spec text they cite', () => {
    for (const r of CONFORMANCE_RULES) {
      const file = Object.keys(spec).find((f) => r.source.startsWith(f));
      if (!file) continue; // JSON-RPC 2.0 itself is not in ../shared/spec
      expect(spec[file], r.id).toContain(norm(r.quote));
    }
  });
});
