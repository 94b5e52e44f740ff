import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  A2A_ERRORS,
  AAP_CODES,
  AapError,
  type AapCode,
  type A2AReason,
  type CallOutcome,
  DMC12_CODES,
  type Dmc12Code,
  ERROR_ID_PATTERN,
  JSONRPC_ERRORS,
  type JsonRpcCode,
  buildA2AError,
  buildAapError,
  buildDmc12Error,
  buildExtensionRequiredError,
  buildJsonRpcError,
  checkConformance,
  errorResponse,
  isAapError,
  mintErrorId,
  parseResponse,
  successResponse,
  toAapErrorMember,
} from '../../src/protocol/index.js';
import { type Dmc12Example, HAVE_REFERENCE, SKIP_REASON, readReference } from './reference.js';

// ajv-formats is CommonJS with `exports.default`; NodeNext sees the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

const AAP_CURRENT = (Object.keys(AAP_CODES) as AapCode[]).filter((c) => !AAP_CODES[c].legacy);
const A2A_REASONS = Object.keys(A2A_ERRORS) as A2AReason[];
const DMC12 = Object.keys(DMC12_CODES) as Dmc12Code[];
const FORMS = ['2.0', 'released'] as const;
const FIXED_TIME = '2026-04-30T10:15:30Z';

