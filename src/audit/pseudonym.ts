/**
 * Keyed pseudonyms (DESIGN §5, issue #4 "Pseudonyms"): `HMAC-SHA256(secret, domain ‖ normalised
 * value)`, truncated to 16 bytes and base64url-encoded (22 characters). Never a plain hash: an
 * unkeyed SHA-256 of a phone or email is reversible by brute force.
 *
 * Each role has its own domain prefix (`client\0`, `fingerprint\0`, `idempotency\0`,
 * `subject\0`), so one raw value used in two roles gives two unrelated pseudonyms.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import type * as PhoneModule from 'libphonenumber-js';
import type { CountryCode } from 'libphonenumber-js';
import { PseudonymKeyError } from './errors.js';
import type { AuditLogger } from './logger.js';
import { defaultLogger } from './logger.js';
import { dbTargetProblem, defaultKeyFilePath, resolveDbPath } from './paths.js';

/** Bytes of HMAC output kept (128 bits: collision-free at audit scale, short in the UI). */
export const PSEUDONYM_BYTES = 16;
/** Shortest secret accepted (characters); the generated key file holds 64. */
export const MIN_SECRET_LENGTH = 16;
/** Largest key file read (bytes): a key is a line of text, so `/dev/zero` or a log file is refused unread. */
export const MAX_KEY_FILE_BYTES = 4096;
/** Nesting depth beyond which `fingerprint` stops descending (a marker stands for the rest). */
const MAX_CANONICAL_DEPTH = 64;

/** The roles a pseudonym can play; each is a separate HMAC domain. */
export type PseudonymKind = 'client' | 'fingerprint' | 'idempotency' | 'subject';

/** Turns raw values into keyed pseudonyms. All methods return null for an absent/empty value. */
export interface Pseudonymizer {
  /** Short non-secret id of the key (8 hex of `HMAC(secret, 'key-id')`); stored as `key_id`. */
  readonly keyId: string;
  /** Pseudonym of the caller's credential (API key, bearer token), as it is. */
  client(credential: string | null | undefined): string | null;
  /**
   * Pseudonym of the canonicalised call: method, skill/tool and params with object keys sorted
   * recursively, leaving out the A2A `params.message.messageId` (the JSON-RPC id is never passed).
   * `params` is the parsed JSON value, so key order and whitespace of the wire do not matter.
   */
  fingerprint(method: string, skill: string | null | undefined, params: unknown): string;
  /** Pseudonym of the request's `idempotency_key`, as it is. */
  idempotency(key: string | null | undefined): string | null;
  /** Pseudonym of a customer's email or phone, normalised first (see {@link normalizeSubject}). */
  subject(emailOrPhone: string | null | undefined): string | null;
  /** The pseudonym of `raw` in the given role with the current key: how the CLI searches. Throws a TypeError for another kind. */
  lookup(kind: 'client' | 'idempotency' | 'subject', raw: string): string | null;
}

/** Options of {@link loadPseudonymizer}. */
export interface PseudonymizerOptions {
  /** Audit database path; the default key file sits beside it. Default: `AAP_TRIAGE_DB` or `./aap-triage.db`. */
  dbPath?: string;
  /** Environment to read `AAP_TRIAGE_KEY` / `AAP_TRIAGE_DB` from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Key file. Default: `<dbPath>.key`. */
  keyFile?: string;
  /** Region national phone numbers are read in (ISO 3166-1 alpha-2). Default: `AAP_TRIAGE_PHONE_REGION`, else `US`. */
  phoneRegion?: string;
  /** Create the key file (32 random bytes as 64 hex, mode 0600) when neither key exists. Default: true. */
  create?: boolean;
  /** pino-compatible logger for "created key file at …". Default: pino to stderr. */
  logger?: AuditLogger;
}

/** Region phones without a country code are read in when none is configured (`AAP_TRIAGE_PHONE_REGION`). */
export const DEFAULT_PHONE_REGION = 'US';

let phoneLib: typeof PhoneModule | undefined;
/**
 * libphonenumber-js, `require`d (its CommonJS build, synchronous) on first use: its ES build is
 * 112 modules, which `import('aap-triage')` would otherwise load in every host (issue 13).
 */
function phone(): typeof PhoneModule {
  phoneLib ??= createRequire(import.meta.url)('libphonenumber-js') as typeof PhoneModule;
  return phoneLib;
}

/**
 * The phone region from `value` (ISO 3166-1 alpha-2, e.g. `GB`, case-insensitive), or
 * {@link DEFAULT_PHONE_REGION} when empty. Throws a RangeError naming the value for a region
 * libphonenumber-js does not know.
 */
export function resolvePhoneRegion(value: string | undefined): string {
  const region = (value ?? '').trim().toUpperCase();
  // The default needs no look-up: loading libphonenumber-js (84 files) waits for the first phone.
  if (region === '' || region === DEFAULT_PHONE_REGION) return DEFAULT_PHONE_REGION;
  if (!/^[A-Z]{2}$/.test(region) || !phone().isSupportedCountry(region)) {
    throw new RangeError(`Expected AAP_TRIAGE_PHONE_REGION / phoneRegion to be a two-letter country code such as GB or US, got ${JSON.stringify(value)}`);
  }
  return region;
}

