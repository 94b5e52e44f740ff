import { describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  DMC12_AUTH_FAILURE,
  DMC12_UNMAPPED_LEGACY,
  type ParsedError,
  isParseFailure,
  lookupCode,
  parseErrorMember,
  parseResponse,
  parseSseResponse,
  readRetryable,
  retryAfterMs,
} from '../../src/protocol/index.js';

// Hand-written vectors: these run everywhere, with or without ../shared.
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const AAP_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';

function one(body: unknown, options?: Parameters<typeof parseResponse>[1]): CallOutcome {
  const r = parseResponse(body, options);
  expect(Array.isArray(r), JSON.stringify(r)).toBe(true);
  expect(r as CallOutcome[]).toHaveLength(1);
  return (r as CallOutcome[])[0]!;
}

function err(body: unknown, options?: Parameters<typeof parseResponse>[1]): ParsedError {
  const o = one(body, options);
  expect(o.ok).toBe(false);
  return o.error!;
}

const aapPayload = (over: Record<string, unknown> = {}) => ({
  '@type': AAP_TYPE,
  type: 'aap.error',
  error_id: 'err_payload',
  code: 'VEHICLE_UNAVAILABLE',
  message: 'Sold yesterday.',
  retryable: false,
  created_at: '2026-04-30T10:15:30Z',
  ...over,
});

const aapInfo = (metadata: Record<string, unknown>, reason = 'VEHICLE_UNAVAILABLE') => ({
  '@type': ERROR_INFO,
  reason,
  domain: 'autoagentprotocol.org',
  metadata,
});

const envelope = (error: unknown, id: unknown = 'r1') => ({ jsonrpc: '2.0', id, error });