const VALIDATION_ERRORS = [
  { instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' },
  { instanceLocation: '/filters/make', keyword: 'additionalProperties', error: 'unknown filter key' },
];

function detailsFor(code: AapCode): Record<string, unknown> | undefined {
  if (AAP_CODES[code].validation) return { errors: VALIDATION_ERRORS };
  if (code === 'RATE_LIMITED') return { retry_after_ms: 1500 };
  if (code === 'INTERNAL_ERROR') return { retry_after_seconds: 2 };
  return undefined;
}

function only(outcomes: ReturnType<typeof parseResponse>): CallOutcome {
  expect(Array.isArray(outcomes)).toBe(true);
  const list = outcomes as CallOutcome[];
  expect(list).toHaveLength(1);
  return list[0]!;
}

describe('mintErrorId', () => {
  it('mints err_ + 32 lowercase hex of a UUIDv7, time-ordered and unique', () => {
    const ids = Array.from({ length: 200 }, () => mintErrorId());
    for (const id of ids) expect(id).toMatch(ERROR_ID_PATTERN);
    // UUIDv7: version nibble 7 at hex index 12, variant 8-b at index 16.
    expect(ids[0]!.slice(4)[12]).toBe('7');
    expect('89ab').toContain(ids[0]!.slice(4)[16]);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('buildAapError', () => {
  it('builds the 2.0 array: ErrorInfo first, BadRequest listing every validation error, then the typed aap.error', () => {
    const member = buildAapError('SCHEMA_VALIDATION_FAILED', {
      form: '2.0',
      message: 'request failed validation with 2 errors',
      details: { errors: VALIDATION_ERRORS },
      errorId: 'err_01HZ9EXAMPLE',
      createdAt: FIXED_TIME,
      jsonrpcMessage: 'Invalid params: filters.year_min must be an integer',
    });
    // Same shape as the spec's "JSON-RPC error response" example.
    expect(member).toEqual({
      code: -32602,
      message: 'Invalid params: filters.year_min must be an integer',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'SCHEMA_VALIDATION_FAILED',
          domain: 'autoagentprotocol.org',
          metadata: { code: 'SCHEMA_VALIDATION_FAILED', error_id: 'err_01HZ9EXAMPLE', retryable: 'false', created_at: FIXED_TIME },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            { field: '/filters/year_min', description: 'type: must be an integer' },
            { field: '/filters/make', description: 'additionalProperties: unknown filter key' },
          ],
        },
        {
          '@type': 'https://autoagentprotocol.org/extensions/aap/error',
          type: 'aap.error',
          error_id: 'err_01HZ9EXAMPLE',
          code: 'SCHEMA_VALIDATION_FAILED',
          message: 'request failed validation with 2 errors',
          retryable: false,
          details: { errors: VALIDATION_ERRORS },
          created_at: FIXED_TIME,
        },
      ],
    });
  });

  it('uses the released JSON-RPC codes: RATE_LIMITED -32002, UNSUPPORTED_SKILL -32601; 2.0 uses -32000 and -32004', () => {
    const b = (code: AapCode, form: '2.0' | 'released') =>
      buildAapError(code, { form, message: 'x', ...(detailsFor(code) ? { details: detailsFor(code)! } : {}) }).code;
    expect(b('RATE_LIMITED', 'released')).toBe(-32002);
    expect(b('UNSUPPORTED_SKILL', 'released')).toBe(-32601);
    expect(b('RATE_LIMITED', '2.0')).toBe(-32000);
    expect(b('UNSUPPORTED_SKILL', '2.0')).toBe(-32004);
  });

  it('puts the bare aap.error object (no @type) in error.data for the released form', () => {
    const member = buildAapError('VEHICLE_NOT_FOUND', { form: 'released', message: 'No such VIN.', createdAt: FIXED_TIME, errorId: 'err_x' });
    expect(member.data).toEqual({
      type: 'aap.error',
      error_id: 'err_x',
      code: 'VEHICLE_NOT_FOUND',
      message: 'No such VIN.',
      retryable: false,
      created_at: FIXED_TIME,
    });
  });

  it('mints an err_ id and an RFC 3339 UTC created_at when none are given', () => {
    const member = buildAapError('INTERNAL_ERROR', { form: 'released', message: 'Try again.' });
    const data = member.data as Record<string, unknown>;
    expect(data.error_id).toMatch(ERROR_ID_PATTERN);
    expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Math.abs(Date.parse(data.created_at as string) - Date.now())).toBeLessThan(5000);
  });

  it('normalises created_at given with an offset to UTC', () => {
    const member = buildAapError('VEHICLE_NOT_FOUND', { form: 'released', message: 'x', createdAt: '2026-04-30T12:15:30+02:00' });
    expect((member.data as Record<string, unknown>).created_at).toBe(FIXED_TIME);
  });

  it('refuses a created_at outside the years 0000-9999 with a RangeError (RFC 3339 years have four digits)', () => {
    // 10000-01-01 and the last millisecond of year -1, computed apart from the builder.
    const after = Date.UTC(10000, 0, 1);
    const before = Date.parse('0000-01-01T00:00:00Z') - 1;
    for (const createdAt of [after, new Date(after), before, new Date(before)]) {
      expect(() => buildAapError('VEHICLE_NOT_FOUND', { form: '2.0', message: 'x', createdAt })).toThrow(RangeError);
      expect(() => new AapError('VEHICLE_NOT_FOUND', 'x', { createdAt })).toThrow(RangeError);
    }
    // The edges themselves are RFC 3339 and kept.
    expect(buildAapError('VEHICLE_NOT_FOUND', { form: 'released', message: 'x', createdAt: Date.parse('9999-12-31T23:59:59.999Z') }).data).toMatchObject({
      created_at: '9999-12-31T23:59:59Z',
    });
    expect(buildAapError('VEHICLE_NOT_FOUND', { form: 'released', message: 'x', createdAt: '0000-01-01T00:00:00Z' }).data).toMatchObject({
      created_at: '0000-01-01T00:00:00Z',
    });
  });

  it('lets the dealer override retryable per instance, and writes it as a string in ErrorInfo metadata', () => {
    const member = buildAapError('INTERNAL_ERROR', { form: '2.0', message: 'Bad config.', retryable: false });
    const [info, payload] = member.data as Array<Record<string, unknown>>;
    expect((info!.metadata as Record<string, unknown>).retryable).toBe('false');
    expect(payload!.retryable).toBe(false);
  });

  it('refuses a message containing a stack trace, naming the option', () => {
    const err = new Error('boom');
    expect(() => buildAapError('INTERNAL_ERROR', { form: '2.0', message: err.stack! })).toThrow(/message contains a stack trace/);
    expect(() =>
      buildAapError('INTERNAL_ERROR', { form: '2.0', message: 'ok', jsonrpcMessage: `Internal error\n    at handler (/srv/app.js:10:5)` }),
    ).toThrow(/jsonrpcMessage contains a stack trace/);
    expect(() => buildAapError('INTERNAL_ERROR', { form: '2.0', message: 'Traceback (most recent call last):\n  File "x.py", line 3' })).toThrow(
      TypeError,
    );
  });

  it('refuses a validation code without details.errors, an unknown code and the legacy AUTH_REQUIRED', () => {
    expect(() => buildAapError('SCHEMA_VALIDATION_FAILED', { form: '2.0', message: 'bad' })).toThrow(/details\.errors/);
    expect(() =>
      buildAapError('MISSING_REQUIRED_FIELD', { form: 'released', message: 'bad', details: { errors: [{ instanceLocation: '/a' }] } }),
    ).toThrow(/details\.errors\[0\]/);
    expect(() => buildAapError('NOPE' as AapCode, { form: '2.0', message: 'x' })).toThrow(/unknown AAP error code/);
    expect(() => buildAapError('AUTH_REQUIRED', { form: 'released', message: 'x' })).toThrow(/legacy/);
    expect(() => buildAapError('VEHICLE_NOT_FOUND', { form: 'v3' as '2.0', message: 'x' })).toThrow(/form/);
    expect(() => buildAapError('VEHICLE_NOT_FOUND', { form: '2.0', message: 'x', createdAt: 'yesterday' })).toThrow(/createdAt/);
  });
});

describe('buildA2AError and buildExtensionRequiredError', () => {
  it('builds an A2A error in its own shape: ErrorInfo with reason and domain a2a-protocol.org', () => {
    expect(buildA2AError('VERSION_NOT_SUPPORTED', { message: 'A2A-Version 0.3 is not served; use 1.0.', metadata: { supported: '1.0' } })).toEqual({
      code: -32009,
      message: 'A2A-Version 0.3 is not served; use 1.0.',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'VERSION_NOT_SUPPORTED',
          domain: 'a2a-protocol.org',
          metadata: { supported: '1.0' },
        },
      ],
    });
  });

  it('cannot build a bare -32008, nor metadata with non-string values', () => {
    expect(() => buildA2AError('EXTENSION_SUPPORT_REQUIRED')).toThrow(/buildExtensionRequiredError/);
    expect(() => buildA2AError('TASK_NOT_FOUND', { metadata: { attempts: 3 as unknown as string } })).toThrow(/metadata\.attempts/);
  });

  it('builds -32008 with the exact URI and the literal A2A-Extensions in the message and the metadata', () => {
    const uri = 'https://autoagentprotocol.org/extensions/aap/v1.3';
    const member = buildExtensionRequiredError(uri);
    expect(member.code).toBe(-32008);
    expect(member.message).toContain(uri);
    expect(member.message).toContain('A2A-Extensions');
    expect(member.data).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        domain: 'a2a-protocol.org',
        metadata: { extensionUri: uri, requiredHeader: 'A2A-Extensions' },
      },
    ]);
    expect(checkConformance(errorResponse('r1', member))).toEqual([]);
  });

  it('refuses a relative URI and a custom message that drops the URI or the header name', () => {
    expect(() => buildExtensionRequiredError('aap/v1.3')).toThrow(/extensionUri/);
    expect(() => buildExtensionRequiredError('https://x.test/aap', { message: 'Please activate the extension.' })).toThrow(/message/);
    expect(buildExtensionRequiredError('https://x.test/aap', { message: 'Send A2A-Extensions: https://x.test/aap' }).message).toBe(
      'Send A2A-Extensions: https://x.test/aap',
    );
  });

  it('refuses a custom message naming a URI other than the extension (its own checker would reject it)', () => {
    const uri = 'https://x.test/aap/v1.3';
    const message = `Send A2A-Extensions: ${uri}; see https://docs.x.test/activation.`;
    expect(() => buildExtensionRequiredError(uri, { message })).toThrow(/https:\/\/docs\.x\.test\/activation/);
    // What the builder refuses is what the rule flags: the same envelope built by hand fails it.
    const handMade = { ...buildExtensionRequiredError(uri), message };
    expect(checkConformance(errorResponse('r1', handMade)).map((f) => f.rule)).toContain('a2a.extension-required-same-uri');
    // The URI itself, twice or at a sentence end, is fine.
    expect(checkConformance(errorResponse('r1', buildExtensionRequiredError(uri, { message: `Send A2A-Extensions: ${uri}. Only ${uri}.` })))).toEqual([]);
  });
});

