/**
 * GenAI conventions behind the opt-in (issue 29): spans of a real @a2a-js/sdk server and of the
 * DMC-12 test server, exported by the real SDK to in-memory exporters, checked against the
 * server-span tables of open-telemetry/semantic-conventions-genai `docs/gen-ai/a2a.md` and
 * `docs/gen-ai/mcp.md` (copied below: names, requirement levels, span names, kinds, error.type
 * values) and the `mcp.server.operation.duration` metric of the MCP page. Without the opt-in
 * nothing of it appears. Caller values that fail their pattern are left out.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, defaultTextMapGetter, propagation, trace } from '@opentelemetry/api';
import { DataPointType, MeterProvider } from '@opentelemetry/sdk-metrics';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkOptions } from '../../src/instrument/options.js';
import { responseConventionFacts } from '../../src/instrument/genai-conventions.js';
import { classifyCall } from '../../src/protocol/parse-request.js';
import { post, sendMessageBody, startAapServer } from '../helpers/aap-server.js';
import type { AapServer } from '../helpers/aap-server.js';
import { DMC12_HEADERS, dmc12Listener, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { TestMetricReader } from '../helpers/otel.js';
import { captureSdkConsole } from '../helpers/sdk-console.js';
import { createHarness } from './harness.js';
import type { Harness } from './harness.js';

type Level = 'required' | 'conditionally_required' | 'recommended' | 'opt_in';

/** `docs/gen-ai/a2a.md`, "Server" span: every attribute and its requirement level. */
const A2A_SERVER_ATTRIBUTES: Readonly<Record<string, Level>> = {
  'a2a.method.name': 'required',
  'a2a.message.id': 'conditionally_required',
  'a2a.task.id': 'conditionally_required',
  'a2a.task.state': 'conditionally_required',
  'a2a.tenant': 'conditionally_required',
  'error.type': 'conditionally_required',
  'gen_ai.agent.description': 'conditionally_required',
  'gen_ai.agent.name': 'conditionally_required',
  'gen_ai.agent.version': 'conditionally_required',
  'gen_ai.conversation.id': 'conditionally_required',
  'a2a.message.reference_task_ids': 'recommended',
  'a2a.protocol.version': 'recommended',
  'client.address': 'recommended',
  'client.port': 'recommended',
  'server.address': 'recommended',
  'server.port': 'recommended',
};
/** `a2a.method.name` well-known values (the page's enum). */
const A2A_METHOD_NAMES = new Set([
  'CancelTask', 'CreateTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig', 'GetExtendedAgentCard', 'GetTask',
  'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'ListTasks', 'SendMessage', 'SendStreamingMessage', 'SubscribeToTask',
]);

/** `a2a.task.state` well-known values (the page's enum). */
const A2A_TASK_STATES = new Set([
  'TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED', 'TASK_STATE_SUBMITTED', 'TASK_STATE_UNSPECIFIED', 'TASK_STATE_WORKING',
]);
/** @a2a-js/sdk's A2A 1.0 `TaskState` numbers the test executor publishes (the SDK's enum). */
const STATE_INPUT_REQUIRED = 6;
const STATE_COMPLETED = 3;

/** `docs/gen-ai/mcp.md`, "Server" span. */
const MCP_SERVER_ATTRIBUTES: Readonly<Record<string, Level>> = {
  'mcp.method.name': 'required',
  'error.type': 'conditionally_required',
  'gen_ai.prompt.name': 'conditionally_required',
  'gen_ai.tool.name': 'conditionally_required',
  'jsonrpc.request.id': 'conditionally_required',
  'mcp.resource.uri': 'conditionally_required',
  'rpc.response.status_code': 'conditionally_required',
  'client.address': 'recommended',
  'client.port': 'recommended',
  'gen_ai.operation.name': 'recommended',
  'jsonrpc.protocol.version': 'recommended',
  'mcp.protocol.version': 'recommended',
  'mcp.session.id': 'recommended',
  'network.protocol.name': 'recommended',
  'network.protocol.version': 'recommended',
  'network.transport': 'recommended',
  'gen_ai.tool.call.arguments': 'opt_in',
  'gen_ai.tool.call.result': 'opt_in',
};

