/**
 * Per-client token bucket, the rate limit both demo dealer agents apply (AAP RATE_LIMITED with
 * `details.retry_after_ms`; DMC-12 RATE_LIMITED).
 */
export interface TokenBucketOptions {
  /** Burst size, in requests. */
  capacity: number;
  /** Refill rate, in requests per second. */
  refillPerSecond: number;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** Outcome of one `take`. */
export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

/** A set of token buckets keyed by client (API key, or a fallback such as the remote address). */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TokenBucketOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Takes one token for `client`; when none is left, says how long (ms) until one is. */
  take(client: string): TakeResult {
    const now = this.now();
    const { capacity, refillPerSecond } = this.options;
    const b = this.buckets.get(client) ?? { tokens: capacity, at: now };
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * refillPerSecond);
    b.at = now;
    this.buckets.set(client, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - b.tokens) / refillPerSecond) * 1000) };
  }
}