describe('buildDmc12Error', () => {
  it('builds result.data with the legacy string byte-for-byte, the code, fixed retryable, an err_ id, and _metadata', () => {
    const result = buildDmc12Error('RESERVATION_CONFLICT', {
      legacyError: 'vin_already_reserved',
      message: 'VIN already held',
      tool: 'create_reservation',
      traceId: 'trc_0123',
    });
    expect(result.data).toEqual({
      error: 'vin_already_reserved',
      message: 'VIN already held',
      error_code: 'RESERVATION_CONFLICT',
      retryable: false,
      error_id: result.data.error_id,
    });
    expect(result.data.error_id).toMatch(ERROR_ID_PATTERN);
    expect(result._metadata).toEqual({ trace_id: 'trc_0123', tool: 'create_reservation', protocol: 'a2a' });
  });

  it.skipIf(!HAVE_REFERENCE)('defaults the legacy string to the one DMC-12 documents for a code, else the code in lower case', () => {
    // The reference's legacy-only examples pair one string with one code (reservation.md, quote.md).
    const examples = readReference<Dmc12Example[]>('dmc12-error-examples.json');
    const documented = new Map(examples.filter((e) => e.kind === 'legacy_error_only').map((e) => [e.expected_error_code as Dmc12Code, String(e.payload.error)]));
    expect(documented.get('RESERVATION_CONFLICT')).toBe('vin_already_reserved');
    for (const code of DMC12) {
      expect(buildDmc12Error(code, { tool: 't' }).data.error, code).toBe(documented.get(code) ?? code.toLowerCase());
    }
  });

  it('fixes retryable true only for RATE_LIMITED, UPSTREAM_UNAVAILABLE and INTERNAL_ERROR', () => {
    const retryable = DMC12.filter((c) => buildDmc12Error(c, { tool: 't' }).data.retryable);
    expect(retryable.sort()).toEqual(['INTERNAL_ERROR', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE']);
  });

  it('refuses a missing tool, a malformed error id and a stack trace in the message', () => {
    expect(() => buildDmc12Error('QUOTE_EXPIRED', {} as { tool: string })).toThrow(/tool/);
    expect(() => buildDmc12Error('QUOTE_EXPIRED', { tool: 'x', errorId: 'err_ABC' })).toThrow(/errorId/);
    expect(() => buildDmc12Error('QUOTE_EXPIRED', { tool: 'x', message: 'Error: x\n    at Object.<anonymous> (/app/q.js:1:1)' })).toThrow(
      /message contains a stack trace/,
    );
  });
});

describe('AapError', () => {
  it('carries code, aapMessage, details, retryable and errorId, and becomes a conformant envelope in both forms', () => {
    const err = new AapError('RATE_LIMITED', 'Per-key rate limit exceeded.', { details: { retry_after_ms: 30000 } });
    expect(err).toBeInstanceOf(Error);
    expect(isAapError(err)).toBe(true);
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.aapMessage).toBe('Per-key rate limit exceeded.');
    expect(err.retryable).toBe(true);
    expect(err.errorId).toMatch(ERROR_ID_PATTERN);
    expect(err.message).toBe('RATE_LIMITED: Per-key rate limit exceeded.');
    for (const form of FORMS) {
      const member = toAapErrorMember(err, form);
      const outcome = only(parseResponse(errorResponse(7, member)));
      expect(outcome.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, errorId: err.errorId, retryAfterMs: 30000 });
      expect(checkConformance(errorResponse(7, member))).toEqual([]);
    }
  });

  it('refuses a stack trace as aapMessage and an unknown code', () => {
    expect(() => new AapError('INTERNAL_ERROR', new Error('x').stack!)).toThrow(/aapMessage contains a stack trace/);
    expect(() => new AapError('WHAT' as AapCode, 'x')).toThrow(TypeError);
    expect(isAapError(new Error('x'))).toBe(false);
  });
});

