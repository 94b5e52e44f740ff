/**
 * A process-wide patch of a few properties of one object (a prototype, `globalThis`), shared by
 * every triage instance and undone exactly when the last one leaves (DESIGN §8: "`disable()` undoes
 * every install"; contrib's `_unpatch` for every `_patch`).
 *
 * - `install()` patches on the first user and returns that user's `uninstall()` (idempotent).
 * - The last `uninstall()` restores each property's own descriptor as it was found — or deletes
 *   the property when the object had none of its own (an inherited `emit`) — but only where the
 *   value is still ours: a patch someone laid over ours later is left alone (ours then stays
 *   below it, passing everything through).
 * - While `busy()` says exchanges are still in flight (a response whose body the tap holds), the
 *   restore waits: `settle()`, called when one ends, completes it. Restoring under a held body
 *   would lose it.
 */
export class PropertyPatch {
  private users = 0;
  private saved: Map<PropertyKey, PropertyDescriptor | undefined> | null = null;
  private ours: Map<PropertyKey, unknown> | null = null;
  private restorePending = false;

  /**
   * @param target the object whose own properties are replaced
   * @param make builds the replacement values from the current (original) ones; called once per patching
   * @param busy whether a restore must wait (work in flight that still calls the replacements)
   */
  constructor(
    private readonly target: object,
    private readonly make: (current: Record<PropertyKey, unknown>) => Record<PropertyKey, unknown>,
    private readonly busy: () => boolean = () => false,
  ) {}

  /** Whether the replacements are on the target now. */
  get active(): boolean {
    return this.ours !== null;
  }

  /** Adds a user (patching on the first). Returns its `uninstall()`, which acts once. */
  install(): () => void {
    this.users++;
    this.restorePending = false;
    if (!this.ours) this.apply();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.users--;
      if (this.users === 0) {
        this.restorePending = true;
        this.settle();
      }
    };
  }

  /** Completes a restore that waited for in-flight work; call when such work ends. */
  settle(): void {
    if (!this.restorePending || this.users > 0 || this.busy()) return;
    this.restorePending = false;
    this.restore();
  }

  private apply(): void {
    const t = this.target as Record<PropertyKey, unknown>;
    const replacements = this.make(t);
    const keys = Reflect.ownKeys(replacements);
    this.saved = new Map(keys.map((k) => [k, Object.getOwnPropertyDescriptor(t, k)]));
    this.ours = new Map(keys.map((k) => [k, replacements[k]]));
    for (const k of keys) {
      const before = this.saved.get(k);
      Object.defineProperty(t, k, {
        value: replacements[k],
        writable: before?.writable ?? true,
        enumerable: before?.enumerable ?? false,
        configurable: true,
      });
    }
  }

  private restore(): void {
    const t = this.target as Record<PropertyKey, unknown>;
    const saved = this.saved;
    const ours = this.ours;
    this.saved = null;
    this.ours = null;
    if (!saved || !ours) return;
    for (const [k, before] of saved) {
      const d = Object.getOwnPropertyDescriptor(t, k);
      if (!d || d.value !== ours.get(k)) continue;
      if (before) Object.defineProperty(t, k, before);
      else delete t[k];
    }
  }
}
