/** A buyer agent's DMC-12 client: plain HTTP `tools/call` with a bearer token. */
import { readJsonRpcError, type CallResult } from './outcome.js';

/** One buyer's connection to one DMC-12 dealer. */
export class Dmc12BuyerClient {
  private id = 0;

  /** `rpcUrl` is the dealer's JSON-RPC endpoint; `token` the partner bearer token. */
  constructor(
    private readonly rpcUrl: string,
    private token: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Switches to another token (a rotated key). */
  setToken(token: string): void {
    this.token = token;
  }

  /** Calls `tool` with `args`; never throws for an error answer. */
  async call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
    this.id += 1;
    let res: Response;
    try {
      res = await fetch(this.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.id, method: 'tools/call', params: { name: tool, arguments: args } }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      return { ok: false, code: `TRANSPORT:${(err as Error).name}`, retryable: null, retryAfterMs: null, errorId: null, traceId: null, httpStatus: 0 };
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (body.error && typeof body.error === 'object') return readJsonRpcError(body.error as Record<string, unknown>, res.status);
    const result = (body.result ?? {}) as { data?: Record<string, unknown>; _metadata?: { trace_id?: string } };
    const data = result.data ?? {};
    if (typeof data.error_code === 'string') {
      return {
        ok: false,
        code: data.error_code,
        retryable: typeof data.retryable === 'boolean' ? data.retryable : null,
        retryAfterMs: typeof data.retry_after_ms === 'number' ? data.retry_after_ms : null,
        errorId: typeof data.error_id === 'string' ? data.error_id : null,
        traceId: result._metadata?.trace_id ?? null,
        httpStatus: res.status,
      };
    }
    return { ok: true, data };
  }
}
