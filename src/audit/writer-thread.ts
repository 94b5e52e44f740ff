/**
 * The writer's worker client: starts the store's writer thread (the backend's
 * {@link WriterWorkerSpec}), posts batches to it, keeps it from holding the process open while
 * idle, and waits on it — asynchronously on close, synchronously at exit through the shared
 * signal buffer (Int32Array[0] = last processed batch seq, [1] = 1 once closed).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { WriterWorkerSpec } from './backend.js';
import type { FromWorker, ToWorker } from './internal-types.js';
import type { Settings } from './options.js';

/** What the client tells the writer. */
export interface WriterThreadEvents {
  message(message: FromWorker): void;
  /** The thread crashed or could not start; `reason` is the log line. */
  fail(reason: string): void;
  /** The thread is gone (after a failure or a close). */
  exit(): void;
}

/** How long `close()` waits for the thread to end before it terminates it, ms. */
const CLOSE_TIMEOUT_MS = 10_000;

/** One writer thread. */
export class WriterThread {
  private worker: Worker | null = null;
  private readonly signal = new SharedArrayBuffer(8);
  private readonly signalView = new Int32Array(this.signal);

  private constructor(private readonly events: WriterThreadEvents) {}

  /**
   * Starts the thread, or returns why it cannot (the driver not installed, the thread not
   * starting): then no thread runs and the writer fails with that reason.
   */
  static start(spec: WriterWorkerSpec, settings: Settings, events: WriterThreadEvents): WriterThread | string {
    let driverPath: string;
    try {
      driverPath = createRequire(import.meta.url).resolve(spec.driver);
    } catch (error) {
      return `${spec.driver} cannot be found (${String((error as Error).message).split('\n')[0]}): run npm install`;
    }
    const thread = new WriterThread(events);
    let worker: Worker;
    try {
      worker = new Worker(spec.source(), { eval: true, workerData: spec.workerData(settings, driverPath, thread.signal), name: spec.threadName });
    } catch (error) {
      return `cannot start the audit writer thread: ${String((error as Error).message)}`;
    }
    thread.worker = worker;
    worker.unref();
    worker.on('message', (message: FromWorker) => events.message(message));
    worker.on('error', (error) => events.fail(`audit writer thread crashed: ${String(error.message).split('\n')[0]}`));
    worker.on('exit', () => {
      thread.worker = null;
      events.exit();
    });
    return thread;
  }

  /** True until the thread has exited. */
  get alive(): boolean {
    return this.worker !== null;
  }

  post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  /** Keeps the process alive while something waits on the thread. */
  ref(): void {
    this.worker?.ref();
  }

  /** Lets the process end while the thread idles. */
  unref(): void {
    this.worker?.unref();
  }

  /**
   * Blocks until the thread has processed batch `seq`, at most until `deadline` (epoch ms).
   * Returns false when the deadline passed first.
   */
  waitProcessedSync(seq: number, deadline: number): boolean {
    for (;;) {
      const seen = Atomics.load(this.signalView, 0);
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (seen >= seq) return true;
      Atomics.wait(this.signalView, 0, seen, left);
    }
  }

  /** Asks the thread to close and blocks until it has, at most until `deadline`. True when it closed. */
  closeSync(deadline: number): boolean {
    if (!this.worker) return false;
    this.worker.postMessage({ type: 'close' });
    const left = deadline - Date.now();
    if (left > 0 && Atomics.load(this.signalView, 1) === 0) Atomics.wait(this.signalView, 1, 0, left);
    return Atomics.load(this.signalView, 1) !== 0;
  }

  /** Asks the thread to close and waits for it to exit; terminates it after {@link CLOSE_TIMEOUT_MS}. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' });
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS).unref());
    if ((await Promise.race([exited, timeout])) === 'timeout') await worker.terminate();
  }
}
