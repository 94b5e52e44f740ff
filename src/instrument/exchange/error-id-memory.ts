/**
 * Recently seen `error_id`s, to catch a dealer that reuses one (issue 15). The audit store keys
 * rows by `error_id`, so a second error under the same id would lose its row; spec/aap-errors.txt
 * makes the id a "Unique identifier for this error instance". Only error rows touch this; the
 * success path never does.
 */

/** The conformance id an audit row carries when its wire `error_id` was already used. */
export const ERROR_ID_REUSED = 'error-id-reused';

/**
 * A bounded set of ids, oldest forgotten first. NOTE: about 100 bytes per id. The order is kept
 * in a ring of the ids, not read from the Set: the oldest entry of a Set that is deleted from at
 * the front is found by walking over every deleted slot before it, which cost 7–24 µs per error
 * once 50 000 ids were held (issue 14).
 */
export class ErrorIdMemory {
  private readonly ids = new Set<string>();
  private readonly ring: string[] = [];
  /** Index in `ring` of the oldest id once the ring is full. */
  private head = 0;

  private readonly max: number;

  /** `max`: ids remembered (at least 1). */
  constructor(max = 50_000) {
    this.max = Math.max(1, Math.floor(max));
  }

  /** Remembers `id`; true when it was already there (a reuse). */
  seen(id: string): boolean {
    if (this.ids.has(id)) return true;
    if (this.ring.length < this.max) this.ring.push(id);
    else {
      this.ids.delete(this.ring[this.head] as string);
      this.ring[this.head] = id;
      this.head = (this.head + 1) % this.max;
    }
    this.ids.add(id);
    return false;
  }
}
