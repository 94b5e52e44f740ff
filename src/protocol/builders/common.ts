/**
 * Rules every builder shares (issue 2 "Common rules"): no stack trace in a message, `created_at`
 * as RFC 3339 UTC, JSON-safe details, error ids minted when not given, no draft identifiers.
 */
import { AAP_DRAFT_HOST } from '../codes/aap-codes.js';

const DRAFT_IDENTIFIER = new RegExp(`\\b${AAP_DRAFT_HOST.replace(/\./g, '\\.')}\\b`, 'i');

/**
 * Stack frames by runtime. Every pattern must only match text that STACK_HINT also matches
 * (test/protocol/stack-trace.test.ts checks it on generated frames): the hint is tested first.
 * @internal exported for that test.
 */
export const STACK_PATTERNS: readonly RegExp[] = [
  // V8 / JavaScript frames, on their own line or inline after the error text:
  // "    at fn (/app/x.js:10:5)", "TypeError: boom at Foo (/x.js:1:2)", "at async file:///app/x.mjs:3:9",
  // "at node:internal/…:1:2". A frame names a path-like location with :line(:column). The indent
  // is `[ \t]*`, not `\s*`: `\s*` after `(^|\n)` runs over every following line break, which made
  // a long run of them quadratic (100 KB took 24 s).
  /(^|\n)[ \t]*at\s+(?:async\s+)?(?:[^\n()]*\()?(?:file:\/\/|node:|\/|[A-Za-z]:\\|<anonymous>)[^\n]*:\d+(?::\d+)?\)?/,
  /(^|\n)[ \t]*at\s+[\w$.<>[\]]+\s+\([^)\n]*:\d+:\d+\)/,
  /\bat\s+(?:async\s+)?[\w$.<>[\]]+\s+\((?:file:\/\/|node:|\/|\.{0,2}\/|[A-Za-z]:\\|<anonymous>)[^)\n]*:\d+:\d+\)/,
  /\bat\s+(?:async\s+)?(?:file:\/\/|node:|\/)[^\s()]*:\d+:\d+/,
  // V8 frames of builtins, which have no line: "at Array.map (<anonymous>)", "at new Promise (<anonymous>)".
  /\bat\s+(?:new\s+|async\s+)?[\w$.<>[\]]+\s+\(<anonymous>\)/,
  // Java / .NET frames: "at com.example.Foo.bar(Foo.java:42)", "at X.Y() in C:\x.cs:line 12"
  // Java 9+ prefixes the module or class loader: "at java.base/java.lang.Thread.run(Thread.java:833)", "at app//x.Y.z(Y.java:7)".
  /\bat\s+(?:[\w$.@-]+\/{1,2})?[\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)/,
  /\sin\s+\S+:line\s+\d+/,
  // Python
  /Traceback \(most recent call last\)/,
  /\bFile "[^"\n]+", line \d+/,
  // Go
  /\bgoroutine \d+ \[/,
  // Go frame locations: "\t/app/main.go:12 +0x1d", and an inlined frame's "\t/app/main.go:12".
  /\.go:\d+ \+0x[0-9a-f]+\b/,
  /(^|\n)\t\S+\.go:\d+/,
];

/**
 * Text every match of STACK_PATTERNS contains: `:` and a digit (the JavaScript, Java, Kotlin and
 * Go frames' `:line`), `line` and a digit (.NET, Python), a V8 builtin's `(<anonymous>)`, or
 * the Python and Go headers. One test of it clears an ordinary message, which is
 * checked several times per error (issue 14). @internal exported for the test.
 */
