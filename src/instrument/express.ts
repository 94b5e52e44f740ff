/**
 * Express adapter: `app.use(expressMiddleware(triage))` is the same as `app.use(triage.middleware())`.
 * Mount it before the JSON-RPC handler; a body parser may come before or after it (the observer
 * reads `req.body` when the response is sent, or the bytes the parser pulled).
 */
import type { Triage } from './types.js';

export function expressMiddleware(triage: Triage): ReturnType<Triage['middleware']> {
  return triage.middleware();
}