/**
 * Normalise an email or phone before pseudonymising (issue #4, issue #17 "Erasure"):
 * - contains `@` → email: trimmed and lower-cased;
 * - otherwise → phone in E.164 form by libphonenumber-js: a number with a country code (`+44 …`,
 *   `0044 …`) as written, a national one (`07700 900123`) read in `region` (default
 *   {@link DEFAULT_PHONE_REGION}), so both spellings of one number give one pseudonym. A number
 *   libphonenumber-js cannot place (too short, too long for any plan) keeps its digits behind a
 *   `+` (best effort: the same input still always maps the same).
 * Returns null for an empty value or one with neither `@` nor digits.
 */
export function normalizeSubject(value: string, region: string = DEFAULT_PHONE_REGION): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (trimmed.includes('@')) return trimmed.toLowerCase();
  const text = trimmed.startsWith('00') ? `+${trimmed.slice(2)}` : trimmed;
  const digits = text.replace(/\D/g, '');
  if (digits === '') return null;
  try {
    const parsed = phone().parsePhoneNumberFromString(text, region as CountryCode);
    if (parsed?.isPossible()) return parsed.number;
  } catch {
    // not a phone libphonenumber-js can read: the fallback below
  }
  return `+${digits}`;
}

/**
 * Canonical JSON of a parsed value: object keys sorted (UTF-16 code unit order), `undefined`
 * members dropped, non-JSON values as `null`, and `message.messageId` under the top level left
 * out. Never throws (cycles and very deep nesting become a marker string).
 */
export function canonicalParams(params: unknown): string {
  return canonical(params === undefined ? null : params, 0, true, false, []);
}

/**
 * The walk behind {@link canonicalParams}: one recursive function appending to strings, no
 * closure or key-list join per call (it runs on every error row, over the whole request).
 * `open` holds the objects being walked, for cycles.
 */
function canonical(value: unknown, depth: number, atTop: boolean, inMessage: boolean, open: object[]): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  if (depth >= MAX_CANONICAL_DEPTH || open.includes(value)) return '"\u0000…"';
  open.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += canonical(item === undefined ? null : item, depth + 1, false, false, open);
    }
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length > 1) keys.sort();
    out = '{';
    let first = true;
    for (const key of keys) {
      if (inMessage && key === 'messageId') continue;
      const member = record[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      if (!first) out += ',';
      first = false;
      out += JSON.stringify(key) + ':' + canonical(member, depth + 1, false, atTop && key === 'message', open);
    }
    out += '}';
  }
  open.pop();
  return out;
}

// The key is a KeyObject made once per pseudonymizer: a string key would be converted on every
// call (the same UTF-8 bytes, so the same HMAC values). Two one-shot `crypto.hash` calls over
// precomputed pads cost more (15 k instructions each, OpenSSL's digest fetch) than this (29 k).
function hmac(key: KeyObject, domain: PseudonymKind | 'key-id', value: string): Buffer {
  return createHmac('sha256', key).update(`${domain}\u0000${value}`, 'utf8').digest();
}

/**
 * Build a {@link Pseudonymizer} from a secret string (its UTF-8 bytes are the HMAC key).
 * `phoneRegion` (default {@link DEFAULT_PHONE_REGION}) is the region national phone numbers are
 * read in; writers and the CLI must agree on it, so both take `AAP_TRIAGE_PHONE_REGION`.
 */