/** `docs/gen-ai/mcp.md`, metric `mcp.server.operation.duration`: attributes, unit, buckets. */
const MCP_METRIC_ATTRIBUTES = new Set([
  'mcp.method.name', 'error.type', 'gen_ai.prompt.name', 'gen_ai.tool.name', 'rpc.response.status_code', 'gen_ai.operation.name',
  'jsonrpc.protocol.version', 'mcp.protocol.version', 'network.protocol.name', 'network.protocol.version', 'network.transport', 'mcp.resource.uri',
]);
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Attribute namespaces only the conventions write: none of them may appear without the opt-in. */
const CONVENTION_PREFIXES = ['a2a.', 'gen_ai.', 'mcp.', 'network.', 'rpc.response.'];
const conventionKeys = (s: ReadableSpan): string[] => Object.keys(s.attributes).filter((k) => CONVENTION_PREFIXES.some((p) => k.startsWith(p)));

/** Every attribute of the span the page's table does not name must be one of ours (`aap.*`) or the RPC conventions'. */
function expectOnlyTableAttributes(span: ReadableSpan, table: Readonly<Record<string, Level>>): void {
  for (const key of conventionKeys(span)) expect(Object.hasOwn(table, key), `${key} is in the page's table`).toBe(true);
  for (const [key, level] of Object.entries(table)) if (level === 'required') expect(span.attributes[key], key).toBeDefined();
}

const hex = (n: number): string => randomBytes(n).toString('hex');
/** The DMC-12 test server's raw mode: it sends exactly this reply. */
const raw = (reply: unknown): string => Buffer.from(JSON.stringify(reply)).toString('base64');

