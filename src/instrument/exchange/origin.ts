/**
 * Where a call came from when it was not a buyer's (issue 28): `aap-triage probe` names itself
 * `aap-triage-probe/<version>` in User-Agent on every request (src/probe/sender.ts). Its calls are
 * recorded with `origin: 'probe'`, are not counted as buyer traffic (the `traffic` table, the
 * storms' denominator) and are not tracked as retries (the probe resends near-identical bad
 * requests on purpose; they are not a client's retries). Views leave them out unless asked
 * (docs/probe.md).
 *
 * The header is the caller's claim, not a proof: a client could send it too. It is only ever
 * used to hide rows from the default views, never to drop them; `--include-probe` and the query
 * term `origin:probe` show them.
 */
import { PROBE_PRODUCT, type EventOrigin } from '../../protocol/error-event.js';

const PROBE_PREFIX = `${PROBE_PRODUCT}/`;

/**
 * The origin of a request from its headers (Node's lower-cased `IncomingHttpHeaders`): `probe`
 * when User-Agent starts with `aap-triage-probe/`, else null. Pure; never throws.
 */
export function requestOrigin(headers: Readonly<Record<string, string | string[] | undefined>> | null | undefined): EventOrigin | null {
  const ua = headers?.['user-agent'];
  const value = Array.isArray(ua) ? ua[0] : ua;
  return typeof value === 'string' && value.startsWith(PROBE_PREFIX) ? 'probe' : null;
}
