/**
 * Links from an error to its trace in the operator's tracing UI (Tempo, Jaeger, Grafana…), from
 * one URL template with a `{trace_id}` placeholder, e.g.
 * `https://tempo.example.com/trace/{trace_id}` or `http://jaeger:16686/trace/{trace_id}`.
 * The Detail view and incident drafts show the link beside the trace id. Pure.
 */

/** The environment variable that holds the template. */
export const TRACE_URL_ENV = 'AAP_TRIAGE_TRACE_URL';

/** The placeholder the trace id replaces (every occurrence). */
export const TRACE_ID_PLACEHOLDER = '{trace_id}';

/**
 * Why `template` is not a usable trace-link template, or null when it is: it must be an
 * `http:` or `https:` URL once the placeholder is filled in, and hold `{trace_id}`.
 */
export function traceUrlProblem(template: string): string | null {
  if (!template.includes(TRACE_ID_PLACEHOLDER)) return `${TRACE_URL_ENV} must contain ${TRACE_ID_PLACEHOLDER}; got '${template}'`;
  let url: URL;
  try {
    url = new URL(template.split(TRACE_ID_PLACEHOLDER).join('0'.repeat(32)));
  } catch {
    return `${TRACE_URL_ENV} must be an http(s) URL with ${TRACE_ID_PLACEHOLDER}, e.g. https://tempo.example.com/trace/${TRACE_ID_PLACEHOLDER}; got '${template}'`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${TRACE_URL_ENV} must be an http(s) URL; got '${url.protocol}'`;
  return null;
}

/**
 * The link to `traceId` under `template`, or null without a template or a trace id. The id is
 * percent-encoded (stored trace ids are 32 hex digits, so in practice it is unchanged).
 * The template is not re-checked here: check it once with {@link traceUrlProblem}.
 */
export function traceLink(template: string | null | undefined, traceId: string | null | undefined): string | null {
  if (!template || !traceId) return null;
  return template.split(TRACE_ID_PLACEHOLDER).join(encodeURIComponent(traceId));
}
