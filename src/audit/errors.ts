/** Why an audit database cannot be read (see {@link AuditStoreError}). */
export type AuditStoreErrorKind = 'missing' | 'unreadable' | 'not-an-audit-db' | 'schema-too-old' | 'schema-too-new' | 'native-module';

/**
 * Thrown by `openAuditReader`, `pruneOlderThan` and `forgetSubject` when the store cannot be
 * used. `message` is one line that says what to do; `kind` is stable for programs (the CLI's
 * `doctor` maps it to advice and an exit code). `cause` holds the underlying error, if any.
 */
export class AuditStoreError extends Error {
  override readonly name = 'AuditStoreError';
  readonly kind: AuditStoreErrorKind;
  /** The database path the error is about. */
  readonly path: string;

  constructor(kind: AuditStoreErrorKind, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.path = path;
  }
}

/** Why no pseudonymisation key could be loaded (see {@link PseudonymKeyError}). */
export type PseudonymKeyErrorKind = 'missing' | 'unreadable' | 'too-short';

/** Thrown by `loadPseudonymizer`; the message names the file or variable and what to do. */
export class PseudonymKeyError extends Error {
  override readonly name = 'PseudonymKeyError';
  readonly kind: PseudonymKeyErrorKind;

  constructor(kind: PseudonymKeyErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}
