/**
 * A buyer agent's DMC-12 client, written as a buyer-agent developer writes one with
 * `aap-triage/client`: plain `tools/call` over `createAapFetch`, which turns the DMC-12 errors
 * inside a successful result into `DealerAgentError`s, and `withRetries` around each call.
 */
import { HEADER_ATTEMPT, callWithDetails, createAapFetch, withRetries } from '../../client/index.js';
import { BUYER_METER_PROVIDER, type BuyerContext } from './context.js';
import { failureOf, type CallResult } from './outcome.js';

/** One buyer's connection to one DMC-12 dealer. */
export class Dmc12Buyer {
  private id = 0;
  private readonly aapFetch: typeof fetch;

  /** `rpcUrl` is the dealer's JSON-RPC endpoint; `token` the partner bearer token. */
  constructor(
    private readonly ctx: BuyerContext,
    private readonly rpcUrl: string,
    private token: string,
    private readonly timeoutMs = 10_000,
  ) {
    const counted: typeof fetch = (input, init) => {
      const attempt = new Headers(init?.headers).get(HEADER_ATTEMPT);
      ctx.countRequest(attempt === null ? null : Number(attempt));
      return fetch(input, init);
    };
    this.aapFetch = createAapFetch({ fetch: counted, logger: false, meterProvider: BUYER_METER_PROVIDER, onError: (e) => ctx.countError(e.code) });
  }

  /** Switches to another token (a rotated key). */
  setToken(token: string): void {
    this.token = token;
  }

  /**
   * Calls `tool` with `args`, retried per the client's default policy (`withRetries`). Never
   * throws: an error answer (after the last attempt) comes back as `{ ok: false, code, error }`.
   */
  async call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
    const body = this.body(tool, args); // built once: a retry resends the same request
    return this.settle(withRetries(({ signal }) => this.post(body, signal), this.ctx.retryOptions()));
  }

  /** Calls `tool` once, no retries (`callWithDetails`). */
  async once(tool: string, args: Record<string, unknown>): Promise<CallResult> {
    const body = this.body(tool, args);
    return this.settle(callWithDetails(() => this.post(body, this.ctx.signal)));
  }

  private body(tool: string, args: Record<string, unknown>): string {
    this.id += 1;
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, method: 'tools/call', params: { name: tool, arguments: args } });
  }

  private async post(body: string, signal: AbortSignal | undefined): Promise<{ result?: { data?: Record<string, unknown> } }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const res = await this.aapFetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return (await res.json()) as { result?: { data?: Record<string, unknown> } };
  }

  private async settle(run: Promise<{ result?: { data?: Record<string, unknown> } }>): Promise<CallResult> {
    try {
      const body = await run;
      return { ok: true, data: body.result?.data ?? {} };
    } catch (err) {
      return failureOf(err);
    }
  }
}