describe('AAP 2.0 array form', () => {
  it('finds the aap.error by @type wherever it sits, ignoring unknown @type entries', () => {
    const data = [
      { '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: 'ignored' },
      { '@type': 'https://example.test/unknown', code: 'INTERNAL_ERROR', retryable: true },
      aapPayload(),
      aapInfo({ code: 'VEHICLE_UNAVAILABLE', error_id: 'err_payload', retryable: 'false', created_at: '2026-04-30T10:15:30Z' }),
    ];
    expect(err(envelope({ code: -32000, message: 'x', data }))).toMatchObject({
      protocol: 'aap',
      form: 'aap-2.0',
      code: 'VEHICLE_UNAVAILABLE',
      jsonrpcCode: -32000,
      retryable: false,
      errorId: 'err_payload',
    });
  });

  it('never takes the payload by position: an untagged aap.error in the array is not used', () => {
    const data = [aapInfo({ code: 'RATE_LIMITED', retryable: 'true', error_id: 'err_info' }, 'RATE_LIMITED'), { type: 'aap.error', code: 'INTERNAL_ERROR', retryable: false }];
    expect(err(envelope({ code: -32000, message: 'x', data }))).toMatchObject({
      form: 'errorinfo-only',
      code: 'RATE_LIMITED',
      retryable: true,
      errorId: 'err_info',
    });
  });

  it('understands an ErrorInfo-only array: code from reason, retryable and error_id from string metadata', () => {
    const data = [aapInfo({ code: 'RATE_LIMITED', error_id: 'err_1', retryable: 'true', retry_after_ms: '2500' }, 'RATE_LIMITED')];
    expect(err(envelope({ code: -32000, message: 'x', data }))).toEqual({
      protocol: 'aap',
      form: 'errorinfo-only',
      code: 'RATE_LIMITED',
      jsonrpcCode: -32000,
      retryable: true,
      errorId: 'err_1',
      retryAfterMs: 2500,
      violations: [],
      upstreamTraceId: null,
    });
  });

  it('takes violations from details.errors, else from the BadRequest', () => {
    const badRequest = {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: '/consent/scope/0', description: 'enum: must be lead_submission' }, { field: '/x', description: 'no keyword here' }],
    };
    const info = aapInfo({ code: 'SCHEMA_VALIDATION_FAILED', retryable: 'false' }, 'SCHEMA_VALIDATION_FAILED');
    expect(err(envelope({ code: -32602, message: 'x', data: [info, badRequest] })).violations).toEqual([
      { location: '/consent/scope/0', keyword: 'enum' },
      { location: '/x', keyword: 'unknown' },
    ]);
    const payload = aapPayload({
      code: 'SCHEMA_VALIDATION_FAILED',
      details: { errors: [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be integer' }] },
    });
    expect(err(envelope({ code: -32602, message: 'x', data: [info, badRequest, payload] })).violations).toEqual([
      { location: '/filters/year_min', keyword: 'type' },
    ]);
  });
});

describe('retryable is read strictly', () => {
  it('never turns the string "false" into true, and leaves a missing value null', () => {
    expect(readRetryable('false')).toBe(false);
    expect(readRetryable('true')).toBe(true);
    for (const v of [undefined, null, 'False', 'TRUE', 'no', 'yes', 0, 1, '', 'false ', {}]) expect(readRetryable(v)).toBeNull();
    const released = (retryable: unknown) =>
      err(envelope({ code: -32000, message: 'x', data: { type: 'aap.error', code: 'INTERNAL_ERROR', error_id: 'e', retryable } }));
    expect(released('false').retryable).toBe(false);
    expect(released(undefined).retryable).toBeNull();
    expect(released('0').retryable).toBeNull();
  });

  it('does not default retryable from the code table for AAP payloads that lost it', () => {
    const data = { type: 'aap.error', code: 'RATE_LIMITED', error_id: 'e' };
    expect(err(envelope({ code: -32002, message: 'x', data })).retryable).toBeNull();
  });
});

describe('plain JSON-RPC and A2A errors', () => {
  it('reads a plain {code, message} as a JSON-RPC error', () => {
    expect(err(envelope({ code: -32000, message: 'Server error' }))).toEqual({
      protocol: 'jsonrpc',
      form: 'jsonrpc',
      code: '-32000',
      jsonrpcCode: -32000,
      retryable: null,
      errorId: null,
      retryAfterMs: null,
      violations: [],
      upstreamTraceId: null,
    });
  });

  it('reads a bare -32001 as A2A TASK_NOT_FOUND, but on a DMC-12 call as the DMC-12 auth failure', () => {
    expect(err(envelope({ code: -32001, message: 'x' }))).toMatchObject({ protocol: 'a2a', code: 'TASK_NOT_FOUND' });
    const auth = err(envelope({ code: -32001, message: 'Unauthorized' }), { family: 'dmc12' });
    // dmc12-errors.txt: "returns JSON-RPC error -32001 with HTTP 401 — not the data.error envelope";
    // the wire carries no retryable, so the parser leaves it null (the code table says false).
    expect(auth).toEqual({
      protocol: 'dmc12',
      form: 'jsonrpc',
      code: '-32001',
      jsonrpcCode: -32001,
      retryable: null,
      errorId: null,
      retryAfterMs: null,
      violations: [],
      upstreamTraceId: null,
    });
    expect(lookupCode(auth.protocol, auth.code)).toBe(DMC12_AUTH_FAILURE);
    const withId = err(envelope({ code: -32001, message: 'Unauthorized', data: { error_id: 'err_auth' } }), { family: 'dmc12' });
    expect(withId).toMatchObject({ protocol: 'dmc12', code: '-32001', errorId: 'err_auth' });
  });

  it('gives other server-defined codes on a DMC-12 call to DMC-12, and leaves standard codes to JSON-RPC', () => {
    const serverError = err(envelope({ code: -32000, message: 'x' }), { family: 'dmc12' });
    expect(serverError).toMatchObject({ protocol: 'dmc12', form: 'jsonrpc', code: '-32000', jsonrpcCode: -32000 });
    expect(lookupCode(serverError.protocol, serverError.code)).toBeUndefined();
    const internal = err(envelope({ code: -32603, message: 'x' }), { family: 'dmc12' });
    expect(internal).toMatchObject({ protocol: 'jsonrpc', code: '-32603' });
    expect(lookupCode(internal.protocol, internal.code)?.retryable).toBe(true);
    // Outside the server-defined range nothing changes for a DMC-12 call.
    expect(err(envelope({ code: -32100, message: 'x' }), { family: 'dmc12' })).toMatchObject({ protocol: 'jsonrpc', code: '-32100' });
  });

  it('reads the ErrorInfo reason of an A2A error, and copes with a malformed error member', () => {
    const data = [{ '@type': ERROR_INFO, reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org' }];
    expect(err(envelope({ code: -32004, message: 'x', data }))).toMatchObject({ protocol: 'a2a', form: 'a2a', code: 'UNSUPPORTED_OPERATION' });
    expect(parseErrorMember('boom')).toMatchObject({ protocol: 'jsonrpc', code: 'MALFORMED_ERROR_MEMBER', jsonrpcCode: null });
    expect(err(envelope({ code: 'x', message: 'y' })).code).toBe('MALFORMED_ERROR_MEMBER');
  });

  it('reads the error_id of an A2A protocol error from its ErrorInfo metadata (no typed payload carries one)', () => {
    const info = { '@type': ERROR_INFO, reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org' };
    const withId = [{ ...info, metadata: { extensionUri: 'https://example.test/ext', requiredHeader: 'A2A-Extensions', error_id: 'err_a2a' } }];
    expect(err(envelope({ code: -32008, message: 'x', data: withId }))).toMatchObject({ protocol: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', errorId: 'err_a2a' });
    expect(err(envelope({ code: -32008, message: 'x', data: [{ ...info, metadata: { error_id: 7 } }] })).errorId).toBeNull();
    expect(err(envelope({ code: -32008, message: 'x', data: [info] })).errorId).toBeNull();
  });

  it('reads a JSON-RPC standard error that @a2a-js/sdk tags with an ErrorInfo (reason INVALID_PARAMS) as that JSON-RPC error', () => {
    // What the SDK 1.3 sends for RequestMalformedError (seen on the wire from the demo dealer).
    const data = [{ '@type': ERROR_INFO, reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org', metadata: { error_id: 'err_p' } }];
    expect(err(envelope({ code: -32602, message: 'message.parts must hold at least one part.', data }))).toMatchObject({
      protocol: 'jsonrpc',
      code: '-32602',
      jsonrpcCode: -32602,
      errorId: 'err_p',
    });
  });

  it('keeps ids exactly as sent: 1 and "1" differ, other id types read as null', () => {
    expect(one(envelope({ code: -32603, message: 'x' }, 1)).id).toBe(1);
    expect(one(envelope({ code: -32603, message: 'x' }, '1')).id).toBe('1');
    expect(one(envelope({ code: -32603, message: 'x' }, { a: 1 })).id).toBeNull();
  });
});

describe('odd forms read one way', () => {
  it('reads an AAP code as ErrorInfo reason under the A2A domain as that AAP code, never as an A2A reason', () => {
    const info = { '@type': ERROR_INFO, reason: 'RATE_LIMITED', domain: 'a2a-protocol.org', metadata: { code: 'RATE_LIMITED', error_id: 'err_x', retryable: 'true', retry_after_ms: '500' } };
    expect(err(envelope({ code: -32000, message: 'slow down', data: [info] }))).toMatchObject({
      protocol: 'aap',
      form: 'errorinfo-only',
      code: 'RATE_LIMITED',
      retryable: true,
      errorId: 'err_x',
      retryAfterMs: 500,
    });
    // With the typed payload beside it, the payload decides; the A2A-domain info still lends its metadata.
    const payload = aapPayload({ code: 'RATE_LIMITED', retryable: true, error_id: 'err_x' });
    expect(err(envelope({ code: -32000, message: 'x', data: [info, payload] }))).toMatchObject({ protocol: 'aap', form: 'aap-2.0', code: 'RATE_LIMITED', retryAfterMs: 500 });
  });

  it('recognises a released payload that lost its type by its AAP code', () => {
    const data = { code: 'VEHICLE_NOT_FOUND', message: 'No such VIN.', error_id: 'err_r', retryable: false, created_at: '2026-04-30T10:15:30Z' };
    expect(err(envelope({ code: -32000, message: 'x', data }))).toMatchObject({ protocol: 'aap', form: 'aap-released', code: 'VEHICLE_NOT_FOUND', retryable: false, errorId: 'err_r' });
    // An object whose code is no AAP code stays a plain JSON-RPC error.
    expect(err(envelope({ code: -32000, message: 'x', data: { code: 'NOPE' } }))).toMatchObject({ protocol: 'jsonrpc', code: '-32000' });
  });

  it('reads a DMC-12 retryable sent as a string the same whatever its case: the code fixes it, else the word', () => {
    const dmc = (retryable: unknown, code: string | null = 'RATE_LIMITED', legacy = 'rate_limited') => ({
      jsonrpc: '2.0',
      id: 'd',
      result: { data: { error: legacy, ...(code ? { error_code: code } : {}), retryable, error_id: 'err_d' }, _metadata: { trace_id: 'trc_1' } },
    });
    for (const v of ['true', 'TRUE', 'True', ' true ', 'false', 'FALSE', 'yes']) {
      expect(err(dmc(v)).retryable, v).toBe(true); // RATE_LIMITED is retryable, whatever the string says
      expect(err(dmc(v, 'VALIDATION_FAILED', 'invalid_vin')).retryable, v).toBe(false);
    }
    // No code to go by (an unmapped legacy string): the word itself, case-insensitively.
    for (const v of ['true', 'TRUE', 'True']) expect(err(dmc(v, null, 'aap_triage_unmapped')).retryable, v).toBe(true);
    for (const v of ['false', 'FALSE', 'False']) expect(err(dmc(v, null, 'aap_triage_unmapped')).retryable, v).toBe(false);
    expect(err(dmc('maybe', null, 'aap_triage_unmapped')).retryable).toBeNull();
  });
});

describe('errors hidden in a successful result', () => {
  it('reports a DMC-12 result.data error with its trace id and legacy string', () => {
    const body = {
      jsonrpc: '2.0',
      id: 5,
      result: {
        data: { error: 'rate_limited', message: 'slow down', error_code: 'RATE_LIMITED', retryable: true, error_id: 'err_0123456789abcdef0123456789abcdef', retry_after_ms: 4000 },
        _metadata: { trace_id: 'trc_abc', tool: 'search_inventory', protocol: 'a2a' },
      },
    };
    expect(one(body)).toEqual({
      id: 5,
      ok: false,
      error: {
        protocol: 'dmc12',
        form: 'dmc12',
        code: 'RATE_LIMITED',
        jsonrpcCode: null,
        retryable: true,
        errorId: 'err_0123456789abcdef0123456789abcdef',
        retryAfterMs: 4000,
        violations: [],
        upstreamTraceId: 'trc_abc',
        legacyError: 'rate_limited',
      },
    });
  });

  it('gives an unknown legacy-only DMC-12 string its own code and a null retryable', () => {
    expect(err({ jsonrpc: '2.0', id: 1, result: { data: { error: 'flux_capacitor_cold' } } })).toMatchObject({
      form: 'dmc12-legacy',
      code: DMC12_UNMAPPED_LEGACY,
      retryable: null,
      legacyError: 'flux_capacitor_cold',
    });
  });

  it('keeps the wire retryable of a DMC-12 error even when it contradicts the code (the checker flags it)', () => {
    const data = { error: 'rate_limited', error_code: 'RATE_LIMITED', retryable: false, error_id: 'err_x' };
    expect(err({ jsonrpc: '2.0', id: 1, result: { data } }).retryable).toBe(false);
  });

  it('reports a failed task (A2A 1.0 wrapped, 0.3 bare, streaming status update) as TASK_FAILED', () => {
    const status = { state: 'TASK_STATE_FAILED', message: { role: 'ROLE_AGENT', parts: [{ text: 'Agent execution error: boom' }] } };
    for (const result of [
      { task: { id: 't', contextId: 'c', status } },
      { kind: 'task', id: 't', status: { state: 'failed' } },
      { statusUpdate: { taskId: 't', status } },
    ]) {
      expect(err({ jsonrpc: '2.0', id: 'r', result })).toEqual({
        protocol: 'a2a',
        form: 'task-failed',
        code: 'TASK_FAILED',
        jsonrpcCode: null,
        retryable: null,
        errorId: null,
        retryAfterMs: null,
        violations: [],
        upstreamTraceId: null,
      });
    }
  });

  it('takes the code of an aap.error carried inside a failed task', () => {
    const status = {
      state: 'TASK_STATE_FAILED',
      message: { role: 'ROLE_AGENT', parts: [{ data: aapPayload({ code: 'INTERNAL_ERROR', retryable: true, error_id: 'err_t' }) }] },
    };
    expect(err({ jsonrpc: '2.0', id: 'r', result: { task: { id: 't', status } } })).toMatchObject({
      protocol: 'aap',
      form: 'task-failed',
      code: 'INTERNAL_ERROR',
      retryable: true,
      errorId: 'err_t',
    });
  });

  it('leaves completed tasks, messages and DMC-12 data without error fields as successes', () => {
    for (const result of [
      { task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } },
      { message: { role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response', data: {} } }] } },
      { data: { vehicles: [], error: null }, _metadata: { trace_id: 'trc_1' } },
      null,
      'ok',
    ]) {
      expect(one({ jsonrpc: '2.0', id: 1, result })).toEqual({ id: 1, ok: true });
    }
  });
});

describe('batches and retry hints', () => {
  it('returns one outcome per response in a batch, in body order, skipping non-responses', () => {
    const body = [
      { jsonrpc: '2.0', id: 2, result: {} },
      'junk',
      { jsonrpc: '2.0', id: '2', error: { code: -32601, message: 'Method not found' } },
    ];
    expect(parseResponse(body)).toEqual([
      { id: 2, ok: true },
      { id: '2', ok: false, error: expect.objectContaining({ code: '-32601' }) },
    ]);
  });

  it('reads retry_after_ms, else retry_after_seconds × 1000, ignoring nonsense', () => {
    expect(retryAfterMs({ retry_after_ms: 30000 })).toBe(30000);
    expect(retryAfterMs({ retry_after_seconds: 2.5 })).toBe(2500);
    expect(retryAfterMs({ retry_after_ms: '1200' })).toBe(1200);
    expect(retryAfterMs({ retry_after_ms: 5, retry_after_seconds: 9 })).toBe(5);
    for (const d of [{}, { retry_after_ms: -1 }, { retry_after_ms: Infinity }, { retry_after_ms: '1e9' }, { retry_after_seconds: 'soon' }, null, 'x']) {
      expect(retryAfterMs(d)).toBeNull();
    }
  });
});

describe('parseSseResponse (streaming replies)', () => {
  const event = (obj: unknown) => `event: message\ndata: ${JSON.stringify(obj)}\n\n`;
  const status = (state: string) => ({ jsonrpc: '2.0', id: 's1', result: { statusUpdate: { taskId: 't', status: { state } } } });

  it('gives one outcome per id: success when every event succeeds, the first error otherwise', () => {
    const ok = `: keep-alive\n\n${event(status('TASK_STATE_WORKING'))}${event(status('TASK_STATE_COMPLETED'))}data: [DONE]\n\n`;
    expect(parseSseResponse(ok)).toEqual([{ id: 's1', ok: true }]);
    const failed = event(status('TASK_STATE_WORKING')) + event(status('TASK_STATE_FAILED')).replace(/\n/g, '\r\n');
    expect(parseSseResponse(Buffer.from(failed))).toEqual([{ id: 's1', ok: false, error: expect.objectContaining({ form: 'task-failed', code: 'TASK_FAILED' }) }]);
    const rpcError = event({ jsonrpc: '2.0', id: 's1', error: { code: -32004, message: 'Streaming is not supported' } });
    expect(parseSseResponse(rpcError)).toEqual([{ id: 's1', ok: false, error: expect.objectContaining({ protocol: 'a2a', code: 'UNSUPPORTED_OPERATION' }) }]);
  });

  it('joins multi-line data fields and refuses streams without JSON-RPC responses or with bad bytes', () => {
    const multi = `data: {"jsonrpc":"2.0",\ndata: "id":3,"result":{}}\n\n`;
    expect(parseSseResponse(multi)).toEqual([{ id: 3, ok: true }]);
    const noRpc = parseSseResponse(': only comments\n\ndata: hello\n\n');
    expect(isParseFailure(noRpc) && noRpc.parseError.code).toBe('not-jsonrpc');
    const bad = parseSseResponse(Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff]));
    expect(isParseFailure(bad) && bad.parseError.code).toBe('invalid-utf8');
    const big = parseSseResponse('data: x\n\n'.repeat(1000), { maxBytes: 100 });
    expect(isParseFailure(big) && big.parseError.code).toBe('too-large');
  });
});
