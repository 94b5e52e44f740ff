/**
 * A buyer agent's AAP client on the real `@a2a-js/sdk` client (`ClientFactory` + JSON-RPC
 * transport, which sends `A2A-Version: 1.0`). A custom fetch adds the buyer's API key and keeps
 * the raw response body, because the SDK turns error envelopes into exceptions that drop the
 * AAP details (spec/aap-errors.txt "SDK error handling": buyers on a lossy SDK "MUST add an
 * AAP-aware transport adapter before SDK error conversion").
 */
import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, ServiceParameters, withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { AAP_EXTENSION_URI } from '../constants.js';
import { readJsonRpcError, type CallResult } from './outcome.js';

/** Options of {@link AapBuyerClient.connect}. */
export interface AapClientOptions {
  /** Sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** Whether to activate the AAP extension (`A2A-Extensions`). A legacy buyer does not. */
  activate: boolean;
  /** Per-call timeout, ms. */
  timeoutMs?: number;
}

/** One buyer's connection to one AAP dealer. Calls must not overlap (one buyer = one flow). */
export class AapBuyerClient {
  private lastBody = '';
  private lastStatus = 0;
  private client!: Client;

  private constructor(private readonly options: AapClientOptions) {}

  /** Reads the agent card at `baseUrl` and builds the SDK client. */
  static async connect(baseUrl: string, options: AapClientOptions): Promise<AapBuyerClient> {
    const self = new AapBuyerClient(options);
    const fetchImpl: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${options.apiKey}`);
      const res = await fetch(input, { ...init, headers, signal: init?.signal ?? AbortSignal.timeout(options.timeoutMs ?? 10_000) });
      self.lastStatus = res.status;
      self.lastBody = await res.clone().text();
      return res;
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
      }),
    );
    self.client = await factory.createFromUrl(baseUrl);
    return self;
  }

  /** Calls one skill with `payload` (`{ type: '<skill>.request', … }`). Never throws for an error answer. */
  async call(payload: Record<string, unknown>): Promise<CallResult> {
    const serviceParameters = this.options.activate ? ServiceParameters.create(withA2AExtensions(AAP_EXTENSION_URI)) : {};
    this.lastBody = '';
    try {
      const result = await this.client.sendMessage(
        {
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
        },
        { serviceParameters },
      );
      const part = 'parts' in result ? result.parts[0]?.content : undefined;
      return { ok: true, data: part?.$case === 'data' ? (part.value as Record<string, unknown>) : {} };
    } catch (err) {
      return this.failureFromLastBody(err);
    }
  }

  private failureFromLastBody(err: unknown): CallResult {
    try {
      const body = JSON.parse(this.lastBody) as { error?: Record<string, unknown> };
      if (body.error && typeof body.error === 'object') return readJsonRpcError(body.error, this.lastStatus);
    } catch {
      // not JSON: fall through to a transport failure
    }
    const name = err instanceof Error ? err.name : 'Error';
    return { ok: false, code: `TRANSPORT:${name}`, retryable: null, retryAfterMs: null, errorId: null, traceId: null, httpStatus: this.lastStatus };
  }
}
