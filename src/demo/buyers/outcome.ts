/**
 * What a demo buyer learns from one call: the data of a success, or the `DealerAgentError`
 * `aap-triage/client` built from the raw envelope (never from an SDK exception, which drops the
 * AAP details: spec/aap-errors.txt "SDK error handling"), after any retries.
 */
import { DealerAgentError } from '../../client/index.js';

export type CallResult =
  | { ok: true; data: Record<string, unknown> }
  | {
      ok: false;
      /** AAP / DMC-12 code, A2A reason, the JSON-RPC code as a string, or `TRANSPORT:<name>` when no dealer answer came. */
      code: string;
      /** The dealer's error (with every attempt, after `withRetries`); null for a transport failure. */
      error: DealerAgentError | null;
    };

/** A failed call (the `ok: false` branch). */
export type CallFailure = Extract<CallResult, { ok: false }>;

/** The failure a thrown error stands for: a dealer's `DealerAgentError`, else a transport failure. */
export function failureOf(err: unknown): CallFailure {
  if (err instanceof DealerAgentError) return { ok: false, code: err.code, error: err };
  const name = err instanceof Error ? err.name : 'Error';
  return { ok: false, code: `TRANSPORT:${name}`, error: null };
}
