/**
 * The demo's AAP dealer runs on @a2a-js/sdk, which writes its own errors straight to
 * `console.error` with the whole Error (a stack trace), and has no logger option in 1.3. A
 * probe or a misbehaving buyer makes it do that on purpose; the demo prints those lines as one
 * line each, without the stack (issue 28). Lines of anyone else pass through unchanged.
 */
import { format } from 'node:util';

/** How the SDK's own error lines start (@a2a-js/sdk 1.3 server). */
export const SDK_ERROR_PREFIXES: readonly string[] = ['Agent execution failed for', 'Unhandled error in JSON-RPC POST handler', 'Pre-stream error for request'];

/** One line for a console argument: an Error as `Name: message` (first line), else as console prints it. */
function oneLine(arg: unknown): string {
  const text = arg instanceof Error ? `${arg.name}: ${arg.message}` : typeof arg === 'string' ? arg : format('%o', arg);
  return text.split('\n')[0] ?? '';
}

/**
 * Replaces `console.error` so the SDK's lines (`SDK_ERROR_PREFIXES`) reach the previous
 * `console.error` as one string without stack traces; returns the function that puts it back.
 */
export function condenseSdkErrors(): () => void {
  const previous = console.error;
  const condensed = (...args: unknown[]): void => {
    const first = args[0];
    if (typeof first === 'string' && SDK_ERROR_PREFIXES.some((p) => first.startsWith(p))) previous.call(console, args.map(oneLine).join(' '));
    else previous.apply(console, args);
  };
  console.error = condensed;
  return () => {
    if (console.error === condensed) console.error = previous;
  };
}
