/**
 * `node:http` adapter: `http.createServer(wrapListener(triage, listener))` is the same as
 * `http.createServer(triage.wrap(listener))`.
 */
import type { RequestListener } from 'node:http';
import type { Triage } from './types.js';

export function wrapListener<L extends RequestListener>(triage: Triage, listener: L): L {
  return triage.wrap(listener);
}