export function createPseudonymizer(secret: string, options: { phoneRegion?: string } = {}): Pseudonymizer {
  const region = resolvePhoneRegion(options.phoneRegion);
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new PseudonymKeyError('too-short', `pseudonym secret is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const pseudo = (kind: PseudonymKind, value: string) => hmac(key, kind, value).subarray(0, PSEUDONYM_BYTES).toString('base64url');
  const keyId = createHmac('sha256', secret).update('key-id', 'utf8').digest('hex').slice(0, 8);
  const asIs = (kind: 'client' | 'idempotency') => (raw: string | null | undefined) =>
    typeof raw === 'string' && raw !== '' ? pseudo(kind, raw) : null;
  const client = asIs('client');
  const idempotency = asIs('idempotency');
  const subject = (raw: string | null | undefined) => {
    if (typeof raw !== 'string') return null;
    const normalised = normalizeSubject(raw, region);
    return normalised === null ? null : pseudo('subject', normalised);
  };
  return {
    keyId,
    client,
    idempotency,
    subject,
    fingerprint(method, skill, params) {
      return pseudo('fingerprint', `${method}\u0000${skill ?? ''}\u0000${canonicalParams(params)}`);
    },
    lookup(kind, raw) {
      if (kind === 'client') return client(raw);
      if (kind === 'idempotency') return idempotency(raw);
      if (kind === 'subject') return subject(raw);
      throw new TypeError(`Expected lookup kind "client", "idempotency" or "subject", got ${JSON.stringify(kind)}`);
    },
  };
}

/**
 * Reads a key file: a regular file (never a device, FIFO or folder; opened non-blocking so a FIFO
 * cannot stall the host), at most {@link MAX_KEY_FILE_BYTES}, not readable by group or others.
 */
function readKeyFile(keyFile: string): string {
  const unreadable = (why: string, cause?: unknown): PseudonymKeyError =>
    new PseudonymKeyError('unreadable', `pseudonym key file ${keyFile} ${why}`, cause === undefined ? undefined : { cause });
  let fd: number;
  try {
    fd = openSync(keyFile, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw unreadable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check its owner and mode (0600)`, error);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw unreadable('is not a regular file: point --key-file at the key file (one line of text, mode 0600)');
    if (st.size > MAX_KEY_FILE_BYTES) throw unreadable(`is larger than ${MAX_KEY_FILE_BYTES} bytes: a key file holds one line (the secret)`);
    if ((st.mode & 0o077) !== 0) {
      throw unreadable(`is readable by group/others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it, then rotate the key if others may have read it`);
    }
    const buf = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    let len = 0;
    for (;;) {
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
      if (len > MAX_KEY_FILE_BYTES) throw unreadable(`is larger than ${MAX_KEY_FILE_BYTES} bytes: a key file holds one line (the secret)`);
    }
    text = buf.subarray(0, len).toString('utf8').trim();
  } catch (error) {
    if (error instanceof PseudonymKeyError) throw error;
    throw unreadable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check its owner and mode (0600)`, error);
  } finally {
    closeSync(fd);
  }
  if (text.length < MIN_SECRET_LENGTH) {
    throw new PseudonymKeyError('too-short', `pseudonym key file ${keyFile} holds fewer than ${MIN_SECRET_LENGTH} characters`);
  }
  return text;
}

/** Create the key file atomically (temp file + link), so concurrent first starts agree on one key. */
function createKeyFile(keyFile: string, logger: AuditLogger): string {
  const secret = randomBytes(32).toString('hex');
  const temp = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // The database folder may not exist yet (the writer thread creates it too): made here first,
    // so a new store's key is saved, never a key that dies with the process.
    mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${secret}\n`);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, 0o600);
    linkSync(temp, keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(keyFile);
    throw new PseudonymKeyError(
      'unreadable',
      `cannot create pseudonym key file ${keyFile} (folder ${dirname(keyFile)}): set AAP_TRIAGE_KEY or make the folder writable`,
      { cause: error },
    );
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
  logger.info({ keyFile }, `created pseudonym key file at ${keyFile} (mode 0600; keep it out of git and backups of the database)`);
  return secret;
}

/**
 * Load the pseudonymisation key and return a {@link Pseudonymizer} (issue #4 "Pseudonyms").
 * The secret is `AAP_TRIAGE_KEY` when set (≥ 16 characters, used as its UTF-8 bytes), else the
 * trimmed text of the key file (default `<db>.key`), which is created (64 hex characters from
 * 32 random bytes, mode 0600; its folder first) when missing and `create` is true. The secret is
 * never logged. A key file must be a regular file of at most {@link MAX_KEY_FILE_BYTES} bytes,
 * not readable by group or others.
 *
 * @throws {PseudonymKeyError} `missing` (no key and `create: false`), `unreadable` (also: not a
 * regular file, too large, readable by others), `too-short` (also for `AAP_TRIAGE_KEY`).
 * @throws {RangeError} for an `AAP_TRIAGE_PHONE_REGION` / `phoneRegion` that is not a known region.
 */
export function loadPseudonymizer(options: PseudonymizerOptions = {}): Pseudonymizer {
  const env = options.env ?? process.env;
  const logger = options.logger ?? defaultLogger();
  const phoneRegion = resolvePhoneRegion(options.phoneRegion ?? env['AAP_TRIAGE_PHONE_REGION']);
  const fromEnv = env['AAP_TRIAGE_KEY']?.trim();
  if (fromEnv) {
    if (fromEnv.length < MIN_SECRET_LENGTH) {
      throw new PseudonymKeyError('too-short', `AAP_TRIAGE_KEY is shorter than ${MIN_SECRET_LENGTH} characters: use a longer random secret`);
    }
    return createPseudonymizer(fromEnv, { phoneRegion });
  }
  const target = resolveDbPath(options.dbPath, env);
  // A mistyped store URL (`pg://…`) names no place for a key file: say what is wrong with it.
  const targetProblem = options.keyFile === undefined ? dbTargetProblem(target) : null;
  if (targetProblem !== null) throw new PseudonymKeyError('unreadable', targetProblem);
  const keyFile = options.keyFile ?? defaultKeyFilePath(target);
  let exists = true;
  try {
    statSync(keyFile);
  } catch {
    exists = false;
  }
  if (exists) return createPseudonymizer(readKeyFile(keyFile), { phoneRegion });
  if (options.create === false) {
    throw new PseudonymKeyError('missing', `no pseudonym key: set AAP_TRIAGE_KEY or create ${keyFile} (the instrumented server creates it on first start)`);
  }
  return createPseudonymizer(createKeyFile(keyFile, logger), { phoneRegion });
}