describe('build then parse gives back the same normalised fields', () => {
  for (const form of FORMS) {
    for (const code of AAP_CURRENT) {
      it(`AAP ${code} in the ${form} form`, () => {
        const details = detailsFor(code);
        const errorId = mintErrorId();
        const member = buildAapError(code, { form, message: `${code} happened`, errorId, ...(details ? { details } : {}) });
        const outcome = only(parseResponse(JSON.stringify(errorResponse('call-1', member))));
        const info = AAP_CODES[code];
        expect(outcome).toEqual({
          id: 'call-1',
          ok: false,
          error: {
            protocol: 'aap',
            form: form === '2.0' ? 'aap-2.0' : 'aap-released',
            code,
            jsonrpcCode: form === '2.0' ? info.jsonrpcCode : info.releasedJsonrpcCode,
            retryable: info.retryable,
            errorId,
            retryAfterMs: code === 'RATE_LIMITED' ? 1500 : code === 'INTERNAL_ERROR' ? 2000 : null,
            violations: info.validation
              ? [
                  { location: '/filters/year_min', keyword: 'type' },
                  { location: '/filters/make', keyword: 'additionalProperties' },
                ]
              : [],
            upstreamTraceId: null,
          },
        });
        expect(checkConformance(errorResponse('call-1', member), { family: 'aap' })).toEqual([]);
      });
    }
  }

  for (const reason of A2A_REASONS) {
    it(`A2A ${reason}`, () => {
      const member =
        reason === 'EXTENSION_SUPPORT_REQUIRED'
          ? buildExtensionRequiredError('https://autoagentprotocol.org/extensions/aap/v1.3')
          : buildA2AError(reason);
      const outcome = only(parseResponse(errorResponse(3, member)));
      expect(outcome.error).toEqual({
        protocol: 'a2a',
        form: 'a2a',
        code: reason,
        jsonrpcCode: A2A_ERRORS[reason].jsonrpcCode,
        retryable: null,
        errorId: null,
        retryAfterMs: null,
        violations: [],
        upstreamTraceId: null,
      });
      expect(checkConformance(errorResponse(3, member))).toEqual([]);
    });
  }

  for (const code of Object.keys(JSONRPC_ERRORS) as JsonRpcCode[]) {
    it(`JSON-RPC ${code}`, () => {
      const outcome = only(parseResponse(errorResponse(null, buildJsonRpcError(code))));
      expect(outcome).toEqual({
        id: null,
        ok: false,
        error: {
          protocol: 'jsonrpc',
          form: 'jsonrpc',
          code,
          jsonrpcCode: Number(code),
          retryable: null,
          errorId: null,
          retryAfterMs: null,
          violations: [],
          upstreamTraceId: null,
        },
      });
    });
  }

  for (const code of DMC12) {
    for (const legacy of DMC12_CODES[code].legacyErrors) {
      it(`DMC-12 ${code} with legacy error "${legacy}"`, () => {
        const result = buildDmc12Error(code, { tool: 'create_reservation', legacyError: legacy, message: 'Something failed.' });
        const outcome = only(parseResponse(Buffer.from(JSON.stringify(successResponse(11, result)))));
        expect(outcome).toEqual({
          id: 11,
          ok: false,
          error: {
            protocol: 'dmc12',
            form: 'dmc12',
            code,
            jsonrpcCode: null,
            retryable: DMC12_CODES[code].retryable,
            errorId: result.data.error_id,
            retryAfterMs: null,
            violations: [],
            upstreamTraceId: result._metadata.trace_id,
            legacyError: legacy,
          },
        });
        expect(checkConformance(successResponse(11, result))).toEqual([]);
        // Before the taxonomy only the legacy string was sent; it maps back to the same code.
        const old = only(parseResponse(successResponse(11, { data: { error: legacy } })));
        expect(old.error).toMatchObject({ form: 'dmc12-legacy', code, retryable: DMC12_CODES[code].retryable, errorId: null });
      });
    }
  }
});

