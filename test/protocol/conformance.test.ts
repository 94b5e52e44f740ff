import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_RULES,
  buildAapError,
  buildDmc12Error,
  buildExtensionRequiredError,
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

/** Per rule: envelopes that pass it (and must not be flagged) and envelopes that break it. */
const CASES: Record<string, { pass: Json[]; breaks: Json[] }> = {
  'jsonrpc.envelope': {
    pass: [aap2(), dmc()],
    breaks: [
      mutate(aap2, (e) => delete e.jsonrpc),
      mutate(aap2, (e) => (e.result = {})),
      mutate(aap2, (e) => (e.error.code = '-32602')),
      mutate(aap2, (e) => delete e.error.message),
    ],
  },
  'a2a.data-entries-typed': {
    pass: [aap2(), ext()],
    breaks: [mutate(ext, (e) => e.error.data.push({ reason: 'x' }))],
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
  'aap.errorinfo-metadata-strings': {
    pass: [aap2(), ext()],
    breaks: [mutate(aap2, (e) => (e.error.data[0].metadata.retryable = false)), mutate(ext, (e) => (e.error.data[0].metadata.extensionUri = 1))],
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
    ],
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
    pass: [aap2(), aapReleased()],
    breaks: [mutate(aapReleased, (e) => (e.error.data.retryable = 'true')), mutate(aap2, (e) => delete payloadOf(e).retryable)],
  },
  'aap.error-id-present': {
    pass: [aap2(), aapReleased()],
    breaks: [mutate(aapReleased, (e) => delete e.error.data.error_id), mutate(aap2, (e) => (payloadOf(e).error_id = ''))],
  },
  'aap.created-at-valid': {
    pass: [aap2(), aapReleased()],
    breaks: [
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30 10:15:30')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-13-01T00:00:00Z')),
      mutate(aapReleased, (e) => (e.error.data.created_at = '2026-04-30T10:15:30')),
    ],
  },
  'aap.validation-details': {
    pass: [aap2()],
    breaks: [mutate(aap2, (e) => (payloadOf(e).details.errors = [])), mutate(aap2, (e) => delete payloadOf(e).details.errors[1].keyword)],
  },
  'aap.no-stack-trace': {
    pass: [aap2(), dmc()],
    breaks: [
      mutate(aap2, (e) => (e.error.message = 'TypeError: x\n    at handler (/srv/dealer/skills.js:41:13)')),
      mutate(dmc, (e) => (e.result.data.message = 'Traceback (most recent call last):\n  File "app.py", line 3')),
    ],
  },
  'a2a.extension-required-message': {
    pass: [ext()],
    breaks: [
      mutate(ext, (e) => (e.error.message = `Activate ${URI} before retrying.`)),
      mutate(ext, (e) => (e.error.message = 'Use the A2A-Extensions header.')),
    ],
  },
  'a2a.extension-required-detail': {
    pass: [ext()],
    breaks: [
      mutate(ext, (e) => delete e.error.data[0].metadata),
      mutate(ext, (e) => (e.error.data[0].metadata.requiredHeader = 'X-Extensions')),
      mutate(ext, (e) => (e.error.data = [])),
    ],
  },
  'a2a.extension-required-same-uri': {
    pass: [ext()],
    breaks: [mutate(ext, (e) => (e.error.message = 'Activate https://example.test/other in the A2A-Extensions header.'))],
  },
  'dmc12.taxonomy-fields': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => delete e.result.data.error_code), mutate(dmc, (e) => (e.result.data.error_code = 'SLOW_DOWN'))],
  },
  'dmc12.retryable-fixed': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => (e.result.data.retryable = false)), mutate(dmc, (e) => (e.result.data.retryable = 'true'))],
  },
  'dmc12.error-id-format': {
    pass: [dmc()],
    breaks: [mutate(dmc, (e) => (e.result.data.error_id = 'err_3f9a2c…')), mutate(dmc, (e) => (e.result.data.error_id = 'ERR_ABC'))],
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
    }
    expect(Object.keys(CASES).sort()).toEqual([...ids].sort());
  });

  for (const [rule, { pass, breaks }] of Object.entries(CASES)) {
    it(`${rule}: conformant envelopes pass, each breaking change is reported with the spec sentence`, () => {
      for (const e of pass) expect(conformanceRuleIds(e)).not.toContain(rule);
      for (const e of breaks) {
        const found = checkConformance(e).filter((v) => v.rule === rule);
        expect(found, JSON.stringify(e)).toHaveLength(1);
        const quote = CONFORMANCE_RULES.find((r) => r.id === rule)!.quote;
        expect(found[0]!.message).toContain(quote);
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

  it('checks every call of a batch, prefixing messages with the id, and reads text bodies', () => {
    const batch = [aap2(), mutate(dmc, (e) => (e.result.data.retryable = false))];
    const found = checkConformance(JSON.stringify(batch));
    expect(found.map((f) => f.rule)).toEqual(['dmc12.retryable-fixed']);
    expect(found[0]!.message).toMatch(/^id "r": retryable false contradicts RATE_LIMITED/);
    expect(checkConformance('{"jsonrpc":')).toEqual([{ rule: 'jsonrpc.envelope', message: expect.stringMatching(/unreadable body/) }]);
  });
});

describe.skipIf(!HAVE_SPEC)('conformance rule quotes', () => {
  const norm = (s: string) => s.replace(/\s+/g, ' ');
  const spec: Record<string, string> = HAVE_SPEC
    ? { 'spec/aap-errors.txt': norm(readSpec('aap-errors.txt')), 'spec/dmc12-errors.txt': norm(readSpec('dmc12-errors.txt')) }
    : {};

  it('appear verbatim in the spec text they cite', () => {
    for (const r of CONFORMANCE_RULES) {
      const file = Object.keys(spec).find((f) => r.source.startsWith(f));
      if (!file) continue; // JSON-RPC 2.0 itself is not in ../shared/spec
      expect(spec[file], r.id).toContain(norm(r.quote));
    }
  });
});