describe('the opt-in', () => {
  it('reads OTEL_SEMCONV_STABILITY_OPT_IN as a comma-separated list, the option first', () => {
    const on = { OTEL_SEMCONV_STABILITY_OPT_IN: 'http/dup, gen_ai_latest_experimental ,database' };
    expect(checkOptions({}, on).genAiConventions).toBe(true);
    expect(checkOptions({}, { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' }).genAiConventions).toBe(true);
    expect(checkOptions({}, { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental_x,http' }).genAiConventions).toBe(false);
    expect(checkOptions({}, {}).genAiConventions).toBe(false);
    expect(checkOptions({ genAiConventions: false }, on).genAiConventions).toBe(false);
    expect(checkOptions({ genAiConventions: true }, {}).genAiConventions).toBe(true);
    expect(() => checkOptions({ genAiConventions: 'yes' })).toThrow(/option genAiConventions must be a boolean/);
  });
});

const sdkConsole = captureSdkConsole();
let on: Harness;
let off: Harness;
let offReader: TestMetricReader;
let aap: AapServer;
let aapOff: AapServer;
let dmc: Dmc12Server;
let dmcOff: Dmc12Server;

beforeAll(async () => {
  // The server's agent card is only known once it listens: a first server gives it.
  const probe = await startAapServer();
  const card = probe.card;
  await probe.close();
  on = createHarness({ genAiConventions: true, agentCard: card });
  offReader = new TestMetricReader();
  off = createHarness({ genAiConventions: false, meterProvider: new MeterProvider({ readers: [offReader] }) });
  aap = await startAapServer({ triage: on.triage });
  aapOff = await startAapServer({ triage: off.triage });
  dmc = await startDmc12Server(on.triage);
  dmcOff = await startDmc12Server(off.triage);
});
afterAll(async () => {
  await Promise.all([aap.close(), aapOff.close(), dmc.close(), dmcOff.close()]);
  await on.triage.shutdown();
  await off.triage.shutdown();
});

describe('without the opt-in', () => {
  it('names and attributes spans as before and records no MCP metric', async () => {
    await post(aapOff.rpcUrl, sendMessageBody('off-a2a', 'inventory.search'));
    await post(dmcOff.url, toolsCall('off-mcp', 'search_inventory'), { ...DMC12_HEADERS, 'mcp-session-id': hex(16) });
    const a = await off.span('off-a2a');
    const m = await off.span('off-mcp');
    expect(a.name).toBe('SendMessage');
    expect(m.name).toBe('tools/call');
    expect(conventionKeys(a)).toEqual([]);
    expect(conventionKeys(m)).toEqual([]);
    const { resourceMetrics } = await offReader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((x) => x.descriptor.name));
    expect(names).toContain('rpc.server.call.duration');
    expect(names).not.toContain('mcp.server.operation.duration');
  });
});

describe('A2A server span (docs/gen-ai/a2a.md)', () => {
  it('SendMessage: named {a2a.method.name}, kind SERVER, message, context, tenant and agent card attributes', async () => {
    const body = sendMessageBody('a2a-ok', 'inventory.search');
    const message = (body.params as { message: Record<string, unknown> }).message;
    const contextId = `ctx-${hex(8)}`;
    const ref = `task-${hex(8)}`;
    Object.assign(message, { contextId, referenceTaskIds: [ref, 'jane.doe@example.com'] });
    (body.params as Record<string, unknown>).tenant = 'billing';
    // The SDK warns on the console about each reference task its store does not hold.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const res = await post(aap.rpcUrl, body);
      expect(res.status).toBe(200);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([`Reference task ${ref} not found.`, 'Reference task jane.doe@example.com not found.']);
    } finally {
      warn.mockRestore();
    }
    const span = await on.span('a2a-ok');
    expect(span.name).toBe('SendMessage');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.message.id': message.messageId,
      'gen_ai.conversation.id': contextId,
      'a2a.message.reference_task_ids': [ref],
      'a2a.tenant': 'billing',
      'a2a.protocol.version': '1.0',
      'gen_ai.agent.name': aap.card.name,
      'gen_ai.agent.description': aap.card.description,
      'gen_ai.agent.version': aap.card.version,
    });
    expect(A2A_METHOD_NAMES.has(span.attributes['a2a.method.name'] as string)).toBe(true);
    expect(span.attributes['error.type']).toBeUndefined();
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('GetTask of an unknown task: a2a.task.id from the request, error.type the JSON-RPC code, status ERROR', async () => {
    const taskId = randomUUID();
    await post(aap.rpcUrl, { jsonrpc: '2.0', id: 'a2a-get', method: 'GetTask', params: { id: taskId } });
    const span = await on.span('a2a-get');
    expect(span.name).toBe('GetTask');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['a2a.task.id']).toBe(taskId);
    // a2a.md: error.type "SHOULD be set to the string representation of the JSON-RPC error code".
    expect(span.attributes['error.type']).toBe(String(span.attributes['rpc.status_code']));
    expect(span.attributes['error.type']).toMatch(/^-32\d{3}$/);
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('an AAP error the executor throws: error.type the JSON-RPC code of the error member', async () => {
    await post(aap.rpcUrl, sendMessageBody('a2a-err', 'inventory.vehicle', { fail: 'VEHICLE_UNAVAILABLE' }));
    const span = await on.span('a2a-err');
    expect(sdkConsole.lines).toHaveLength(1);
    expect(span.name).toBe('SendMessage');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe(String(span.attributes['rpc.status_code']));
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('a v0.3 method is named by its A2A operation, with a2a.protocol.version 0.3', async () => {
    await post(aap.rpcUrl, { jsonrpc: '2.0', id: 'a2a-v03', method: 'tasks/get', params: { id: randomUUID() } });
    const span = await on.span('a2a-v03');
    expect(span.name).toBe('GetTask');
    expect(span.attributes).toMatchObject({ 'a2a.method.name': 'GetTask', 'a2a.protocol.version': '0.3', 'rpc.method': 'tasks/get' });
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('a task result: a2a.task.state, a2a.task.id and gen_ai.conversation.id from the response (the request named none)', async () => {
    const res = await post(aap.rpcUrl, sendMessageBody('a2a-task', 'inventory.search', { taskState: STATE_INPUT_REQUIRED }));
    const task = (res.json as { result: { task: { id: string; contextId: string; status: { state: string } } } }).result.task;
    // The wire spelling is the A2A 1.0 name, the page's value as is.
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const span = await on.span('a2a-task');
    expect(span.name).toBe('SendMessage');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({ 'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED', 'a2a.task.id': task.id, 'gen_ai.conversation.id': task.contextId });
    expect(A2A_TASK_STATES.has(span.attributes['a2a.task.state'] as string)).toBe(true);
    expect(span.attributes['error.type']).toBeUndefined();
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);

    // GetTask of that task: its id from the request, its state from the response.
    await post(aap.rpcUrl, { jsonrpc: '2.0', id: 'a2a-get-known', method: 'GetTask', params: { id: task.id } });
    const get = await on.span('a2a-get-known');
    expect(get.status.code).toBe(SpanStatusCode.UNSET);
    expect(get.attributes).toMatchObject({ 'a2a.method.name': 'GetTask', 'a2a.task.id': task.id, 'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED', 'gen_ai.conversation.id': task.contextId });
  });

  it('a message result: gen_ai.conversation.id from the response, no task id or state', async () => {
    const res = await post(aap.rpcUrl, sendMessageBody('a2a-msg', 'inventory.search'));
    const message = (res.json as { result: { message: { contextId: string } } }).result.message;
    expect(message.contextId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const span = await on.span('a2a-msg');
    expect(span.attributes['gen_ai.conversation.id']).toBe(message.contextId);
    expect(span.attributes['a2a.task.id']).toBeUndefined();
    expect(span.attributes['a2a.task.state']).toBeUndefined();
  });

  it('a rejected task: a2a.task.state TASK_STATE_REJECTED next to the error the record reads', async () => {
    const res = await post(aap.rpcUrl, sendMessageBody('a2a-reject', 'inventory.search', { reject: true }));
    const task = (res.json as { result: { task: { id: string; contextId: string; status: { state: string } } } }).result.task;
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    const span = await on.span('a2a-reject');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'a2a.task.state': 'TASK_STATE_REJECTED', 'a2a.task.id': task.id, 'gen_ai.conversation.id': task.contextId, 'error.type': 'TASK_REJECTED' });
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('SendStreamingMessage: the state the stream ended in, the ids of its first frame', async () => {
    const res = await post(aap.rpcUrl, sendMessageBody('a2a-stream', 'inventory.search', { taskState: STATE_COMPLETED }, 'SendStreamingMessage'));
    const frames = res.text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => (JSON.parse(l.slice('data: '.length)) as { result: Record<string, { id?: string; taskId?: string; contextId: string; status: { state: string } }> }).result);
    expect(frames.map((f) => Object.keys(f)[0])).toEqual(['task', 'statusUpdate']);
    const first = frames[0]?.task;
    const last = frames[1]?.statusUpdate;
    expect([first?.status.state, last?.status.state]).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_COMPLETED']);
    const span = await on.span('a2a-stream');
    expect(span.name).toBe('SendStreamingMessage');
    expect(span.attributes).toMatchObject({ 'a2a.task.state': 'TASK_STATE_COMPLETED', 'a2a.task.id': first?.id, 'gen_ai.conversation.id': first?.contextId });
    expectOnlyTableAttributes(span, A2A_SERVER_ATTRIBUTES);
  });

  it('leaves out a message id, context id, task id or tenant that fails its pattern', async () => {
    const body = sendMessageBody('a2a-pii', 'inventory.search');
    Object.assign((body.params as { message: Record<string, unknown> }).message, {
      messageId: 'jane.doe@example.com',
      contextId: '+15555550123',
      taskId: '1HGCM82633A004352',
      referenceTaskIds: ['Jane Doe'],
    });
    (body.params as Record<string, unknown>).tenant = 'Jane.Doe@Example.com';
    await post(aap.rpcUrl, body);
    const span = await on.span('a2a-pii');
    expect(span.name).toBe('SendMessage');
    for (const key of ['a2a.message.id', 'gen_ai.conversation.id', 'a2a.task.id', 'a2a.tenant', 'a2a.message.reference_task_ids']) {
      expect(span.attributes[key], key).toBeUndefined();
    }
    expect(span.attributes['a2a.method.name']).toBe('SendMessage');
  });
});

describe('what is read of a reply (responseConventionFacts)', () => {
  const call = (method: string) => classifyCall({ jsonrpc: '2.0', id: 1, method, params: {} });
  const uuid = randomUUID();

  it('maps every A2A 0.3 task state to its TASK_STATE_* name (unknown is UNSPECIFIED, as @a2a-js/sdk maps it) and keeps 1.0 names', () => {
    const v03: Record<string, string> = {
      submitted: 'TASK_STATE_SUBMITTED', working: 'TASK_STATE_WORKING', 'input-required': 'TASK_STATE_INPUT_REQUIRED', 'auth-required': 'TASK_STATE_AUTH_REQUIRED',
      completed: 'TASK_STATE_COMPLETED', canceled: 'TASK_STATE_CANCELED', failed: 'TASK_STATE_FAILED', rejected: 'TASK_STATE_REJECTED', unknown: 'TASK_STATE_UNSPECIFIED',
    };
    for (const [wire, name] of Object.entries(v03)) {
      // A2A 0.3 returns the task itself (`kind: "task"`).
      const facts = responseConventionFacts({ jsonrpc: '2.0', id: 1, result: { kind: 'task', id: uuid, contextId: uuid, status: { state: wire } } }, call('message/send'));
      expect(facts, wire).toEqual({ taskId: uuid, contextId: uuid, taskState: name, toolError: false });
    }
    for (const name of A2A_TASK_STATES) {
      expect(responseConventionFacts({ jsonrpc: '2.0', id: 1, result: { task: { id: uuid, contextId: uuid, status: { state: name } } } }, call('SendMessage'))?.taskState).toBe(name);
    }
  });

  it('leaves out a state outside the allow-list and ids that fail their pattern; reads nothing of other methods', () => {
    const hostile = { jsonrpc: '2.0', id: 1, result: { task: { id: 'Jane Doe', contextId: 'jane.doe@example.com', status: { state: 'jane.doe@example.com' } } } };
    expect(responseConventionFacts(hostile, call('SendMessage'))).toBeNull();
    expect(responseConventionFacts({ jsonrpc: '2.0', id: 1, result: { statusUpdate: { taskId: '+15555550123', contextId: uuid, status: { state: 'TASK_STATE_Working' } } } }, call('SendStreamingMessage'))).toEqual({
      taskId: null, contextId: uuid, taskState: null, toolError: false,
    });
    const task = { jsonrpc: '2.0', id: 1, result: { id: uuid, contextId: uuid, status: { state: 'working' }, isError: true } };
    expect(responseConventionFacts(task, call('tools/list'))).toBeNull();
    expect(responseConventionFacts(task, null)).toBeNull();
    expect(responseConventionFacts({ jsonrpc: '2.0', id: 1, result: { isError: 'true' } }, call('tools/call'))).toBeNull();
    expect(responseConventionFacts({ jsonrpc: '2.0', id: 1, result: { content: [], isError: true } }, call('tools/call'))?.toolError).toBe(true);
  });
});

describe('MCP server span and metric (docs/gen-ai/mcp.md)', () => {
  const session = hex(16);
  const mcpHeaders = { ...DMC12_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };

  it('tools/call: named `tools/call <tool>`, kind SERVER, execute_tool, the session and protocol version', async () => {
    await post(dmc.url, toolsCall('mcp-ok', 'search_inventory'), mcpHeaders);
    const span = await on.span('mcp-ok');
    expect(span.name).toBe('tools/call search_inventory');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_inventory',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': 'mcp-ok',
      'mcp.session.id': session,
      'mcp.protocol.version': '2025-06-18',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'network.transport': 'tcp',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expectOnlyTableAttributes(span, MCP_SERVER_ATTRIBUTES);
  });

  it('a tool outside the allow-list: named `tools/call`, no gen_ai.tool.name', async () => {
    await post(dmc.url, toolsCall('mcp-unknown', 'jane_doe_private_tool'), mcpHeaders);
    const span = await on.span('mcp-unknown');
    expect(span.name).toBe('tools/call');
    expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(span.attributes['mcp.method.name']).toBe('tools/call');
    expectOnlyTableAttributes(span, MCP_SERVER_ATTRIBUTES);
  });

  it('an error inside a successful result: error.type its low-cardinality code, no rpc.response.status_code, status ERROR', async () => {
    await post(dmc.url, toolsCall('mcp-result-err', 'create_reservation', { fail: 'RESERVATION_CONFLICT' }), mcpHeaders);
    const span = await on.span('mcp-result-err');
    expect(span.name).toBe('tools/call create_reservation');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('RESERVATION_CONFLICT');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expectOnlyTableAttributes(span, MCP_SERVER_ATTRIBUTES);
  });

  it('a JSON-RPC error: error.type and rpc.response.status_code the code as a string', async () => {
    await post(dmc.url, toolsCall('mcp-rpc-err', 'search_inventory'), { 'content-type': 'application/json', 'mcp-session-id': session });
    const span = await on.span('mcp-rpc-err');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('-32001');
    expect(span.attributes['rpc.response.status_code']).toBe('-32001');
    expectOnlyTableAttributes(span, MCP_SERVER_ATTRIBUTES);
  });

  it('leaves out a session id or protocol version that fails its pattern, and gives tools/list no MCP attributes', async () => {
    await post(dmc.url, toolsCall('mcp-pii', 'search_inventory'), { ...DMC12_HEADERS, 'mcp-session-id': 'jane.doe@example.com', 'mcp-protocol-version': '+15555550123' });
    const span = await on.span('mcp-pii');
    expect(span.attributes['mcp.session.id']).toBeUndefined();
    expect(span.attributes['mcp.protocol.version']).toBeUndefined();
    await post(dmc.url, { jsonrpc: '2.0', id: 'mcp-list', method: 'tools/list' }, mcpHeaders);
    const list = await on.span('mcp-list');
    expect(list.name).toBe('tools/list');
    expect(conventionKeys(list)).toEqual([]);
  });

  it('a CallToolResult with isError: true and no error object: error.type tool_error, status ERROR, no audit row', async () => {
    const reply = { jsonrpc: '2.0', id: 'mcp-tool-error', result: { content: [{ type: 'text', text: 'the tool failed' }], isError: true } };
    const rows = on.sink.events.length;
    const res = await post(dmc.url, toolsCall('mcp-tool-error', 'search_inventory'), { ...mcpHeaders, 'x-test-raw-response': raw(reply) });
    expect(res.json).toEqual(reply);
    const span = await on.span('mcp-tool-error');
    expect(span.name).toBe('tools/call search_inventory');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message ?? '').toBe('');
    // mcp.md, error.type note: "When CallToolResult is returned with isError set to true, this attribute SHOULD be set to tool_error".
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    // Not an error of either protocol's error model: no default-mode error attributes, no row.
    expect(span.attributes['aap.error.code']).toBeUndefined();
    expect(span.attributes['rpc.status_code']).toBeUndefined();
    expect(on.sink.events.length).toBe(rows);
    expectOnlyTableAttributes(span, MCP_SERVER_ATTRIBUTES);
  });

  it('isError: true with a DMC-12 error object: error.type the DMC-12 code', async () => {
    const reply = { jsonrpc: '2.0', id: 'mcp-tool-error-dmc', result: { isError: true, data: { error: 'reservation_conflict', message: 'held', error_code: 'RESERVATION_CONFLICT', retryable: false, error_id: `err_${hex(16)}` } } };
    await post(dmc.url, toolsCall('mcp-tool-error-dmc', 'create_reservation'), { ...mcpHeaders, 'x-test-raw-response': raw(reply) });
    const span = await on.span('mcp-tool-error-dmc');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('RESERVATION_CONFLICT');
    expect(span.attributes['aap.error.code']).toBe('RESERVATION_CONFLICT');
  });

  it('without the opt-in an isError result stays a success, as before', async () => {
    const reply = { jsonrpc: '2.0', id: 'mcp-tool-error-off', result: { content: [], isError: true } };
    await post(dmcOff.url, toolsCall('mcp-tool-error-off', 'search_inventory'), { ...mcpHeaders, 'x-test-raw-response': raw(reply) });
    const span = await off.span('mcp-tool-error-off');
    expect(span.name).toBe('tools/call');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['error.type']).toBeUndefined();
    expect(conventionKeys(span)).toEqual([]);
  });

  it('records mcp.server.operation.duration in seconds with the page\'s buckets and attributes, never the session', async () => {
    const m = (await on.otel.metrics()).get('mcp.server.operation.duration');
    expect(m).toBeDefined();
    expect(m?.descriptor.unit).toBe('s');
    expect(m?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = m?.dataPoints ?? [];
    for (const p of points) {
      for (const key of Object.keys(p.attributes)) expect(MCP_METRIC_ATTRIBUTES.has(key), key).toBe(true);
      expect(p.attributes['mcp.method.name']).toBe('tools/call');
      expect((p.value as Histogram).buckets.boundaries).toEqual(MCP_BUCKETS);
    }
    const ok = points.find((p) => p.attributes['gen_ai.tool.name'] === 'search_inventory' && p.attributes['error.type'] === undefined);
    expect(ok?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': '2025-06-18', 'network.transport': 'tcp' });
    const conflict = points.find((p) => p.attributes['error.type'] === 'RESERVATION_CONFLICT' && p.attributes['gen_ai.tool.name'] === 'create_reservation');
    expect((conflict?.value as Histogram | undefined)?.count).toBe(2);
    const toolError = points.find((p) => p.attributes['error.type'] === 'tool_error');
    expect(toolError?.attributes).toMatchObject({ 'gen_ai.tool.name': 'search_inventory', 'mcp.method.name': 'tools/call' });
    expect(toolError?.attributes['rpc.response.status_code']).toBeUndefined();
    expect((toolError?.value as Histogram | undefined)?.count).toBe(1);
    // Only tools/call is recorded: tools/list (above) is not.
    expect(points.every((p) => p.attributes['mcp.method.name'] === 'tools/call')).toBe(true);
  });
});

describe('trace context in params._meta (mcp.md "Context propagation")', () => {
  const traceId = hex(16);
  const parentId = hex(8);
  const traceparent = `00-${traceId}-${parentId}-01`;

  it('uses params._meta\'s traceparent as the parent of the tools/call span; its tracestate and baggage are not carried', async () => {
    const tracestate = 'rojo=00f067aa0ba902b7,congo=jane.doe@example.com';
    // The tracestate is valid W3C: the SDK's own propagator would carry both members.
    const carried = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent, tracestate }, defaultTextMapGetter))?.traceState;
    expect([carried?.get('rojo'), carried?.get('congo')]).toEqual(['00f067aa0ba902b7', 'jane.doe@example.com']);
    const body = toolsCall('meta-1', 'search_inventory');
    (body.params as Record<string, unknown>)._meta = { traceparent, tracestate, baggage: 'user=jane.doe@example.com' };
    await post(dmc.url, body, DMC12_HEADERS);
    const span = await on.span('meta-1');
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(parentId);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.spanContext().traceFlags).toBe(1);
    // Caller text the exporters would send (OTLP trace_state) and outgoing requests would carry.
    expect(span.spanContext().traceState?.serialize() ?? '').toBe('');
    expect(span.parentSpanContext?.traceState?.serialize() ?? '').toBe('');
    expect(span.links).toEqual([]);
  });

  it('ignores a traceparent that is not W3C', async () => {
    const body = toolsCall('meta-bad', 'search_inventory');
    (body.params as Record<string, unknown>)._meta = { traceparent: `00-${'0'.repeat(32)}-${parentId}-01` };
    await post(dmc.url, body, DMC12_HEADERS);
    const span = await on.span('meta-bad');
    expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('under an ambient server span: a span of its own under the _meta parent, linked to the ambient span', async () => {
    // The transport's server span, as the HTTP instrumentation would make it, active around the handler.
    const tracer = on.otel.tracerProvider.getTracer('test-transport');
    const wrapped = on.triage.wrap(dmc12Listener);
    const server = createServer((req, res) => {
      const span = tracer.startSpan('POST', { kind: SpanKind.SERVER });
      res.on('finish', () => span.end());
      context.with(trace.setSpan(context.active(), span), () => wrapped(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const body = toolsCall('meta-ambient', 'search_inventory');
      (body.params as Record<string, unknown>)._meta = { traceparent };
      await post(url, body, DMC12_HEADERS);
      const span = await on.span('meta-ambient');
      expect(span.name).toBe('tools/call search_inventory');
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(parentId);
      const transport = on.otel.spans().find((s) => s.name === 'POST' && s.instrumentationScope.name === 'test-transport');
      expect(transport).toBeDefined();
      expect(span.links.map((l) => l.context.spanId)).toEqual([transport?.spanContext().spanId]);
      // The transport span is left as it is: not renamed, no call attributes.
      expect(transport?.attributes['rpc.method']).toBeUndefined();

      // Without _meta, the single call is recorded on the ambient span, as before.
      await post(url, toolsCall('no-meta-ambient', 'search_inventory'), DMC12_HEADERS);
      const adopted = await on.span('no-meta-ambient');
      expect(adopted.instrumentationScope.name).toBe('test-transport');
      expect(adopted.name).toBe('tools/call search_inventory');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

