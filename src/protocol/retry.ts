/**
 * Retry-contract numbers the specs and DESIGN §6 fix, in one place: the server's retry tracker
 * judges retries against them and the client's defaults start from them. All times in ms.
 */

/**
 * A call seen again from the same client within this many ms is a retry (DESIGN §6 "within the
 * window (default 10 min)").
 */
export const RETRY_WINDOW_MS = 600_000;

/**
 * First backoff step before a retry, ms (spec/dmc12-errors.txt "Retry strategy": exponential
 * backoff "~1s → 2s → 4s"; DESIGN §6 "~1 s · 2^(n−1)").
 */
export const BACKOFF_BASE_MS = 1_000;

/**
 * Growth of the backoff per attempt (spec/dmc12-errors.txt "Retry strategy": 1 s → 2 s → 4 s;
 * DESIGN §6 "2^(n−1)").
 */
export const BACKOFF_MULTIPLIER = 2;

/**
 * Most attempts of one call, the first included: the top of DMC-12's "hard max-attempt ceiling
 * (3–5)" (spec/dmc12-errors.txt "Retry strategy") and gRPC's attempt cap (DESIGN §6). Also the top
 * bucket of `aap.server.request.attempts` (DESIGN §4).
 */
export const MAX_ATTEMPTS_CAP = 5;

/**
 * Cap on the computed backoff before one retry, ms (spec/dmc12-errors.txt "Retry strategy":
 * "capped"). The client's default `maxDelayMs` and the tracker's cap alike.
 */
export const BACKOFF_MAX_MS = 20_000;

/**
 * The one backoff policy's jitter ("equal jitter"): retry n waits a uniform draw in
 * [`BACKOFF_JITTER_FLOOR`, 1] × `min(BACKOFF_MAX_MS, BACKOFF_BASE_MS · BACKOFF_MULTIPLIER^(n−1))`,
 * so 0.5–1 s, 1–2 s, 2–4 s (DMC-12's ~1 s → 2 s → 4 s). The client draws from that range by
 * default; the server-side tracker flags `no_backoff` on a retry sooner than its floor (DESIGN §6),
 * so a client on the defaults is never flagged.
 */
export const BACKOFF_JITTER_FLOOR = 0.5;

/** Backoff settings the policy is computed from (ms, factor); defaults are the constants above. */
export interface BackoffShape {
  baseMs: number;
  multiplier: number;
  maxMs: number;
}

/** The protocol's backoff shape: 1 s base, doubling, capped at 20 s. */
export const BACKOFF: BackoffShape = { baseMs: BACKOFF_BASE_MS, multiplier: BACKOFF_MULTIPLIER, maxMs: BACKOFF_MAX_MS };

/**
 * Nominal (un-jittered) backoff before retry `n` (1 = first retry), ms:
 * `min(maxMs, baseMs · multiplier^(n−1))`; n below 1 counts as 1.
 */
export function backoffCeilingMs(n: number, shape: BackoffShape = BACKOFF): number {
  return Math.min(shape.maxMs, shape.baseMs * shape.multiplier ** Math.max(0, n - 1));
}

/**
 * Shortest wait before retry `n` the policy allows, ms: `BACKOFF_JITTER_FLOOR` × the ceiling.
 * A retry sooner than this is `no_backoff`.
 */
export function backoffFloorMs(n: number, shape: BackoffShape = BACKOFF): number {
  return backoffCeilingMs(n, shape) * BACKOFF_JITTER_FLOOR;
}
