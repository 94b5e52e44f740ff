/**
 * Recently seen `error_id`s, to catch a dealer that reuses one (issue 15). The audit store keys
 * rows by `error_id`, so a second error under the same id would lose its row; spec/aap-errors.txt
 * makes the id a "Unique identifier for this error instance". Only error rows touch this; the
 * success path never does.
 */

/** The conformance id an audit row carries when its wire `error_id` was already used. */
export const ERROR_ID_REUSED = 'error-id-reused';

/** A bounded set of ids (oldest forgotten first). NOTE: about 100 bytes per id. */
export class ErrorIdMemory {
  private readonly ids = new Set<string>();

  constructor(private readonly max = 50_000) {}

  /** Remembers `id`; true when it was already there (a reuse). */
  seen(id: string): boolean {
    if (this.ids.has(id)) return true;
    if (this.ids.size >= this.max) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
    this.ids.add(id);
    return false;
  }
}
