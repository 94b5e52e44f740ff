import { describe, expect, it } from 'vitest';
import {
  type BatchMatch,
  type RequestCall,
  buildAapError,
  buildDmc12Error,
  classifyRequest,
  errorResponse,
  isParseFailure,
  matchBatch,
  successResponse,
} from '../../src/protocol/index.js';

const send = (id: unknown, type: string) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'SendMessage',
  params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { type } }] } },
});
const tool = (id: unknown, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { vin: '1HGCY2F57RA000001' } } });

function calls(body: unknown): RequestCall[] {
  const r = classifyRequest(body);
  expect(isParseFailure(r)).toBe(false);
  return r as RequestCall[];
}

function match(req: unknown, res: unknown): BatchMatch {
  const r = matchBatch(req, res);
  expect(isParseFailure(r), JSON.stringify(r)).toBe(false);
  return r as BatchMatch;
}

describe('classifyRequest', () => {
  it('names the AAP skill from parts[0].data.type without ".request" and the DMC-12 tool from params.name', () => {
    const body = JSON.stringify([send('a', 'inventory.search.request'), tool(7, 'create_reservation'), send(undefined, 'lead.submit.request')]);
    const [aap, dmc, note] = calls(body);
    expect(aap).toMatchObject({ id: 'a', method: 'SendMessage', isNotification: false, family: 'aap', skill: 'inventory.search' });
    expect(dmc).toMatchObject({ id: 7, method: 'tools/call', isNotification: false, family: 'dmc12', skill: 'create_reservation' });
    expect(dmc!.params).toEqual({ name: 'create_reservation', arguments: { vin: '1HGCY2F57RA000001' } });
    expect(note).toMatchObject({ id: null, isNotification: true, skill: 'lead.submit' });
  });

  it('treats an explicit null id as a call, not a notification, and copes with odd calls', () => {
    expect(calls({ jsonrpc: '2.0', id: null, method: 'GetTask', params: { id: 't' } })[0]).toMatchObject({
      id: null,
      isNotification: false,
      family: 'aap',
      skill: null,
    });
    expect(calls([{ id: 1 }, 5])).toEqual([
      { id: 1, method: null, isNotification: false, family: null, skill: null, params: undefined },
      { id: null, method: null, isNotification: true, family: null, skill: null, params: undefined },
    ]);
    expect(calls(send(1, 'dealer.information'))[0]!.skill).toBe('dealer.information');
    expect(calls({ id: 1, method: 'SendMessage', params: { message: { parts: [] } } })[0]!.skill).toBeNull();
  });
});

describe('matchBatch', () => {
  it('pairs replies with calls by id, not by position, and leaves notifications out', () => {
    const req = [send(1, 'inventory.search.request'), send('1', 'lead.submit.request'), send(undefined, 'dealer.information.request'), tool(3, 'search_inventory')];
    const res = [
      successResponse(3, buildDmc12Error('RATE_LIMITED', { tool: 'search_inventory' })),
      errorResponse('1', buildAapError('CONTACT_CONSENT_REQUIRED', { form: '2.0', message: 'Consent needed.' })),
      successResponse(1, { message: { parts: [] } }),
    ];
    const m = match(JSON.stringify(req), JSON.stringify(res));
    expect(m.notifications).toBe(1);
    expect(m.unmatched).toEqual([]);
    expect(m.calls.map((c) => [c.request.id, c.request.skill, c.outcome?.ok, c.outcome?.error?.code ?? null])).toEqual([
      [1, 'inventory.search', true, null],
      ['1', 'lead.submit', false, 'CONTACT_CONSENT_REQUIRED'],
      [3, 'search_inventory', false, 'RATE_LIMITED'],
    ]);
  });

  it('leaves a call without a reply as null and a reply without a call as unmatched', () => {
    const m = match([send(1, 'a.request'), send(2, 'b.request')], [successResponse(2, {}), successResponse(9, {})]);
    expect(m.calls.map((c) => c.outcome)).toEqual([null, { id: 2, ok: true }]);
    expect(m.unmatched).toEqual([{ id: 9, ok: true }]);
  });

  it('pairs duplicate ids in order', () => {
    const m = match([tool(1, 'a'), tool(1, 'b')], [errorResponse(1, { code: -32602, message: 'x' }), successResponse(1, {})]);
    expect(m.calls.map((c) => [c.request.skill, c.outcome?.ok])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('reads each reply with its call family: -32001 is an auth failure on DMC-12, TASK_NOT_FOUND on A2A', () => {
    const req = [tool('d', 'create_reservation'), { jsonrpc: '2.0', id: 'g', method: 'GetTask', params: { id: 'x' } }];
    const res = [errorResponse('g', { code: -32001, message: 'Task not found' }), errorResponse('d', { code: -32001, message: 'Unauthorized' })];
    const m = match(req, res);
    expect(m.calls.map((c) => [c.request.id, c.outcome?.error?.protocol, c.outcome?.error?.code])).toEqual([
      ['d', 'dmc12', '-32001'],
      ['g', 'a2a', 'TASK_NOT_FOUND'],
    ]);
  });

  it('pairs a single call with a single id-null reply (parse error), but not a batch', () => {
    const parseError = errorResponse(null, { code: -32700, message: 'Invalid JSON payload.' });
    expect(match(send(1, 'x.request'), parseError).calls[0]!.outcome?.error?.code).toBe('-32700');
    const batch = match([send(1, 'x.request'), send(2, 'y.request')], parseError);
    expect(batch.calls.every((c) => c.outcome === null)).toBe(true);
    expect(batch.unmatched).toHaveLength(1);
  });

  it('says which body was unreadable', () => {
    const bad = matchBatch('{"id":1', successResponse(1, {}));
    expect(isParseFailure(bad) && bad.parseError).toMatchObject({ code: 'truncated', message: expect.stringMatching(/^request: /) });
    const bad2 = matchBatch(send(1, 'x.request'), Buffer.from([0xff]));
    expect(isParseFailure(bad2) && bad2.parseError).toMatchObject({ code: 'invalid-utf8', message: expect.stringMatching(/^response: /) });
  });
});