export const STACK_HINT = /:\d|line\s+\d|\(<anonymous>\)|Traceback \(|goroutine \d/;

/**
 * True when `text` looks like it contains a stack trace (JavaScript, Java/.NET, Python or Go
 * frames). Spec: "Dealer agents MUST NOT leak internal stack traces in message."
 */
export function containsStackTrace(text: string): boolean {
  return STACK_HINT.test(text) && STACK_PATTERNS.some((re) => re.test(text));
}

/**
 * True when `text` contains an AAP draft identifier (`draft.autoagentprotocol.invalid`, the
 * non-routable host of the spec's illustrative URIs). Spec: "Draft extension identifiers below are
 * illustrative and MUST NOT be deployed".
 */
export function containsDraftIdentifier(text: string): boolean {
  return DRAFT_IDENTIFIER.test(text);
}

/** Throws a TypeError naming `option` when `text` contains an AAP draft identifier. */
export function checkNoDraftIdentifier(text: string, option: string): void {
  if (containsDraftIdentifier(text)) {
    throw new TypeError(`${option} contains the draft identifier ${AAP_DRAFT_HOST}, which MUST NOT be deployed; use the approved version URI`);
  }
}

/**
 * `text` without the lines that look like stack frames (see {@link containsStackTrace}), for a
 * message that echoes what a caller sent: the builders refuse a stack trace, so a dealer that
 * puts caller text into a message strips it first rather than throw. Returns `fallback` when
 * nothing usable is left. Never throws.
 */
export function stripStackTrace(text: unknown, fallback: string): string {
  if (typeof text !== 'string') return fallback;
  if (!containsStackTrace(text)) {
    // The usual case: every line is kept, so the text is the result (trimmed).
    const whole = text.trim();
    return whole.length > 0 ? whole : fallback;
  }
  const kept = text
    .split('\n')
    .filter((line) => !containsStackTrace(line))
    .join('\n')
    .trim();
  return kept.length > 0 && !containsStackTrace(kept) ? kept : fallback;
}

/**
 * Throws a TypeError naming `option` when `message` is not a non-empty string, contains a stack
 * trace or an AAP draft identifier. Returns the message.
 */
export function checkMessage(message: unknown, option: string, required = true): string | undefined {
  if (message === undefined && !required) return undefined;
  if (typeof message !== 'string' || message.length === 0) {
    throw new TypeError(`${option} must be a non-empty string`);
  }
  if (containsStackTrace(message)) {
    throw new TypeError(`${option} contains a stack trace; put safe diagnostics in details instead`);
  }
  checkNoDraftIdentifier(message, option);
  return message;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The last string {@link isRfc3339} accepted. */
let lastRfc3339: string | null = null;

/**
 * True when `value` is an RFC 3339 `date-time` (§5.6) naming a real instant: four-digit year, a
 * day that exists in its month (no 30 February; 29 February only in leap years), `T` between date
 * and time, hours 00-23, minutes and seconds 00-59, and a time zone (`Z` or `±HH:MM`, colon
 * required). Leap seconds are refused (JavaScript cannot represent them). This is the one
 * date-time check of the project: the builders, the conformance rules and the JSON Schemas'
 * `format: "date-time"` (see `schemas.ts`) all use it.
 */
export function isRfc3339(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // The error path checks one error's created_at several times, and errors of one second share it.
  if (value === lastRfc3339) return true;
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!)) return false;
  if (h > 23 || mi > 59 || s > 59) return false;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  if (Number.isNaN(Date.parse(value))) return false;
  lastRfc3339 = value;
  return true;
}

/** Epoch ms of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: RFC 3339 years have four digits. */
const FIRST_RFC3339_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_RFC3339_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `created_at` as RFC 3339 UTC with second precision (`2026-04-30T10:15:30Z`), from a Date, epoch
 * milliseconds, or an RFC 3339 string (normalised to UTC). Default: now. Throws TypeError naming
 * `createdAt` for anything else, and RangeError for a time before year 0000 or after year 9999
 * (RFC 3339 §5.6 `date-fullyear` is four digits; `toISOString` would write `+010000-…`).
 */
export function toCreatedAt(createdAt?: Date | string | number): string {
  // The error path calls this twice per error (AapError, then its envelope) with the same second:
  // the last result is kept, so neither the RFC 3339 check nor toISOString runs again (issue 14).
  if (typeof createdAt === 'string' && createdAt === lastCreatedAt.text) return createdAt;
  let ms: number;
  if (createdAt === undefined) ms = Date.now();
  else if (createdAt instanceof Date) ms = createdAt.getTime();
  else if (typeof createdAt === 'number') ms = createdAt;
  else if (isRfc3339(createdAt)) ms = Date.parse(createdAt);
  else throw new TypeError('createdAt must be a Date, epoch milliseconds, or an RFC 3339 date-time with a time zone');
  const second = Math.floor(ms / 1000);
  if (second === lastCreatedAt.second) return lastCreatedAt.text;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new TypeError('createdAt is not a valid time');
  if (ms < FIRST_RFC3339_MS || ms > LAST_RFC3339_MS) {
    throw new RangeError('createdAt must fall in the years 0000-9999 (RFC 3339 has four-digit years)');
  }
  const text = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  lastCreatedAt = { second, text };
  return text;
}

/** The last value {@link toCreatedAt} returned, and its epoch second. */
let lastCreatedAt: { second: number; text: string } = { second: Number.NaN, text: '' };

/**
 * A deep, JSON-only copy of `value`; throws TypeError naming `option` when it is not JSON-safe or
 * holds an AAP draft identifier.
 */
export function jsonCopy<T>(value: T, option: string): T {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`${option} is not JSON-serialisable: ${(err as Error).message}`);
  }
  if (typeof text !== 'string') throw new TypeError(`${option} is not JSON-serialisable`);
  checkNoDraftIdentifier(text, option);
  return JSON.parse(text) as T;
}

/** Checks a caller-supplied error id: a non-empty string of at most 128 visible characters. */
export function checkErrorId(errorId: unknown, option = 'errorId'): string {
  if (typeof errorId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(errorId)) {
    throw new TypeError(`${option} must be 1–128 printable ASCII characters without spaces`);
  }
  return errorId;
}
