/**
 * The wire rewrite on plain response objects (`complete`): each case is a host response
 * spec/aap-errors.txt forbids or leaves incomplete, and what the rewrite must make of it. Every
 * case also checks the rule of issue 15: the result breaks no conformance rule the host's
 * response did not already break.
 */
import { describe, expect, it } from 'vitest';
import { ExchangeErrors } from '../../src/instrument/taps/aap-error-hook.js';
import { spliceJson } from '../../src/instrument/exchange/json-splice.js';
import { REWRITE_RULES, complete } from '../../src/instrument/exchange/complete.js';
import type { CompleteContext } from '../../src/instrument/exchange/complete.js';
import { AAP_CODES, AapError, conformanceRuleIds } from '../../src/protocol/index.js';
import type { AapCode, RequestCall } from '../../src/protocol/index.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const AAP_CALL = { family: 'aap', method: 'SendMessage', skill: 'inventory.vehicle', id: 'r1', isNotification: false, params: {} } as unknown as RequestCall;
const URI_13 = 'https://autoagentprotocol.org/extensions/aap/v1.3';

function ctx(over: Partial<CompleteContext> = {}): CompleteContext {
  return { store: null, aapForm: '2.0', endpointForm: null, requiredExtensionUri: null, traceId: null, mayRewrite: true, now: NOW, ...over };
}

/** Runs the rewrite on a copy and returns the result with the rules before and after. */
function run(item: Record<string, unknown>, c: CompleteContext = ctx(), call: RequestCall | null = AAP_CALL) {
  const before = conformanceRuleIds(item, { family: 'aap' });
  const r = complete(structuredClone(item), call, c);
  const after = conformanceRuleIds(r.item, c.endpointForm ? { family: 'aap', form: c.endpointForm } : { family: 'aap' });
  return { r, before, after, caused: after.filter((x) => !before.includes(x)) };
}

function storeWith(err: AapError): ExchangeErrors {
  const store = new ExchangeErrors();
  store.add(err);
  return store;
}

type Entry = Record<string, unknown> & { metadata?: Record<string, string> };
const dataOf = (item: Record<string, unknown>): Entry[] => (item.error as { data: Entry[] }).data;
const payloadOf = (item: Record<string, unknown>): Entry | undefined =>
  dataOf(item).find((d) => d['@type'] === 'https://autoagentprotocol.org/extensions/aap/error');

describe('a -32603 carrying a stack trace', () => {
  const stack = 'VEHICLE_NOT_FOUND: No listing matches that VIN.\n    at lookup (/srv/dealer/skills/vehicle.js:41:11)\n    at async Handler.run (file:///srv/dealer/node_modules/x/index.mjs:3:9)';

  it('is promoted into the typed payload without the trace', () => {
    const { r, caused, after } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: stack } });
    expect(r.changed).toBe(true);
    const error = r.item.error as { code: number; message: string };
    expect(error.code).toBe(-32000);
    expect(error.message).toBe('No listing matches that VIN.');
    expect(payloadOf(r.item)).toMatchObject({ code: 'VEHICLE_NOT_FOUND', message: 'No listing matches that VIN.' });
    expect(JSON.stringify(r.item)).not.toMatch(/\/srv\/dealer|at lookup/);
    expect(after).not.toContain('aap.no-stack-trace');
    expect(caused).toEqual([]);
  });

  it('finds the AapError instance when the host sent its stack, keeping its error_id', () => {
    const store = new ExchangeErrors();
    const err = new AapError('VEHICLE_NOT_FOUND', 'No listing matches that VIN.', { errorId: 'err_0192f3c01a2b7c3d8e4f5a6b7c8d9e0f' });
    store.add(err);
    const { r, caused } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: err.stack } }, ctx({ store }));
    expect(payloadOf(r.item)?.error_id).toBe('err_0192f3c01a2b7c3d8e4f5a6b7c8d9e0f');
    expect(JSON.stringify(r.item)).not.toContain('    at ');
    expect(caused).toEqual([]);
  });

  it('cuts a trace out of a plain -32603 message (not an AapError) and says so', () => {
    const { r, caused, after } = run({
      jsonrpc: '2.0',
      id: 'r1',
      error: { code: -32603, message: 'TypeError: boom at Foo (/srv/dealer/x.js:1:2)', data: [] },
    });
    const message = (r.item.error as { message: string }).message;
    expect(message).not.toMatch(/boom|\/srv\/dealer/);
    expect(message).toMatch(/^Internal/);
    expect(r.conformance).toContain(REWRITE_RULES.stackTrace);
    expect(after).not.toContain('aap.no-stack-trace');
    expect(caused).toEqual([]);
  });
});

