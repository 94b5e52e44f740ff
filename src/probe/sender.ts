/**
 * The probe's only way onto the network: every HTTP request of a run, discovery included, goes
 * through one `ProbeSender`, which spaces requests to the rate cap, refuses past the total cap,
 * times each out, and reads answers through the buyer-side adapter (`createAapFetch`), so the
 * battery judges the errors exactly as a buyer agent on aap-triage/client would see them.
 */
import { createAapFetch, dealerErrorsOf } from '../client/index.js';
import { checkConformance, PROBE_PRODUCT } from '../protocol/index.js';
import { VERSION } from '../protocol/version.js';
import { errorIdsOf } from './inspect.js';
import { PROBE_DEFAULTS, type ProbeAnswer, type ProbeFamily, type ProbeRequest } from './types.js';

/** The wrong bearer token `auth: 'invalid'` requests carry (never a real credential). */
export const INVALID_TOKEN = 'aap-triage-probe-invalid-token';

/**
 * The User-Agent of every probe request, `aap-triage-probe/<version>`: an instrumented dealer
 * records the probe's calls with `origin: 'probe'` and its views leave them out (docs/probe.md).
 */
export const PROBE_USER_AGENT = `${PROBE_PRODUCT}/${VERSION}`;

/** Thrown when a request would exceed the run's total cap (`maxRequests`). */
export class RequestCapReached extends Error {
  override readonly name = 'RequestCapReached';
  constructor(readonly cap: number) {
    super(`total request cap reached (${cap} requests)`);
  }
}

/** Options of {@link ProbeSender}. */
export interface SenderOptions {
  token?: string | undefined;
  ratePerSecond: number;
  maxRequests: number;
  timeoutMs: number;
  fetch?: typeof fetch | undefined;
  /** Waits `ms` (tests may shorten it). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** Monotonic clock, ms, the rate cap spaces requests by (tests pair it with `sleep`). @default performance.now */
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Why a fetch failed, in one line (`connect ECONNREFUSED 127.0.0.1:9`, `timed out after 10000 ms`). */
export function transportErrorText(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const cause = e?.cause?.message ?? e?.cause?.code;
  return String(cause ?? e?.message ?? err).split('\n')[0] ?? 'fetch failed';
}

/** Rate- and total-capped HTTP for one probe run. */
export class ProbeSender {
  /** HTTP requests sent so far. */
  sent = 0;
  private nextStart = 0;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly base: typeof fetch;
  private readonly aapFetch: typeof fetch;

  constructor(private readonly options: SenderOptions) {
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? (() => performance.now());
    this.base = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.aapFetch = createAapFetch({ fetch: (input, init) => this.base(input, init), propagateContext: false });
  }

  /** Waits for the rate cap and takes one request from the total cap. @throws RequestCapReached */
  private async slot(): Promise<void> {
    if (this.sent >= this.options.maxRequests) throw new RequestCapReached(this.options.maxRequests);
    const wait = this.nextStart - this.now();
    if (wait > 0) await this.sleep(wait);
    this.nextStart = this.now() + 1000 / this.options.ratePerSecond;
    this.sent += 1;
  }

  /**
   * A capped, timed request outside the battery (discovery: the agent card, `tools/list`).
   * Rejects as fetch does when nothing answers. @throws RequestCapReached
   */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    await this.slot();
    const headers = new Headers(init.headers);
    headers.set('user-agent', PROBE_USER_AGENT);
    return this.base(url, { ...init, headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
  }

  /**
   * Sends one battery request to `rpcUrl` and reads the answer. A RATE_LIMITED answer whose retry
   * hint is at most `PROBE_DEFAULTS.maxRetryAfterMs` is resent once after the hint, so the agent's
   * own rate limit does not decide a case. Never rejects except with `RequestCapReached`; a
   * transport failure becomes an answer with `status` 0 and `transportError`.
   */
  async send(rpcUrl: string, request: ProbeRequest, family: ProbeFamily): Promise<ProbeAnswer> {
    const first = await this.once(rpcUrl, request, family);
    const limited = first.errors.find((e) => e.code === 'RATE_LIMITED');
    if (!limited) return first;
    const waitMs = limited.retryAfterMs ?? 1000;
    if (waitMs > PROBE_DEFAULTS.maxRetryAfterMs || this.sent >= this.options.maxRequests) return first;
    await this.sleep(waitMs);
    return this.once(rpcUrl, request, family);
  }

  private async once(rpcUrl: string, request: ProbeRequest, family: ProbeFamily): Promise<ProbeAnswer> {
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json' });
    for (const [k, v] of Object.entries(request.headers)) headers.set(k, v);
    headers.set('user-agent', PROBE_USER_AGENT);
    const auth = request.auth ?? 'token';
    if (auth === 'token' && this.options.token) headers.set('authorization', `Bearer ${this.options.token}`);
    if (auth === 'invalid') headers.set('authorization', `Bearer ${INVALID_TOKEN}`);
    await this.slot();
    const started = performance.now();
    const base = { caseId: '', request, errors: [], errorIds: [], violations: [], json: undefined, text: '', contentType: '' };
    let response: Response;
    try {
      response = await this.aapFetch(rpcUrl, { method: 'POST', headers, body: request.body, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (err) {
      return { ...base, status: 0, transportError: transportErrorText(err, this.options.timeoutMs), durationMs: performance.now() - started };
    }
    let text = '';
    try {
      const bytes = new Uint8Array(await response.arrayBuffer());
      text = new TextDecoder().decode(bytes.subarray(0, PROBE_DEFAULTS.maxBodyBytes));
    } catch (err) {
      return { ...base, status: response.status, transportError: `body not read: ${transportErrorText(err, this.options.timeoutMs)}`, durationMs: performance.now() - started };
    }
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      caseId: '',
      request,
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
      json,
      errors: dealerErrorsOf(response),
      errorIds: errorIdsOf(json, family),
      violations: text.length > 0 ? checkConformance(json ?? text, { family, httpStatus: response.status }) : [],
      transportError: null,
      durationMs: performance.now() - started,
    };
  }
}
