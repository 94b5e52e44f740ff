/**
 * Canary values for the PII canary test (issue 4 "Tests", DESIGN §5 and §8): every value a
 * caller could send that must never reach the audit database, its WAL, the logs, the spans or a
 * metrics scrape. Each value carries a random per-run token, so it cannot occur by chance, and is
 * registered with a label so a leak report names what leaked and in which encoding.
 *
 * Fixture PII is obviously fake: `…@example.com`, `+1555…`.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';

/** One registered canary. */
export interface Canary {
  label: string;
  value: string;
  /**
   * The random part of the value, searched for on its own (and upper-cased) so a truncated,
   * re-cased or partly echoed copy is found too; absent when the whole value is random.
   */
  token?: string;
}

/** One encoding of a canary to search for. */
export interface CanaryForm {
  label: string;
  form: string;
  text: string;
}

/** VIN alphabet (ISO 3779: no I, O, Q). */
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** Phones are normalised to E.164 before pseudonymising; emails trimmed and lower-cased (issue 4). */
function normalised(value: string): string[] {
  const out: string[] = [];
  if (value.includes('@')) out.push(value.trim().toLowerCase());
  if (/^\+?[\d\s().-]{8,}$/.test(value)) out.push(`+${value.replace(/\D/g, '')}`, value.replace(/\D/g, ''));
  return out;
}

/**
 * The encodings searched for: the raw value; lower-cased emails; a phone's digits; and the plain
 * (unkeyed) SHA-256 of the raw and normalised value, as hex (full and 16-byte truncated, both
 * cases), base64 and base64url (full and 16-byte truncated, the length a pseudonym has). A keyed
 * HMAC pseudonym is what the store may hold; a plain hash is reversible by brute force.
 */
export function formsOf(c: Canary): CanaryForm[] {
  const texts = new Map<string, string>();
  texts.set(c.value, 'raw');
  for (const n of normalised(c.value)) if (!texts.has(n)) texts.set(n, 'normalised');
  const out: CanaryForm[] = [];
  for (const [text, form] of texts) out.push({ label: c.label, form, text });
  if (c.token !== undefined) {
    out.push({ label: c.label, form: 'token', text: c.token });
    if (c.token.toUpperCase() !== c.token) out.push({ label: c.label, form: 'token-upper', text: c.token.toUpperCase() });
  }
  for (const [text, form] of [...texts]) {
    const d = createHash('sha256').update(text, 'utf8').digest();
    const short = d.subarray(0, 16);
    const hashes: [string, string][] = [
      ['sha256-hex', d.toString('hex')],
      ['sha256-HEX', d.toString('hex').toUpperCase()],
      ['sha256-hex-16', short.toString('hex')],
      ['sha256-base64', d.toString('base64')],
      ['sha256-base64url', d.toString('base64url')],
      ['sha256-base64-16', short.toString('base64')],
      ['sha256-base64url-16', short.toString('base64url')],
    ];
    for (const [kind, h] of hashes) out.push({ label: c.label, form: `${kind}(${form})`, text: h });
  }
  return out;
}

/** Makes and registers canary values for one test run. */
export class CanaryFactory {
  readonly all: Canary[] = [];
  private readonly run = randomBytes(4).toString('hex');
  private seq = 0;

  private token(): string {
    this.seq += 1;
    return `${this.run}${randomBytes(4).toString('hex')}${this.seq}`;
  }

  private add(label: string, value: string, token?: string): string {
    if (this.all.some((c) => c.value === value)) throw new Error(`canary ${value} made twice`);
    this.all.push(token === undefined ? { label, value } : { label, value, token });
    return value;
  }

  /** A free-text value (name, consent text, note, message…): the token first, then `text`. */
  text(label: string, text: string): string {
    const token = this.token();
    return this.add(label, `Canary ${token} ${text}`, token);
  }

  /** A name without spaces (first or last name). */
  name(label: string): string {
    const token = this.token();
    return this.add(label, `Canaryname${token}`, token);
  }

  /** An `…@example.com` email with upper-case letters, so its lower-cased form differs. */
  email(label: string): string {
    const token = this.token();
    return this.add(label, `Canary.${token}.${label.replace(/[^A-Za-z0-9]/g, '')}@Example.com`, token);
  }

  /**
   * A valid E.164 `+1555…` phone: `+1555` and 7 random digits (11 digits), never the demo
   * dealer's own number (src/demo/inventory.ts), which its responses carry.
   */
  phone(label: string): string {
    for (;;) {
      const value = `+1555${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
      if (value !== '+15550100100' && !this.all.some((c) => c.value === value)) return this.add(label, value);
    }
  }

  /** A phone that fails E.164 validation (letters inside), which a validation message echoes. */
  badPhone(label: string): string {
    const token = this.token();
    return this.add(label, `+1555-${String(randomInt(0, 10_000_000)).padStart(7, '0')}-ext-${token}`, token);
  }

  /** A well-formed, invented 17-character VIN. */
  vin(label: string): string {
    for (;;) {
      let value = '';
      for (let i = 0; i < 17; i++) value += VIN_CHARS[randomInt(0, VIN_CHARS.length)];
      if (!this.all.some((c) => c.value === value)) return this.add(label, value);
    }
  }

  /** A machine-ish value with a fixed prefix (API key, idempotency key, ids the dealer echoes). */
  id(label: string, prefix: string): string {
    const token = this.token();
    return this.add(label, `${prefix}${token}`, token);
  }
}

/** Every (canary, encoding) found in `haystack`, as `"<where>: <label> as <form>"`. */
export function leaksIn(where: string, haystack: Buffer | string, forms: readonly CanaryForm[]): string[] {
  const buf = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  const found: string[] = [];
  for (const f of forms) {
    if (buf.includes(Buffer.from(f.text, 'utf8'))) found.push(`${where}: ${f.label} as ${f.form} (${f.text})`);
  }
  return found;
}