describe('a typed aap.error payload the host wrote with a stack trace in its message', () => {
  const trace = 'No listing matches that VIN.\n    at lookup (/srv/dealer/skills/vehicle.js:41:11)';
  const payload = {
    type: 'aap.error',
    error_id: 'err_0192f3c01a2b7c3d8e4f5a6b7c8d9e0f',
    code: 'VEHICLE_NOT_FOUND',
    message: trace,
    retryable: false,
    details: { note: 'caf\u00e9' },
    created_at: '2026-12-01T11:59:00Z',
  };
  const hosts = {
    released: { jsonrpc: '2.0', id: 'r1', error: { code: -32000, message: 'No listing matches that VIN.', data: payload } },
    '2.0': {
      jsonrpc: '2.0',
      id: 'r1',
      error: {
        code: -32000,
        message: 'No listing matches that VIN.',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'VEHICLE_NOT_FOUND',
            domain: 'autoagentprotocol.org',
            metadata: { code: 'VEHICLE_NOT_FOUND', error_id: payload.error_id, retryable: 'false', created_at: payload.created_at },
          },
          { '@type': 'https://autoagentprotocol.org/extensions/aap/error', ...payload },
        ],
      },
    },
  } as const;
  for (const form of ['released', '2.0'] as const) {
    it(`is cut by a byte splice and flagged (${form} form)`, () => {
      const host = hosts[form];
      // The host's own spelling of an untouched value: the escape must survive the splice.
      const text = JSON.stringify(host).replace('é', '\\u00e9');
      const { r, before, after } = run(JSON.parse(text) as Record<string, unknown>, ctx({ aapForm: form, endpointForm: form }));
      expect(before).toContain('aap.no-stack-trace');
      expect(r.changed).toBe(true);
      expect(r.conformance).toContain(REWRITE_RULES.stackTrace);
      const sent = spliceJson(text, r.item);
      expect(sent).not.toMatch(/\/srv\/dealer|at lookup/);
      expect(sent).toContain('"message":"No listing matches that VIN."');
      expect(sent).toContain('"note":"caf\\u00e9"');
      // Only the payload's message changed: the rest is the host's bytes.
      expect(sent).toBe(text.replace(JSON.stringify(trace), JSON.stringify('No listing matches that VIN.')));
      expect(after).toEqual([]);
    });
  }

  it('is only reported when rewriting is off', () => {
    const { r } = run(structuredClone(hosts['2.0']) as unknown as Record<string, unknown>, ctx({ mayRewrite: false }));
    expect(r.changed).toBe(false);
    expect(r.conformance).toContain(REWRITE_RULES.stackTrace);
  });
});

describe('a minted error_id', () => {
  it('goes into the typed payload and the AAP ErrorInfo, not an A2A ErrorInfo that comes first', () => {
    const host = {
      jsonrpc: '2.0',
      id: 'r1',
      error: {
        code: -32000,
        message: 'No listing matches that VIN.',
        data: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { hint: 'x' } },
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'VEHICLE_NOT_FOUND',
            domain: 'autoagentprotocol.org',
            metadata: { code: 'VEHICLE_NOT_FOUND', retryable: 'false', created_at: '2026-04-30T10:15:30Z' },
          },
          {
            '@type': 'https://autoagentprotocol.org/extensions/aap/error',
            type: 'aap.error',
            code: 'VEHICLE_NOT_FOUND',
            message: 'No listing matches that VIN.',
            retryable: false,
            created_at: '2026-04-30T10:15:30Z',
          },
        ],
      },
    };
    const { r, before, caused } = run(host);
    expect(before).toContain('aap.error-id-present');
    expect(r.minted).toBe(true);
    const id = r.outcome.ok ? null : r.outcome.error?.errorId;
    expect(id).toMatch(/^err_[0-9a-f]{32}$/);
    const [a2a, aapInfo, payload] = dataOf(r.item);
    expect(a2a?.metadata).toEqual({ hint: 'x' });
    expect(aapInfo?.metadata?.error_id).toBe(id);
    expect(payload?.error_id).toBe(id);
    expect(caused).toEqual([]);
  });

  it('goes into error.data of the released form', () => {
    const host = {
      jsonrpc: '2.0',
      id: 'r1',
      error: { code: -32000, message: 'Gone.', data: { type: 'aap.error', code: 'VEHICLE_UNAVAILABLE', message: 'Gone.', retryable: false, created_at: '2026-04-30T10:15:30Z' } },
    };
    const { r, caused } = run(host);
    expect((r.item.error as { data: { error_id: string } }).data.error_id).toMatch(/^err_/);
    expect(caused).toEqual([]);
  });
});

