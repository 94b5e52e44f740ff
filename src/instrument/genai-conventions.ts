/**
 * OpenTelemetry's GenAI conventions for the two protocols we observe, behind the opt-in (issue 29,
 * `genAiConventions` / `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`):
 * open-telemetry/semantic-conventions-genai `docs/gen-ai/a2a.md` (A2A server span) and
 * `docs/gen-ai/mcp.md` (MCP server span, `mcp.server.operation.duration`, `params._meta` context).
 * Both pages are in Development status.
 *
 * Everything here runs only with the opt-in: the record asks for {@link conventionsOf} behind one
 * boolean, the exchange for {@link metaParent} and, per reply, {@link responseConventionFacts}
 * (a success body is parsed only then, and only when {@link mayHoldResponseFacts} says it can
 * hold one of those few fields). Every value from the caller passes a pattern or
 * allow-list (src/protocol/value-patterns.ts) or is left out; the agent card's name, description
 * and version are the dealer's own (the `agentCard` option).
 */
import { ROOT_CONTEXT, defaultTextMapGetter, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { Attributes, Context } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import { isObject, own, ownObject, ownString } from '../protocol/extract.js';
import type { RequestCall } from '../protocol/parse-request.js';
import { A2A_OPERATIONS } from '../protocol/skills.js';
import type { A2aRpcMethod } from '../protocol/skills.js';
import type { JsonObject } from '../protocol/extract.js';
import { safeMcpProtocolVersion, safeOpaqueId, safeTaskState, safeTenant } from '../protocol/value-patterns.js';
import {
  ATTR_A2A_MESSAGE_ID,
  ATTR_A2A_MESSAGE_REFERENCE_TASK_IDS,
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_PROTOCOL_VERSION,
  ATTR_A2A_TASK_ID,
  ATTR_A2A_TASK_STATE,
  ATTR_A2A_TENANT,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_DESCRIPTION,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_VERSION,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  RPC_METHOD_OTHER,
} from './attributes.js';
import type { Settings } from './options.js';

/** The MCP method DMC-12 calls its tools with, the only one given the MCP conventions (issue 29). */
export const MCP_TOOLS_CALL = 'tools/call';

/**
 * `error.type` of a `CallToolResult` with `isError: true` and no error code of its own (mcp.md,
 * `error.type` note: "SHOULD be set to `tool_error`").
 */
export const MCP_TOOL_ERROR = 'tool_error';

/** What the conventions add to one call's record: the span's name and attributes, and the MCP metric's labels. */
export interface ConventionFacts {
  /** `{a2a.method.name}`, or `tools/call <tool>` (`tools/call` when the tool is not allow-listed). */
  spanName: string;
  /** Attributes set on the span with the others at its end (bounded values only). */
  attributes: Attributes;
  /** Labels of `mcp.server.operation.duration` for a `tools/call`, else null (no A2A metric is defined). */
  mcpMetric: Attributes | null;
  /**
   * The call failed by the conventions only (an MCP tool result with `isError: true`, `tool_error`):
   * the span's status is ERROR though the record holds no error (no row, no error metric).
   */
  failed: boolean;
}

/**
 * What the conventions read of one reply's `result` (opt-in only), every value bounded: the task
 * id and `contextId` a response carries, the task state, and an MCP tool result's `isError`.
 */
export interface ResponseConventionFacts {
  /** The task the response is scoped to (a task's `id`, a message's or update's `taskId`), when it passes `safeOpaqueId`. */
  taskId: string | null;
  /** The response's `contextId`, when it passes `safeOpaqueId`. */
  contextId: string | null;
  /** `a2a.task.state`: the task's `status.state` as its `TASK_STATE_*` name (allow-list), else null. */
  taskState: string | null;
  /** A `tools/call` result with `isError: true`. */
  toolError: boolean;
}

/** What the conventions read of the exchange's HTTP request, once per exchange (bounded already). */
export interface RequestConventionFacts {
  /** `Mcp-Session-Id` when it passes `safeOpaqueId`, else null. */
  mcpSessionId: string | null;
  /** `MCP-Protocol-Version` when it is a known MCP revision, else null. */
  mcpProtocolVersion: string | null;
  /** `network.protocol.version` of the HTTP request (`1.1`, `2`), or null for another value. */
  httpVersion: string | null;
}

const HTTP_VERSIONS: Readonly<Record<string, string>> = { '1.0': '1.0', '1.1': '1.1', '2.0': '2', '2': '2' };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The request facts of one exchange (see {@link RequestConventionFacts}). */
export function requestConventionFacts(headers: IncomingHttpHeaders, httpVersion: string | undefined): RequestConventionFacts {
  return {
    mcpSessionId: safeOpaqueId(header(headers, 'mcp-session-id')),
    mcpProtocolVersion: safeMcpProtocolVersion(header(headers, 'mcp-protocol-version')),
    httpVersion: (httpVersion !== undefined && HTTP_VERSIONS[httpVersion]) || null,
  };
}

/** Longest agent-card text copied to `gen_ai.agent.*`: the card is the dealer's, but a span is not a document. */
const MAX_AGENT_TEXT = 1024;
const agentCache = new WeakMap<Settings, Attributes>();

/** `gen_ai.agent.name` / `.description` / `.version` from the `agentCard` option, computed once per settings. */
function agentAttributes(settings: Settings): Attributes {
  let a = agentCache.get(settings);
  if (a) return a;
  a = {};
  const card = settings.agentCard;
  for (const [key, attr] of [
    ['name', ATTR_GEN_AI_AGENT_NAME],
    ['description', ATTR_GEN_AI_AGENT_DESCRIPTION],
    ['version', ATTR_GEN_AI_AGENT_VERSION],
  ] as const) {
    const v = ownString(card, key);
    if (v !== null && v !== '') a[attr] = v.length > MAX_AGENT_TEXT ? v.slice(0, MAX_AGENT_TEXT) : v;
  }
  Object.freeze(a);
  agentCache.set(settings, a);
  return a;
}

/** Most referenced task ids kept on `a2a.message.reference_task_ids`. */
const MAX_REFERENCE_TASK_IDS = 16;

function a2aFacts(method: A2aRpcMethod, call: RequestCall, settings: Settings, res: ResponseConventionFacts | null): ConventionFacts {
  const op = A2A_OPERATIONS[method];
  const a: Attributes = { [ATTR_A2A_METHOD_NAME]: op.operation, [ATTR_A2A_PROTOCOL_VERSION]: op.version, ...agentAttributes(settings) };
  const params = call.params;
  const tenant = safeTenant(own(params, 'tenant'));
  if (tenant !== null) a[ATTR_A2A_TENANT] = tenant;
  const message = ownObject(params, 'message');
  let taskId: unknown = op.taskIdField === null ? undefined : own(params, op.taskIdField);
  if (message) {
    const messageId = safeOpaqueId(own(message, 'messageId'));
    if (messageId !== null) a[ATTR_A2A_MESSAGE_ID] = messageId;
    const contextId = safeOpaqueId(own(message, 'contextId'));
    if (contextId !== null) a[ATTR_GEN_AI_CONVERSATION_ID] = contextId;
    taskId = own(message, 'taskId');
    const refs = own(message, 'referenceTaskIds');
    if (Array.isArray(refs)) {
      const safe = refs
        .slice(0, MAX_REFERENCE_TASK_IDS)
        .map(safeOpaqueId)
        .filter((v): v is string => v !== null);
      if (safe.length > 0) a[ATTR_A2A_MESSAGE_REFERENCE_TASK_IDS] = safe;
    }
  }
  // The request's ids first: a response names the same task and context, or the ones the server
  // assigned when the request named none.
  const task = safeOpaqueId(taskId) ?? res?.taskId ?? null;
  if (task !== null) a[ATTR_A2A_TASK_ID] = task;
  if (a[ATTR_GEN_AI_CONVERSATION_ID] === undefined && res?.contextId) a[ATTR_GEN_AI_CONVERSATION_ID] = res.contextId;
  if (res?.taskState) a[ATTR_A2A_TASK_STATE] = res.taskState;
  return { spanName: op.operation, attributes: a, mcpMetric: null, failed: false };
}

/** The bounded outcome fields of a record the MCP span and metric copy. */
interface McpOutcome {
  skill: string | null;
  errorType: string | null;
  statusCode: string | null;
}

/**
 * MCP label sets, built once per combination of their (bounded) values and reused, as the
 * metrics sink does with its own: the SDK reads them on every record, and a fresh object per call
 * would only add garbage.
 */
const mcpLabelCache = new Map<string, Attributes>();
const MCP_LABEL_CACHE_MAX = 4096;

function mcpLabels(tool: string | null, r: McpOutcome, req: RequestConventionFacts | null): Attributes {
  const key = `${tool ?? ''}\u0000${r.errorType ?? ''}\u0000${r.statusCode ?? ''}\u0000${req?.mcpProtocolVersion ?? ''}\u0000${req?.httpVersion ?? ''}`;
  let m = mcpLabelCache.get(key);
  if (m) return m;
  m = { [ATTR_MCP_METHOD_NAME]: MCP_TOOLS_CALL, [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL };
  if (tool !== null) m[ATTR_GEN_AI_TOOL_NAME] = tool;
  // error.type: the JSON-RPC code, else (an error inside a successful result: DMC-12's
  // result.data) its bounded code — the record's error.type already follows that rule.
  if (r.errorType !== null) m[ATTR_ERROR_TYPE] = r.errorType;
  if (r.statusCode !== null) m[ATTR_RPC_RESPONSE_STATUS_CODE] = r.statusCode;
  if (req?.mcpProtocolVersion) m[ATTR_MCP_PROTOCOL_VERSION] = req.mcpProtocolVersion;
  m[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  if (req?.httpVersion) m[ATTR_NETWORK_PROTOCOL_VERSION] = req.httpVersion;
  m[ATTR_NETWORK_TRANSPORT] = 'tcp';
  Object.freeze(m);
  if (mcpLabelCache.size >= MCP_LABEL_CACHE_MAX) mcpLabelCache.clear();
  mcpLabelCache.set(key, m);
  return m;
}

function mcpFacts(r: McpOutcome, req: RequestConventionFacts | null, res: ResponseConventionFacts | null): ConventionFacts {
  // The allow-listed tool (knownSkills); an unknown tool is left out, never `_OTHER` as a name.
  const tool = r.skill !== null && r.skill !== RPC_METHOD_OTHER ? r.skill : null;
  // A tool result with `isError: true` and no error of its own (a DMC-12 error object or an error
  // member, which the record reads and which win): `tool_error`.
  const failed = r.errorType === null && res?.toolError === true;
  const m = mcpLabels(tool, failed ? { skill: r.skill, errorType: MCP_TOOL_ERROR, statusCode: r.statusCode } : r, req);
  // The session id is a span attribute only, never a label.
  const a = req?.mcpSessionId ? { ...m, [ATTR_MCP_SESSION_ID]: req.mcpSessionId } : m;
  return { spanName: tool !== null ? `${MCP_TOOLS_CALL} ${tool}` : MCP_TOOLS_CALL, attributes: a, mcpMetric: m, failed };
}

/**
 * The conventions of one call: A2A for an A2A method, MCP for a `tools/call`, null for any other
 * call (DMC-12's `tools/list`, `initialize`, unknown methods). `r` holds the record's bounded
 * skill and error fields, `res` what {@link responseConventionFacts} read of its reply (null: no
 * reply read). Never throws for any `call` shape.
 */
export function conventionsOf(call: RequestCall | null, r: McpOutcome, req: RequestConventionFacts | null, settings: Settings, res: ResponseConventionFacts | null = null): ConventionFacts | null {
  const method = call?.method;
  if (!call || typeof method !== 'string') return null;
  if (method === MCP_TOOLS_CALL) return mcpFacts(r, req, res);
  if (Object.hasOwn(A2A_OPERATIONS, method)) return a2aFacts(method as A2aRpcMethod, call, settings, res);
  return null;
}

/**
 * Whether a success body (or SSE frame's data) can hold a fact {@link responseConventionFacts}
 * reads: a quick scan for the member names, so a body without them (a DMC-12 search result) is
 * never parsed. Opt-in only.
 */
export function mayHoldResponseFacts(body: Buffer | string): boolean {
  return FACT_NEEDLES.test(typeof body === 'string' ? body : body.toString('latin1'));
}

const FACT_NEEDLES = /"(?:contextId|taskId|state|isError)"/;

const TOOL_ERROR_FACTS: ResponseConventionFacts = Object.freeze({ taskId: null, contextId: null, taskState: null, toolError: true });

/**
 * The facts of one reply `item` to `call` (see {@link ResponseConventionFacts}), or null when
 * it has none or the call is neither A2A nor `tools/call`. A2A 1.0 wraps the result (`task`,
 * `message`, `statusUpdate`, `artifactUpdate`); 0.3, and 1.0's `GetTask` / `CancelTask`, return
 * the object itself. Only these few members are read, never a part, artifact or history entry.
 * Never throws for any shape.
 */
export function responseConventionFacts(item: JsonObject, call: RequestCall | null): ResponseConventionFacts | null {
  const method = call?.method;
  const result = ownObject(item, 'result');
  if (result === null || typeof method !== 'string') return null;
  if (method === MCP_TOOLS_CALL) return own(result, 'isError') === true ? TOOL_ERROR_FACTS : null;
  if (!Object.hasOwn(A2A_OPERATIONS, method)) return null;
  const o = ownObject(result, 'task') ?? ownObject(result, 'message') ?? ownObject(result, 'statusUpdate') ?? ownObject(result, 'artifactUpdate') ?? result;
  const status = ownObject(o, 'status');
  // A task names itself `id`; a message, an update or a push configuration names its task `taskId`.
  const taskId = safeOpaqueId(own(o, 'taskId')) ?? (status !== null ? safeOpaqueId(own(o, 'id')) : null);
  const contextId = safeOpaqueId(own(o, 'contextId'));
  const taskState = safeTaskState(own(status, 'state'));
  return taskId === null && contextId === null && taskState === null ? null : { taskId, contextId, taskState, toolError: false };
}

/**
 * What the conventions read of each reply of one exchange ({@link responseConventionFacts}), by reply id.
 * A stream answers one call with many frames: its ids are the first ones seen, its task state the
 * last (the state the stream ended in).
 */
export class ReplyFacts {
  private readonly byId = new Map<string | number | null, ResponseConventionFacts>();

  /** @param callOf the request call a reply with that id answers, or null */
  constructor(private readonly callOf: (id: string | number | null) => RequestCall | null) {}

  /** Reads the facts of one reply object (never throws for any shape). */
  read(item: JsonObject, id: string | number | null): void {
    const f = responseConventionFacts(item, this.callOf(id));
    if (f === null) return;
    const prev = this.byId.get(id);
    this.byId.set(
      id,
      prev ? { taskId: prev.taskId ?? f.taskId, contextId: prev.contextId ?? f.contextId, taskState: f.taskState ?? prev.taskState, toolError: prev.toolError || f.toolError } : f,
    );
  }

  /** The facts of the reply to `call`, or null. */
  of(call: RequestCall | null): ResponseConventionFacts | null {
    return call ? (this.byId.get(call.id) ?? null) : null;
  }
}

/** Longest `traceparent` read from `params._meta` (W3C version 00: 55 characters). */
const MAX_TRACEPARENT = 55;

/**
 * The remote parent a `tools/call` names in `params._meta` (MCP "Context propagation", SEP-414:
 * unprefixed `traceparent`), extracted with the configured propagator; null when the call is not
 * a `tools/call`, carries none, or it does not give a valid span context. Only `traceparent` is
 * handed to the propagator: its ids and flags are hex, checked by the propagator and
 * `isSpanContextValid`. `tracestate` is not: its list-members are opaque vendor text, and the
 * propagator would make it the span's trace state, which exporters send (OTLP `trace_state`) and
 * the host's propagator injects into every outgoing request — caller text no pattern can check
 * (W3C Trace Context §6.2 lets a vendor sensitive to personal data remove unknown keys'
 * values; docs/instrumentation.md gives the decision). `baggage`
 * and `_meta`'s other keys are caller text too and never enter the context. Never throws.
 */
export function metaParent(call: RequestCall | null): Context | null {
  if (call?.method !== MCP_TOOLS_CALL) return null;
  const meta = ownObject(call.params, '_meta');
  if (!isObject(meta)) return null;
  const traceparent = ownString(meta, 'traceparent');
  if (traceparent === null || traceparent.length > MAX_TRACEPARENT) return null;
  try {
    const ctx = propagation.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
    const sc = trace.getSpanContext(ctx);
    return sc && isSpanContextValid(sc) ? ctx : null;
  } catch {
    // A host propagator that throws on odd input costs this call its remote parent, not the
    // exchange its observation.
    return null;
  }
}
