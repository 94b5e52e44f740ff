/**
 * Whether the terminal UI can run: it needs a terminal on both ends (raw-mode keys in, cursor
 * control out), and refuses CI, where ink itself would only print a final frame (ink readme,
 * "CI"). Decided before ink is loaded, so a non-terminal run never reaches `setRawMode`.
 */

/**
 * The one line printed when the UI cannot run; names the `--json` twin of each view (Issues,
 * Errors, Detail, Storms, Draft, in that order), each runnable as printed: `line` makes the
 * command line of a twin the way the user started aap-triage, with the `--db` / `--since` they
 * gave (`CommandContext.commandLine`, src/cli/invocation.ts); `<error_id>` and `<query>` are
 * the two values only the user can fill in.
 */
export function notInteractiveMessage(line: (rest: string) => string = (rest) => `aap-triage ${rest}`): string {
  const twins = ['issues --json', 'search --json', 'show <error_id> --json', 'storms --json', 'draft --query <query> --format md'].map(line);
  return `aap-triage: the terminal UI needs an interactive terminal (stdin and stdout a TTY, CI unset); use the --json commands instead: ${twins.join(', ')}`;
}

/** {@link notInteractiveMessage} for an installed `aap-triage`. */
export const NOT_INTERACTIVE_MESSAGE = notInteractiveMessage();

/**
 * True when `CI` or `CONTINUOUS_INTEGRATION` is set to anything but `0`/`false` — the same test
 * as ink's `is-in-ci`, under which ink stops redrawing and ignores resizes.
 */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  return ['CI', 'CONTINUOUS_INTEGRATION'].some((k) => k in env && env[k] !== '0' && env[k] !== 'false');
}

/** Why the UI cannot run here, or null when it can. */
export function interactiveProblem(stdin: { isTTY?: boolean }, stdout: { isTTY?: boolean }, env: NodeJS.ProcessEnv): string | null {
  if (!stdin.isTTY) return 'stdin is not a terminal';
  if (!stdout.isTTY) return 'stdout is not a terminal';
  if (isCi(env)) return 'CI is set';
  return null;
}