describe('an AapError promoted by the rewrite', () => {
  it("keeps the instance's created_at, not the time of the rewrite", () => {
    const store = new ExchangeErrors();
    const err = new AapError('VEHICLE_UNAVAILABLE', 'That vehicle was just sold.', { createdAt: '2026-04-30T10:15:30Z' });
    store.add(err);
    const { r, caused } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: err.message } }, ctx({ store }));
    expect(payloadOf(r.item)?.created_at).toBe('2026-04-30T10:15:30Z');
    expect(dataOf(r.item)[0]?.metadata?.created_at).toBe('2026-04-30T10:15:30Z');
    expect(caused).toEqual([]);
  });

  it.each(['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION'])(
    'gives a %s recovered from the message alone a details.errors[] entry',
    (code) => {
      const { r, after, caused } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: `${code}: filters.year_min must be an integer` } });
      const payload = payloadOf(r.item) as { details: { errors: Array<Record<string, string>> } };
      expect(payload.details.errors).toEqual([{ instanceLocation: '', keyword: expect.any(String), error: 'filters.year_min must be an integer' }]);
      expect(dataOf(r.item).some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')).toBe(true);
      expect(after).not.toContain('aap.validation-details');
      expect(caused).toEqual([]);
    },
  );

  it('keeps the failing fields of an AapError instance', () => {
    const store = new ExchangeErrors();
    const errors = [
      { instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' },
      { instanceLocation: '/filters/make', keyword: 'additionalProperties', error: 'unknown filter key' },
    ];
    const err = new AapError('SCHEMA_VALIDATION_FAILED', 'request failed validation with 2 errors', { details: { errors } });
    store.add(err);
    const { r, caused } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: err.message } }, ctx({ store }));
    expect((payloadOf(r.item) as { details: unknown }).details).toEqual({ errors });
    expect(caused).toEqual([]);
  });

  it('is written in the released form on a released endpoint', () => {
    const { r, caused, after } = run(
      { jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: 'RATE_LIMITED: Slow down.' } },
      ctx({ aapForm: 'released', endpointForm: 'released', store: storeWith(new AapError('RATE_LIMITED', 'Slow down.', { details: { retry_after_ms: 30000 } })) }),
    );
    const error = r.item.error as { code: number; data: Record<string, unknown> };
    expect(error.code).toBe(-32002);
    expect(Array.isArray(error.data)).toBe(false);
    expect(error.data).toMatchObject({ type: 'aap.error', code: 'RATE_LIMITED', retryable: true, details: { retry_after_ms: 30000 } });
    expect(after).not.toContain('aap.form-matches-endpoint');
    expect(caused).toEqual([]);
  });

  it('replaces a message naming a draft identifier by the code meaning, in message and payload', () => {
    const { r, after } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: 'VEHICLE_NOT_FOUND: see https://draft.autoagentprotocol.invalid/x' } });
    expect(r.changed).toBe(true);
    expect(JSON.stringify(r.item)).not.toContain('draft.autoagentprotocol.invalid');
    expect((r.item.error as { message: string }).message).toBe(AAP_CODES.VEHICLE_NOT_FOUND.meaning);
    expect(payloadOf(r.item)).toMatchObject({ code: 'VEHICLE_NOT_FOUND', message: AAP_CODES.VEHICLE_NOT_FOUND.meaning });
    expect(after).toEqual([]);
  });

  it('is not promoted when RATE_LIMITED has no retry hint: the rewrite invents no rate-limit value', () => {
    const host = { jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: 'RATE_LIMITED: slow down' } };
    const { r, caused } = run(host);
    const error = r.item.error as { code: number; message: string };
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('RATE_LIMITED: slow down');
    expect(r.conformance).toContain(REWRITE_RULES.aapErrorFlattened);
    expect(caused).toEqual([]);
  });
});

