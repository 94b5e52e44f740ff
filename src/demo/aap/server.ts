/**
 * The demo AAP dealer agent on `@a2a-js/sdk` 1.3: Express 5, `jsonRpcHandler` at `/a2a`, the
 * agent card at `/.well-known/agent-card.json`, and the aap-triage middleware mounted in front
 * of both, exactly as a dealer-server developer would (`app.use(triage.middleware())`).
 *
 * Order of checks for `SendMessage` (spec/aap-errors.txt): A2A-Version (the SDK answers -32009),
 * then A2A's own parameter rules (a message with a `messageId` and at least one part, else
 * -32602 InvalidParams: the A2A conformance suite's `test_empty_message_parts` expects it before
 * anything AAP-specific), then activation of the required AAP extension (-32008, checked here before any skill logic),
 * then the media types (-32005), then the per-client rate limit, then the skill. The skill runs
 * in the request handler so a failure can be thrown as `AapError` (a JSON-RPC error, not a failed task); the AgentExecutor
 * only publishes the computed answer with `AgentEvent.message` (DESIGN §9).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { Role, type AgentCard, type Message, type SendMessageRequest } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  STATE_HEADERS_KEY,
  type AgentExecutor,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { ContentTypeNotSupportedError, ExtensionSupportRequiredError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { SendMessageResult } from '@a2a-js/sdk';
import { AAP_EXTENSION_URI } from '../constants.js';
import { buildExtensionRequiredError } from '../../protocol/index.js';
import { bearerToken } from '../http-util.js';
import { buildAgentCard } from './agent-card.js';
import type { AapDealer } from './dealer.js';

/** The one media type the demo's skills read and write (the card's inputModes and outputModes). */
const SKILL_MEDIA_TYPE = 'application/json';

/** Key under which the request handler leaves the skill's answer for the executor. */
const ANSWER_KEY = 'aap-demo.answer';

/** Express-style middleware (what `createTriage(...).middleware()` returns). */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** Publishes the answer the request handler computed, as a bare Message (DESIGN §9). */
class AnswerExecutor implements AgentExecutor {
  async execute(ctx: Parameters<AgentExecutor['execute']>[0], bus: Parameters<AgentExecutor['execute']>[1]): Promise<void> {
    const answer = ctx.context.state.get(ANSWER_KEY) ?? {};
    const message: Message = {
      messageId: randomUUID(),
      contextId: ctx.contextId,
      taskId: '',
      role: Role.ROLE_AGENT,
      parts: [{ content: { $case: 'data', value: answer }, mediaType: 'application/json', filename: '', metadata: undefined }],
      metadata: undefined,
      extensions: [AAP_EXTENSION_URI],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.message(message));
    bus.finished();
  }

  async cancelTask(): Promise<void> {
    // Every answer is a single message; there is never a running task to cancel.
  }
}

/** Runs activation, rate limit and skill logic before the SDK's own pipeline. */
class AapRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly dealer: AapDealer,
  ) {
    super(card, new InMemoryTaskStore(), new AnswerExecutor());
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<SendMessageResult> {
    // The SDK checks messageId only inside super.sendMessage, after our skill ran; and it never
    // checks that parts is non-empty. RequestMalformedError is the SDK's -32602 InvalidParams.
    if (!params.message) throw new RequestMalformedError('params.message is required.');
    if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required.');
    if (params.message.parts.length === 0) throw new RequestMalformedError('message.parts must hold at least one part.');
    if (!(context.requestedExtensions ?? []).includes(AAP_EXTENSION_URI)) {
      const envelope = buildExtensionRequiredError(AAP_EXTENSION_URI);
      const info = envelope.data[0] as { metadata?: Record<string, string> } | undefined;
      throw new ExtensionSupportRequiredError({ message: envelope.message, ...(info?.metadata ? { metadata: info.metadata } : {}) });
    }
    // Media types before skill logic (spec/aap-errors.txt "A2A protocol-level errors": -32005 when an
    // input part's mediaType is unsupported or no accepted output mode can be produced).
    if ((params.message?.parts ?? []).some((p) => p.mediaType !== '' && p.mediaType !== SKILL_MEDIA_TYPE)) {
      throw new ContentTypeNotSupportedError(`An input part's media type is not supported; send ${SKILL_MEDIA_TYPE} data parts.`);
    }
    const modes = params.configuration?.acceptedOutputModes ?? [];
    if (modes.length > 0 && !modes.includes(SKILL_MEDIA_TYPE)) {
      throw new ContentTypeNotSupportedError(`None of acceptedOutputModes can be produced; this agent answers in ${SKILL_MEDIA_TYPE}.`);
    }
    const headers = context.state.get(STATE_HEADERS_KEY) as IncomingMessage['headers'] | undefined;
    const client = bearerToken(headers?.authorization) ?? 'anonymous';
    const first = params.message?.parts[0]?.content;
    const payload = first?.$case === 'data' ? (first.value as unknown) : undefined;
    context.state.set(ANSWER_KEY, this.dealer.handle(payload, client));
    return super.sendMessage(params, context);
  }
}

/** The Express app and the card it serves (its RPC URL is fixed by `setBaseUrl` once listening). */
export interface AapApp {
  app: express.Express;
  card: AgentCard;
  /** Points the card's JSON-RPC interface at `${baseUrl}/a2a`. */
  setBaseUrl(baseUrl: string): void;
}

/**
 * Builds the AAP dealer's Express app. `triageMiddleware` (from `createTriage`) is mounted first
 * when given, so it observes every exchange, the agent card included.
 */
export function createAapApp(dealer: AapDealer, triageMiddleware?: Middleware): AapApp {
  const card = buildAgentCard('http://127.0.0.1/a2a');
  const requestHandler = new AapRequestHandler(card, dealer);
  const app = express();
  app.disable('x-powered-by');
  if (triageMiddleware) app.use(triageMiddleware);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  // Whatever a caller sends, the answer is a JSON-RPC envelope: never Express's HTML 404 page or
  // its stack-trace error page (issue 16).
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Not found; POST JSON-RPC to /a2a.' } });
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : 500;
    const parse = (err as { type?: unknown })?.type === 'entity.parse.failed';
    const clientError = status >= 400 && status < 500;
    res.status(clientError ? status : 500).json({
      jsonrpc: '2.0',
      id: null,
      error: parse ? { code: -32700, message: 'Parse error.' } : clientError ? { code: -32600, message: 'Invalid Request.' } : { code: -32603, message: 'Internal error.' },
    });
  });
  return {
    app,
    card,
    setBaseUrl(baseUrl) {
      const iface = card.supportedInterfaces[0];
      if (iface) iface.url = `${baseUrl}/a2a`;
    },
  };
}
