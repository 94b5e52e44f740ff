/**
 * node:crypto, taken on the first id rather than at import: `import('aap-triage')` loads this
 * module through the constants it exports but mints nothing, and node:crypto is a fifth of what
 * that import would cost (issue 31 "Start-up"). No host's first error pays for loading it: the
 * instrumentation's runtime (src/instrument/runtime.ts) and the `aap-triage/protocol` entry
 * import it before any id is minted.
 */
let crypto: typeof import('node:crypto') | undefined;

/** Loads node:crypto now (idempotent): for an entry point whose first id must not pay for it. */
export function loadIdRandomness(): void {
  crypto ??= process.getBuiltinModule('node:crypto');
}
/** Shape of an id minted by `mintErrorId`: `err_` + 32 lowercase hex. */
export const ERROR_ID_PATTERN = /^err_[0-9a-f]{32}$/;

let lastMs = -1;
let seq = 0;
const bytes = Buffer.alloc(16);
/**
 * Random bytes drawn 4 KiB at a time: one call into OpenSSL per ~400 ids instead of two per id
 * (each a few µs on an error storm's hot path, issue 14). Fresh bytes are never reused.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function random(target: Buffer, offset: number, length: number): void {
  if (poolAt + length > pool.length) {
    loadIdRandomness();
    (crypto as typeof import('node:crypto')).randomFillSync(pool);
    poolAt = 0;
  }
  pool.copy(target, offset, poolAt, poolAt + length);
  poolAt += length;
}

/**
 * A UUIDv7 (RFC 9562 §5.7) as 32 lowercase hex digits: 48 bits of Unix time in ms, then 12
 * bits that count up within one millisecond (from a random start, so ids stay time-ordered
 * within a process, RFC 9562 §6.2 method 1), then 62 random bits. A few lines of our own rather
 * than the `uuid` package, whose ES build loads 21 modules into every host (issue 13).
 */
export function uuidv7Hex(): string {
  let ms = Date.now();
  random(bytes, 8, 8);
  if (ms > lastMs) {
    lastMs = ms;
    random(bytes, 6, 2);
    seq = bytes.readUInt16BE(6) & 0x7ff;
  } else {
    // Same millisecond (or the clock stepped back): count up; on overflow borrow the next ms.
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    ms = lastMs;
  }
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (seq >> 8);
  bytes[7] = seq & 0xff;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes.toString('hex');
}

/**
 * A new error id: `err_` + the 32 lowercase hex digits of a UUIDv7 (time-ordered, so the audit
 * store's primary key grows at its right edge; DESIGN §5). Same shape DMC-12 uses (`err_<hex>`).
 */
export function mintErrorId(): string {
  return `err_${uuidv7Hex()}`;
}

/**
 * A time-ordered error id: `err_` + 32 hex digits whose 13th is the UUID version 7. The variant
 * bits are not required: other dealers' ids of this shape are read the same way, and a wrong
 * guess costs only the fallback lookup.
 */
const TIME_ORDERED_ID = /^err_([0-9a-f]{12})7[0-9a-f]{19}$/;

/**
 * The creation time (epoch ms) an error id minted by {@link mintErrorId} (or any `err_` +
 * UUIDv7) carries in its first 48 bits, or null for an id that is not time-ordered. A lookup by
 * id uses it to go straight to the rows of that time (PostgreSQL's day partitions); the time is
 * the minting clock's, so a lookup must fall back when the row is not near it.
 */
export function errorIdTime(errorId: string): number | null {
  const m = TIME_ORDERED_ID.exec(errorId);
  return m ? Number.parseInt(m[1]!, 16) : null;
}