describe('every envelope the rewrite promotes', () => {
  // The promoted envelope replaces the host's error, so its own rules are not checked inside the
  // rewrite: this checks them here, for every current code, both forms, both paths (-32603 and a
  // FAILED task), with and without the instance, and messages carrying traces or draft URIs.
  const codes = Object.entries(AAP_CODES).filter(([, info]) => !info.legacy).map(([code]) => code as AapCode);
  const texts = ['Plain text.', 'see https://draft.autoagentprotocol.invalid/x', 'boom\n    at f (/srv/dealer/x.js:1:2)'];
  for (const form of ['2.0', 'released'] as const) {
    it(`passes checkConformance in the ${form} form`, () => {
      let promoted = 0;
      for (const code of codes) {
        for (const text of texts) {
          for (const withInstance of [false, true]) {
            const message = `${code}: ${text}`;
            const store = withInstance
              ? storeWith(new AapError(code, text.split('\n')[0]!.replace(/see .*/, 'see the listing'), code === 'RATE_LIMITED' ? { details: { retry_after_ms: 5000 } } : {}))
              : null;
            const c = ctx({ aapForm: form, endpointForm: form, store });
            const hosts = [
              { jsonrpc: '2.0', id: 'r1', error: { code: -32603, message } },
              { jsonrpc: '2.0', id: 'r1', result: { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'failed', message: { kind: 'message', role: 'agent', messageId: 'm1', parts: [{ kind: 'text', text: `Agent execution error: ${message}` }] } } } },
            ];
            for (const host of hosts) {
              const r = complete(structuredClone(host), AAP_CALL, c);
              if (!r.changed || !Object.hasOwn(r.item, 'error') || (r.item.error as { code: number }).code === -32603) continue;
              promoted += 1;
              expect(conformanceRuleIds(r.item, { family: 'aap', form }), `${code} / ${text} / ${withInstance}`).toEqual([]);
            }
          }
        }
      }
      expect(promoted).toBeGreaterThan(codes.length * 3);
    });
  }
});

describe('an earlier draft -32008 with the URI only in its metadata', () => {
  const draft = {
    jsonrpc: '2.0',
    id: 'r1',
    error: {
      code: -32008,
      message: 'Extension support required.',
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org', metadata: { extensionUri: URI_13 } }],
    },
  };

  it('gets the URI and A2A-Extensions in its message and requiredHeader in its metadata', () => {
    const { r, before, after, caused } = run(draft);
    expect(before).toEqual(expect.arrayContaining(['a2a.extension-required-message', 'a2a.extension-required-detail']));
    const error = r.item.error as { message: string; data: Entry[] };
    expect(error.message).toContain(URI_13);
    expect(error.message).toContain('A2A-Extensions');
    expect(error.data[0]?.metadata).toMatchObject({ extensionUri: URI_13, requiredHeader: 'A2A-Extensions' });
    expect(after.filter((x) => x.startsWith('a2a.extension-required'))).toEqual([]);
    expect(caused).toEqual([]);
  });

  it("keeps the host's URI over requiredExtensionUri, so message and metadata agree", () => {
    const { r, after } = run(draft, ctx({ requiredExtensionUri: 'https://autoagentprotocol.org/extensions/aap/v2.0' }));
    expect((r.item.error as { message: string }).message).toContain(URI_13);
    expect(after).not.toContain('a2a.extension-required-same-uri');
  });

  it('gets a whole ErrorInfo when it has none', () => {
    const { r, after, caused } = run({ jsonrpc: '2.0', id: 'r1', error: { code: -32008, message: `Client must declare support for required extensions: ${URI_13}` } });
    expect(dataOf(r.item)[0]).toMatchObject({ reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org', metadata: { extensionUri: URI_13, requiredHeader: 'A2A-Extensions' } });
    expect(after.filter((x) => x.startsWith('a2a.'))).toEqual([]);
    expect(caused).toEqual([]);
  });

  it('is only reported when rewriting is off', () => {
    const { r } = run(draft, ctx({ mayRewrite: false }));
    expect(r.changed).toBe(false);
    expect(r.conformance).toContain(REWRITE_RULES.bareActivationError);
  });
});

describe('an error_id the host put in one place only', () => {
  it('is copied from the typed payload into the AAP ErrorInfo metadata', () => {
    const host = {
      jsonrpc: '2.0',
      id: 'r1',
      error: {
        code: -32000,
        message: 'Gone.',
        data: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VEHICLE_UNAVAILABLE', domain: 'autoagentprotocol.org', metadata: { code: 'VEHICLE_UNAVAILABLE', retryable: 'false', created_at: '2026-04-30T10:15:30Z' } },
          { '@type': 'https://autoagentprotocol.org/extensions/aap/error', type: 'aap.error', error_id: 'err_host01', code: 'VEHICLE_UNAVAILABLE', message: 'Gone.', retryable: false, created_at: '2026-04-30T10:15:30Z' },
        ],
      },
    };
    const { r, before, after } = run(host);
    expect(before).toContain('aap.errorinfo-leads');
    expect(r.minted).toBe(false);
    expect(dataOf(r.item)[0]?.metadata?.error_id).toBe('err_host01');
    expect(after).toEqual([]);
  });
});