describe.skipIf(!HAVE_REFERENCE)('builder output validates against the published schemas (ajv, 2020-12)', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const compile = (path: string): ValidateFunction => {
    return ajv.compile(readReference<Record<string, unknown>>(path));
  };
  const released = HAVE_REFERENCE ? compile('aap-schemas/v1.3/error.schema.json') : null;
  const draft = HAVE_REFERENCE ? compile('aap-schemas/latest-2.0-draft/error.schema.json') : null;
  const dmc12 = HAVE_REFERENCE ? compile('dmc12-error.schema.json') : null;
  const ok = (v: ValidateFunction | null, value: unknown) => {
    const valid = v!(value);
    expect(valid, JSON.stringify(v!.errors)).toBe(true);
  };

  it('is set up right: the schemas reject what they should', () => {
    expect(released!({ type: 'aap.error', code: 'RATE_LIMITED' })).toBe(false);
    expect(draft!({ type: 'aap.error', error_id: 'e', code: 'RATE_LIMITED', message: 'm', retryable: true, created_at: FIXED_TIME })).toBe(false);
    expect(dmc12!({ error: 'rate_limited', error_code: 'RATE_LIMITED', retryable: false, error_id: 'err_x' })).toBe(false);
  });

  for (const code of AAP_CURRENT) {
    it(`AAP ${code}: released error.data matches v1.3, the 2.0 typed entry matches latest-2.0-draft`, () => {
      const details = detailsFor(code);
      const opts = { message: `${code} happened`, ...(details ? { details } : {}) };
      ok(released, buildAapError(code, { form: 'released', ...opts }).data);
      const entries = buildAapError(code, { form: '2.0', ...opts }).data as Array<Record<string, unknown>>;
      const typed = entries.filter((e) => e['@type'] === 'https://autoagentprotocol.org/extensions/aap/error');
      expect(typed).toHaveLength(1);
      ok(draft, typed[0]);
    });
  }

  it('every AapError envelope validates too', () => {
    const err = new AapError('INVALID_CONDITION', 'Wrong vocabulary.', {
      details: { errors: [{ instanceLocation: '/trade_in/condition', keyword: 'enum', error: 'must be excellent|good|fair|poor' }] },
    });
    ok(released, toAapErrorMember(err, 'released').data);
    ok(draft, (toAapErrorMember(err, '2.0').data as unknown[]).at(-1));
  });

  for (const code of DMC12) {
    it(`DMC-12 ${code}: result.data matches dmc12-error.schema.json`, () => {
      ok(dmc12, buildDmc12Error(code, { tool: 'search_inventory' }).data);
      ok(dmc12, buildDmc12Error(code, { tool: 'search_inventory', message: 'safe text' }).data);
    });
  }
});

if (!HAVE_REFERENCE) console.info(`skipping schema validation: ${SKIP_REASON}`);
