/**
 * The outgoing request body as text, when it can be read without consuming anything (the SDK
 * sends a string). What the calls in it are is `src/protocol`'s `classifyRequest`. Internal.
 */

/** The request body as text; null for streams, FormData and other bodies that cannot be re-read. */
export function bodyText(body: unknown): string | null {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  return null;
}

/** What the telemetry reads of one call: id, method, skill (AAP skill or DMC-12 tool). */
export interface CallInfo {
  id: string | number | null;
  method: string | null;
  skill: string | null;
}
