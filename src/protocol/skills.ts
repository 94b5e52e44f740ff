/**
 * The skill, tool and JSON-RPC method names aap-triage knows, as data: the lists both sides
 * allow-list `aap.skill` and `rpc.method` against (DESIGN §4: metric attributes must stay
 * low-cardinality, and a skill, tool or method name comes from the request, so any other name is
 * reported as `_OTHER`).
 */

/**
 * The five AAP skills (DESIGN §1). A call names one in `params.message.parts[0].data.type` as
 * `"<skill>.request"`; `classifyCall` reports it without the suffix.
 */
export const AAP_SKILLS = [
  'dealer.information',
  'inventory.facets',
  'inventory.search',
  'inventory.vehicle',
  'lead.submit',
] as const;

/** One of the five AAP skills. */
export type AapSkill = (typeof AAP_SKILLS)[number];

/**
 * DMC-12 tools, named by `params.name` of `tools/call`. DMC-12 publishes no tool list, so this is
 * gathered from its documents and from what DMC-12 dealers serve: `search_inventory`,
 * `create_reservation`, `initiate_deal_handoff` (DESIGN §1, spec/dmc12-errors.txt "The envelope"),
 * `request_quote` (reference/dmc12-error-examples.json), `get_vehicle` and `release_reservation`
 * (the demo DMC-12 dealer), and `create_quote`, which the instrumentation's earlier default list
 * names (kept so that switching to this list reports no name differently).
 */
export const DMC12_TOOLS = [
  'search_inventory',
  'get_vehicle',
  'request_quote',
  'create_quote',
  'create_reservation',
  'release_reservation',
  'initiate_deal_handoff',
] as const;

/** One of the known DMC-12 tools. */
export type Dmc12Tool = (typeof DMC12_TOOLS)[number];

/**
 * The default allow-list of `aap.skill` values: the AAP skills, then the DMC-12 tools. The
 * instrumentation's and the client's `knownSkills` options default to it.
 */
export const KNOWN_SKILLS: readonly string[] = Object.freeze([...AAP_SKILLS, ...DMC12_TOOLS]);

/**
 * A2A JSON-RPC method names, v1.0 then v0.3 (`message/send`, `tasks/*`, …): AAP runs
 * on A2A, and buyers on older SDKs still send the v0.3 names.
 */
export const A2A_RPC_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;

/** One A2A JSON-RPC method name. */
export type A2aRpcMethod = (typeof A2A_RPC_METHODS)[number];

/**
 * Each A2A method's logical operation (A2A 1.0 §3.1, the `a2a.method.name` values of OTel's A2A
 * conventions): v1.0 names are their own, v0.3 names map to the operation they became. With the
 * request field naming the task (A2A 1.0 §9 request objects; v0.3 `TaskIdParams`), where one does.
 */
export const A2A_OPERATIONS: Readonly<Record<A2aRpcMethod, { operation: string; version: '1.0' | '0.3'; taskIdField: 'id' | 'taskId' | null }>> = {
  SendMessage: { operation: 'SendMessage', version: '1.0', taskIdField: null },
  SendStreamingMessage: { operation: 'SendStreamingMessage', version: '1.0', taskIdField: null },
  GetTask: { operation: 'GetTask', version: '1.0', taskIdField: 'id' },
  ListTasks: { operation: 'ListTasks', version: '1.0', taskIdField: null },
  CancelTask: { operation: 'CancelTask', version: '1.0', taskIdField: 'id' },
  SubscribeToTask: { operation: 'SubscribeToTask', version: '1.0', taskIdField: 'id' },
  CreateTaskPushNotificationConfig: { operation: 'CreateTaskPushNotificationConfig', version: '1.0', taskIdField: 'taskId' },
  GetTaskPushNotificationConfig: { operation: 'GetTaskPushNotificationConfig', version: '1.0', taskIdField: 'taskId' },
  ListTaskPushNotificationConfigs: { operation: 'ListTaskPushNotificationConfigs', version: '1.0', taskIdField: 'taskId' },
  DeleteTaskPushNotificationConfig: { operation: 'DeleteTaskPushNotificationConfig', version: '1.0', taskIdField: 'taskId' },
  GetExtendedAgentCard: { operation: 'GetExtendedAgentCard', version: '1.0', taskIdField: null },
  'message/send': { operation: 'SendMessage', version: '0.3', taskIdField: null },
  'message/stream': { operation: 'SendStreamingMessage', version: '0.3', taskIdField: null },
  'tasks/get': { operation: 'GetTask', version: '0.3', taskIdField: 'id' },
  'tasks/cancel': { operation: 'CancelTask', version: '0.3', taskIdField: 'id' },
  'tasks/resubscribe': { operation: 'SubscribeToTask', version: '0.3', taskIdField: 'id' },
  'tasks/pushNotificationConfig/set': { operation: 'CreateTaskPushNotificationConfig', version: '0.3', taskIdField: 'taskId' },
  'tasks/pushNotificationConfig/get': { operation: 'GetTaskPushNotificationConfig', version: '0.3', taskIdField: 'id' },
  'tasks/pushNotificationConfig/list': { operation: 'ListTaskPushNotificationConfigs', version: '0.3', taskIdField: 'id' },
  'tasks/pushNotificationConfig/delete': { operation: 'DeleteTaskPushNotificationConfig', version: '0.3', taskIdField: 'id' },
  'agent/getAuthenticatedExtendedCard': { operation: 'GetExtendedAgentCard', version: '0.3', taskIdField: null },
};

/**
 * JSON-RPC methods of DMC-12 dealers, which speak MCP's JSON-RPC: `tools/call` carries every tool
 * (DESIGN §1), `initialize`, `tools/list` and `ping` are MCP's session methods.
 */
export const DMC12_RPC_METHODS = ['tools/call', 'tools/list', 'initialize', 'ping'] as const;

/**
 * The default allow-list of `rpc.method` values: the A2A methods (v1.0 and v0.3), then DMC-12's.
 * Any other method is reported as `_OTHER` with the original in `rpc.method_original` (span
 * only). The instrumentation's `knownMethods` default and the client's span names use it.
 */
export const KNOWN_RPC_METHODS: readonly string[] = Object.freeze([...A2A_RPC_METHODS, ...DMC12_RPC_METHODS]);

/** `aap.skill` value for a skill or tool outside the allow-list (same value as `rpc.method`'s). */
export const SKILL_OTHER = '_OTHER' as const;

/**
 * The skill or tool name to report: `skill` itself when `known` holds it, `SKILL_OTHER` when it
 * does not, null when there is none. Exact, case-sensitive match; never throws.
 */
export function allowListedSkill(skill: string | null | undefined, known: ReadonlySet<string>): string | null {
  if (skill === null || skill === undefined) return null;
  return known.has(skill) ? skill : SKILL_OTHER;
}
