/**
 * The HTTP `Retry-After` response header (RFC 9110 §10.2.3): `delay-seconds` or an `HTTP-date`.
 * The client takes it as a floor on the next delay, alongside the payload's `retry_after_ms` and
 * `retry_after_seconds` (issue 15 "The buyer side"). Pure.
 */

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 or asctime date, as RFC 9110 §5.6.7 lists. */
const HTTP_DATE = /^(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/** Longest wait read from the header, ms (a day): a larger or absurd value is clamped, not trusted as a number. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * The wait a `Retry-After` value asks for, milliseconds; null when absent or unreadable.
 * Seconds: a non-negative integer. A date: its distance from `referenceMs` (the response's `Date`
 * header when the caller has it, so a skewed local clock does not matter; else now), at least 0.
 * Clamped to a day; the policy's `maxRetryAfterMs` decides whether to wait that long.
 *
 * @param value the header value, or null
 * @param referenceMs the server's "now", epoch ms
 */
export function parseRetryAfter(value: string | null | undefined, referenceMs: number): number | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  if (/^\d{1,12}$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  if (!HTTP_DATE.test(v)) return null;
  // asctime carries no zone; RFC 9110 dates are all GMT (Date.parse would read local time).
  const at = Date.parse(v.endsWith('GMT') ? v : `${v} GMT`);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - referenceMs), MAX_RETRY_AFTER_MS);
}

/** `parseRetryAfter` of a response's headers, measured from its `Date` header when readable, else `nowMs`. */
export function retryAfterOfHeaders(headers: Headers, nowMs: number): number | null {
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  const date = Date.parse(headers.get('date') ?? '');
  return parseRetryAfter(raw, Number.isNaN(date) ? nowMs : date);
}
