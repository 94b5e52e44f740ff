/**
 * Flushing open sinks when the process ends (issue #4 "Flushed on shutdown, on SIGTERM/SIGINT
 * and before exit") without taking signals away from the host:
 * - `beforeExit`: hand pending records to the worker; the worker is ref'd while a batch is in
 *   flight, so the loop stays alive until it commits.
 * - `exit` (also reached through `process.exit()`): a synchronous flush, waiting on a shared
 *   counter with `Atomics.wait` while the worker thread commits.
 * - `SIGTERM` / `SIGINT`: the same synchronous flush; then, if ours is the only listener for the
 *   signal, the listener is removed and the signal re-raised, so the process dies exactly as it
 *   would have without us (default action, exit status 128+n). If the host has its own listener,
 *   the host decides what happens next and we do nothing more.
 * Handlers are installed with the first open sink and removed with the last.
 */

/** What a sink offers the process hooks. */
export interface ExitFlushable {
  /** Hand pending records to the worker now (async commit). */
  dispatchPending(): void;
  /**
   * Hand pending records over and block up to `timeoutMs` until they are committed; with `close`
   * (the process is ending for sure) also close the database, so the last writer truncates the WAL.
   */
  flushSync(timeoutMs: number, close?: boolean): void;
  readonly exitFlushTimeoutMs: number;
}

const sinks = new Set<ExitFlushable>();
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

function onBeforeExit(): void {
  for (const sink of sinks) sink.dispatchPending();
}

function onExit(): void {
  for (const sink of sinks) sink.flushSync(sink.exitFlushTimeoutMs, true);
}

function onSignal(signal: NodeJS.Signals): void {
  // Only when the signal is re-raised below is the process surely ending: then close too.
  const ending = process.listenerCount(signal) === 1;
  for (const sink of sinks) sink.flushSync(sink.exitFlushTimeoutMs, ending);
  if (ending) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function install(): void {
  process.on('beforeExit', onBeforeExit);
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.removeListener('beforeExit', onBeforeExit);
  process.removeListener('exit', onExit);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
}

/** Flush `sink` on beforeExit / exit / SIGTERM / SIGINT until {@link unregisterExitFlush}. */
export function registerExitFlush(sink: ExitFlushable, signals: boolean): void {
  if (!signals) {
    // Without signal handling the sink still flushes on beforeExit and exit.
    localOnly.add(sink);
    if (localOnly.size === 1) {
      process.on('beforeExit', onBeforeExitLocal);
      process.on('exit', onExitLocal);
    }
    return;
  }
  sinks.add(sink);
  if (sinks.size === 1) install();
}

/** Stop flushing `sink` at exit (after `close()`). */
export function unregisterExitFlush(sink: ExitFlushable): void {
  if (sinks.delete(sink) && sinks.size === 0) uninstall();
  if (localOnly.delete(sink) && localOnly.size === 0) {
    process.removeListener('beforeExit', onBeforeExitLocal);
    process.removeListener('exit', onExitLocal);
  }
}

const localOnly = new Set<ExitFlushable>();
function onBeforeExitLocal(): void {
  for (const sink of localOnly) sink.dispatchPending();
}
function onExitLocal(): void {
  for (const sink of localOnly) sink.flushSync(sink.exitFlushTimeoutMs, true);
}
