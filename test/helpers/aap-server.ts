/**
 * A real AAP dealer agent on @a2a-js/sdk 1.3 (Express, `jsonRpcHandler`, agent card), for tests
 * of the instrumentation, the audit canary and the client. Loopback only.
 *
 * What a call does is chosen by the request's skill data (`message.parts[0].data`):
 * - `{ type: 'inventory.search.request', ... }` → a data message with two fake vehicles;
 * - `fail: '<AAP code>'` → the AgentExecutor throws `new AapError(code, ...)` (the SDK turns it
 *   into a FAILED task);
 * - `failInHandler: '<AAP code>'` → the request handler throws it before the executor runs
 *   (the SDK sends -32603 with the error's message);
 * - `crash: true` → the executor throws a plain Error (a hidden task failure);
 * - `reject: true` → a task in state REJECTED (a success envelope holding a failure);
 * - `taskState: <A2A 1.0 TaskState number>` → a task in that state (`SendMessage` answers with
 *   the task; `SendStreamingMessage` streams it SUBMITTED, then a status update in that state);
 * - `details` → passed as the AapError's details.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import type { AgentCard, SendMessageRequest } from '@a2a-js/sdk';
import { AapError } from '../../src/protocol/aap-error.js';
import type { AapCode } from '../../src/protocol/index.js';
import type { Triage } from '../../src/instrument/types.js';

/** Extension URI the test agent card declares `required: true` (a draft-style, undeployable URI). */
export const TEST_EXTENSION_URI = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
/** Path of the JSON-RPC endpoint. */
export const JSONRPC_PATH = '/a2a/jsonrpc';

export interface AapServerOptions {
  /** Instrumentation to mount before the JSON-RPC handler; null for none. */
  triage?: Triage | null;
  /** Where an extra `express.json()` sits relative to the middleware. @default 'none' */
  parser?: 'before' | 'after' | 'none';
  /** Mount `triage.errorHandler()` after the routes. @default false */
  errorHandler?: boolean;
}

export interface AapServer {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** JSON-RPC endpoint URL. */
  rpcUrl: string;
  card: AgentCard;
  close(): Promise<void>;
}

const ROLE_AGENT = 2;
/** A2A 1.0 `TaskState.TASK_STATE_REJECTED` (the SDK's enum value; `rejected` in 0.3). */
const TASK_STATE_REJECTED = 7;
/** A2A 1.0 `TaskState.TASK_STATE_SUBMITTED`. */
const TASK_STATE_SUBMITTED = 1;

function skillData(parts: readonly { content?: { $case: string; value: unknown } | undefined }[] | undefined): Record<string, unknown> {
  const c = parts?.[0]?.content;
  return c && c.$case === 'data' && typeof c.value === 'object' && c.value !== null ? (c.value as Record<string, unknown>) : {};
}

function aapErrorFrom(code: string, data: Record<string, unknown>): AapError {
  const details = typeof data.details === 'object' && data.details !== null ? (data.details as Record<string, unknown>) : undefined;
  return new AapError(code as AapCode, `test failure ${code}`, details ? { details } : {});
}

class DealerExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const data = skillData(ctx.userMessage.parts);
    if (typeof data.fail === 'string') throw aapErrorFrom(data.fail, data);
    if (data.crash === true) throw new Error('executor crashed');
    if (data.reject === true) {
      // The agent declines the task (A2A TaskState REJECTED = 7): a success envelope holding a failure.
      const status = { state: TASK_STATE_REJECTED, message: undefined, timestamp: new Date().toISOString() };
      bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status, artifacts: [], history: [], metadata: undefined }));
      bus.finished();
      return;
    }
    if (typeof data.taskState === 'number') {
      const at = new Date().toISOString();
      bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: { state: TASK_STATE_SUBMITTED, message: undefined, timestamp: at }, artifacts: [], history: [], metadata: undefined }));
      bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state: data.taskState, message: undefined, timestamp: at }, metadata: undefined }));
      bus.finished();
      return;
    }
    const type = typeof data.type === 'string' ? data.type.replace(/\.request$/, '.response') : 'unknown.response';
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: '',
        role: ROLE_AGENT,
        parts: [
          {
            content: {
              $case: 'data',
              value: {
                type,
                vehicles: [
                  { vin: '1HGCM82633A000001', year: 2024, make: 'Honda', model: 'Accord', price: 28000 },
                  { vin: '1HGCM82633A000002', year: 2023, make: 'Honda', model: 'Civic', price: 24000 },
                ],
              },
            },
            metadata: undefined,
            filename: '',
            mediaType: 'application/json',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

/** A request handler whose skill validation throws AapError before the executor runs. */
class DealerRequestHandler extends DefaultRequestHandler {
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    const data = skillData(params.message?.parts);
    if (typeof data.failInHandler === 'string') throw aapErrorFrom(data.failInHandler, data);
    return super.sendMessage(params, context);
  }
}

export function agentCard(url: string): AgentCard {
  return {
    name: 'Test Dealer (example.com)',
    description: 'AAP dealer agent for tests',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: { url: 'https://dealer.example.com', organization: 'Example Motors' },
    version: '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: TEST_EXTENSION_URI, description: 'Auto Agent Protocol', required: true, params: undefined }],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'inventory.search',
        name: 'Inventory search',
        description: 'Search vehicles',
        tags: ['inventory'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** Starts the dealer on 127.0.0.1 (random port). */
export async function startAapServer(options: AapServerOptions = {}): Promise<AapServer> {
  const app = express();
  const holder: { card?: AgentCard } = {};
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const card = agentCard(`${url}${JSONRPC_PATH}`);
  holder.card = card;
  const requestHandler = new DealerRequestHandler(card, new InMemoryTaskStore(), new DealerExecutor());
  const parser = options.parser ?? 'none';
  if (parser === 'before') app.use(express.json());
  if (options.triage) app.use(options.triage.middleware());
  if (parser === 'after') app.use(express.json());
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  if (options.triage && options.errorHandler) app.use(options.triage.errorHandler());
  return {
    url,
    rpcUrl: `${url}${JSONRPC_PATH}`,
    card,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A SendMessage request body for `skill` with extra skill data. */
export function sendMessageBody(id: string | number, skill: string, data: Record<string, unknown> = {}, method = 'SendMessage'): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { type: `${skill}.request`, ...data }, mediaType: 'application/json' }],
      },
    },
  };
}

/** Headers a conformant AAP client sends. */
export const AAP_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'A2A-Version': '1.0',
  'A2A-Extensions': TEST_EXTENSION_URI,
};

/** POSTs `body` (object or raw string) to `url`; returns status, headers and the parsed (or raw) body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = AAP_HEADERS,
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
