/**
 * A buyer agent's AAP client, written as a buyer-agent developer writes one with
 * `aap-triage/client`: the real `@a2a-js/sdk` client (`ClientFactory` + JSON-RPC transport, which
 * sends `A2A-Version: 1.0`) with `createAapFetch` as its fetch, so every error envelope is kept
 * before the SDK turns it into a lossy exception (spec/aap-errors.txt "SDK error handling"), and
 * `withRetries` around each skill call (docs/client.md).
 */
import { randomUUID } from 'node:crypto';
import { Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, ServiceParameters, withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { HEADER_ATTEMPT, callWithDetails, createAapFetch, withRetries } from '../../client/index.js';
import { AAP_EXTENSION_URI } from '../constants.js';
import { BUYER_METER_PROVIDER, type BuyerContext } from './context.js';
import { failureOf, type CallResult } from './outcome.js';

/** Options of {@link AapBuyer.connect}. */
export interface AapBuyerOptions {
  /** Sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** Whether to activate the AAP extension (`A2A-Extensions`). A legacy buyer does not. */
  activate: boolean;
  /** Per-request timeout, ms. @default 10000 */
  timeoutMs?: number;
}

/** The SDK's `SendMessageRequest` for one skill payload (`{ type: '<skill>.request', … }`). */
function skillMessage(payload: Record<string, unknown>): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'data', value: payload }, mediaType: 'application/json', filename: '', metadata: undefined }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

/** One buyer's connection to one AAP dealer. Calls must not overlap (one buyer = one flow). */
export class AapBuyer {
  private constructor(
    private readonly ctx: BuyerContext,
    private readonly client: Client,
    private readonly serviceParameters: ServiceParameters,
  ) {}

  /** Reads the agent card at `baseUrl` and builds the SDK client on `createAapFetch`. */
  static async connect(ctx: BuyerContext, baseUrl: string, options: AapBuyerOptions): Promise<AapBuyer> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    // The transport under the adapter: the buyer's credential and a timeout on every request.
    const authorized: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${options.apiKey}`);
      const attempt = headers.get(HEADER_ATTEMPT);
      ctx.countRequest(attempt === null ? null : Number(attempt));
      const timeout = AbortSignal.timeout(timeoutMs);
      return fetch(input, { ...init, headers, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
    };
    const fetchImpl = createAapFetch({ fetch: authorized, logger: false, meterProvider: BUYER_METER_PROVIDER, onError: (e) => ctx.countError(e.code) });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    );
    const client = await factory.createFromUrl(baseUrl);
    const serviceParameters = options.activate ? ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI)) : {};
    return new AapBuyer(ctx, client, serviceParameters);
  }

  /**
   * Calls one skill, retried per the client's default policy (`withRetries`: only a retryable
   * answer, after its `retry_after_ms` and the backoff). Never throws: an error answer (after the
   * last attempt) comes back as `{ ok: false, code, error }`.
   */
  async call(payload: Record<string, unknown>): Promise<CallResult> {
    const request = skillMessage(payload); // built once: a retry resends the same message
    return this.settle(withRetries(({ signal }) => this.client.sendMessage(request, { serviceParameters: this.serviceParameters, signal }), this.ctx.retryOptions()));
  }

  /** Calls one skill once, no retries (`callWithDetails`): what a buyer that resends by hand does. */
  async once(payload: Record<string, unknown>): Promise<CallResult> {
    const request = skillMessage(payload);
    return this.settle(callWithDetails(() => this.client.sendMessage(request, { serviceParameters: this.serviceParameters, signal: this.ctx.signal })));
  }

  private async settle(run: Promise<Awaited<ReturnType<Client['sendMessage']>>>): Promise<CallResult> {
    try {
      const result = await run;
      const part = 'parts' in result ? result.parts[0]?.content : undefined;
      return { ok: true, data: part?.$case === 'data' ? (part.value as Record<string, unknown>) : {} };
    } catch (err) {
      return failureOf(err);
    }
  }
}
