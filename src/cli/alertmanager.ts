/**
 * The Alertmanager v2 client of `aap-triage alerts`: one `POST <base>/api/v2/alerts` per period
 * (prometheus/alertmanager api/v2/openapi.yaml, `postAlerts`). Never throws: a failure comes
 * back as one line of text for stderr.
 */
import type { AlertmanagerAlert } from '../triage/index.js';

/** Environment variables of `aap-triage alerts`: the Alertmanager base URL and the runbook link of every alert. */
export const ALERTMANAGER_URL_ENV = 'AAP_TRIAGE_ALERTMANAGER_URL';
export const RUNBOOK_URL_ENV = 'AAP_TRIAGE_RUNBOOK_URL';

/** How long one post may take, ms: well under the shortest sensible period. */
const POST_TIMEOUT_MS = 10_000;

/** `<base>/api/v2/alerts` for a base URL with or without a path prefix or a trailing slash. */
export function alertsEndpoint(base: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v2/alerts`;
  u.search = '';
  u.hash = '';
  return u.toString();
}

/** Why `value` is not a usable Alertmanager URL, or null when it is (http or https). */
export function alertmanagerUrlProblem(value: string): string | null {
  if (!URL.canParse(value)) return `'${value}' is not a URL`;
  const u = new URL(value);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `'${value}' is not an http(s) URL`;
  return null;
}

/** The URL without a password, for messages. */
function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * Posts `alerts` to the Alertmanager at `base`; resolves to null when it answered 2xx, else to
 * one line saying what went wrong (unreachable, refused, a non-2xx status with the start of its
 * body). Never rejects.
 */
export async function postAlerts(base: string, alerts: readonly AlertmanagerAlert[]): Promise<string | null> {
  const endpoint = alertsEndpoint(base);
  try {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    if (res.ok) {
      await res.body?.cancel();
      return null;
    }
    const text = (await res.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
    return `Alertmanager at ${redact(endpoint)} answered ${res.status}${text ? `: ${text}` : ''}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = (error as Error).name === 'TimeoutError' ? `no answer within ${POST_TIMEOUT_MS / 1000} s` : (cause?.code ?? cause?.message ?? (error as Error).message);
    return `cannot reach Alertmanager at ${redact(endpoint)}: ${why}`;
  }
}
