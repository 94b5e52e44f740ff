/**
 * The AAP extension URI an operator's agent card requires, named in a draft's -32008 advice
 * ("send the A2A-Extensions header naming <uri>"). Given by `draft --extension-uri` or, for
 * `draft` without the option and for the TUI, by `AAP_TRIAGE_EXTENSION_URI`. Pure.
 */

/** The environment variable that holds the URI. */
export const EXTENSION_URI_ENV = 'AAP_TRIAGE_EXTENSION_URI';

/**
 * Why `uri` (given by `source`, e.g. `--extension-uri` or {@link EXTENSION_URI_ENV}) is not a
 * usable extension URI, or null when it is: an absolute http(s) URI without whitespace. The
 * value is shown with non-printable characters as `?` (it goes to a terminal).
 */
export function extensionUriProblem(uri: string, source: string): string | null {
  if (/^https?:\/\/\S+$/.test(uri) && URL.canParse(uri)) return null;
  return `${source} '${uri.replace(/[^\x20-\x7e]/g, '?')}' is not an absolute http(s) URI`;
}
