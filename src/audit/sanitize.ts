/**
 * Sanitisers applied before anything reaches the audit store (DESIGN §5, issue #4 "Sanitising").
 * Each returns only values built from a fixed alphabet or an allow-list, so the output cannot
 * carry a value a caller sent.
 */
import { safeLegacyError } from '../protocol/value-patterns.js';
import { DEFAULT_KNOWN_NAMES } from './known-names.js';

/** Array indices above this many digits are treated as unknown: a 7+ digit "index" may be a phone. */
const MAX_INDEX_DIGITS = 5;
const INDEX = new RegExp(`^(?:0|[1-9][0-9]{0,${MAX_INDEX_DIGITS - 1}})$`);
/** Pointers longer than this many segments are cut, with a final `…` segment. */
const MAX_SEGMENTS = 32;

function keepSegment(raw: string, knownNames: ReadonlySet<string>): string {
  if (INDEX.test(raw) || raw === '-') return raw;
  // RFC 6901 escapes: compare the decoded name, keep the encoded form.
  const decoded = raw.replace(/~1/g, '/').replace(/~0/g, '~');
  return knownNames.has(decoded) ? raw : '*';
}

/**
 * Sanitise a JSON pointer from validation details (RFC 6901, `/customer/email`, optionally as a
 * URI fragment `#/customer/email`): segments that are known schema property names or array
 * indices (0–99999) stay, every other segment becomes `*`, so an unknown filter key that is
 * itself an email is never stored. Dotted / bracket paths (`customer.phone`, `items[0].vin`),
 * which some validators emit, are sanitised token by token and keep their separators.
 *
 * Never throws; a non-string input gives `''`.
 * @param knownNames names to keep; defaults to {@link DEFAULT_KNOWN_NAMES}.
 */
export function sanitizePointer(pointer: unknown, knownNames: ReadonlySet<string> = DEFAULT_KNOWN_NAMES): string {
  if (typeof pointer !== 'string' || pointer === '' || pointer === '#') return pointer === '#' ? '#' : '';
  let prefix = '';
  let body = pointer;
  if (body.startsWith('#/')) {
    prefix = '#';
    body = body.slice(1);
  }
  if (body.startsWith('/')) {
    const segments = body.slice(1).split('/');
    const kept = segments.slice(0, MAX_SEGMENTS).map((s) => keepSegment(s, knownNames));
    if (segments.length > MAX_SEGMENTS) kept.push('…');
    return `${prefix}/${kept.join('/')}`;
  }
  // Dotted / bracket path: keep the separators, sanitise the names between them.
  const tokens = body.split(/([.[\]])/);
  const out: string[] = [];
  let names = 0;
  for (const token of tokens) {
    if (token === '.' || token === '[' || token === ']' || token === '') {
      out.push(token);
      continue;
    }
    if (++names > MAX_SEGMENTS) {
      out.push('…');
      break;
    }
    out.push(INDEX.test(token) || knownNames.has(token) ? token : '*');
  }
  // An unknown name may itself contain dots (an email): one star for the whole run.
  return out.join('').replace(/\*(?:\.\*)+/g, '*');
}

/**
 * The DMC-12 legacy `error` string, only when it is a machine token matching
 * `^[a-z0-9_]{1,64}$` (DESIGN §5 `legacy_error`); anything else (a sentence, a value echo) → null.
 */
export function sanitizeLegacyError(value: unknown): string | null {
  return safeLegacyError(value);
}

/**
 * The only part of an error's `details` the store keeps: the retry hint in milliseconds.
 * `details.retry_after_ms` (a finite number ≥ 0, rounded), else `details.retry_after_seconds`
 * × 1000, else null (spec/aap-errors.txt RATE_LIMITED; DMC-12 `retry_after_*`).
 */
export function retryAfterFromDetails(details: unknown): number | null {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return null;
  const record = details as Record<string, unknown>;
  const ms = record['retry_after_ms'];
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const seconds = record['retry_after_seconds'];
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  return null;
}
