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
 * Jitter tolerance around the nominal backoff, as a fraction: a retry may come up to 20 % sooner
 * (or later) than `BACKOFF_BASE_MS · BACKOFF_MULTIPLIER^(n−1)` (DESIGN §6 "±20 % jitter").
 */
export const BACKOFF_JITTER_TOLERANCE = 0.2;
