/**
 * The body of the audit writer's worker thread.
 *
 * Why a function serialised to source text (see writer.ts): Node 20 cannot start a Worker from
 * a `.ts` file, and vitest transforms only the main thread. Started with `eval: true` from
 * `writerWorkerMain.toString()`, the same type-checked code runs from `dist/` and under vitest
 * with no build step and no stale copy. The price: this function (and `applyMigrations`, passed
 * in) must not use imports or any binding from outside its own body; it reaches Node and
 * better-sqlite3 through `require`, which an eval worker has.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { BatchMessage, FromWorker, ToWorker, WorkerInit } from './internal-types.js';

type Migrate = (db: BetterSqlite3.Database, migrations: readonly string[]) => number;

export function writerWorkerMain(migrate: Migrate): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const fs = require('node:fs') as typeof import('node:fs');
  const pathModule = require('node:path') as typeof import('node:path');
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (!parentPort) return;
  const port = parentPort;
  const init = workerData as WorkerInit;
  const signal = new Int32Array(init.signal);
  const post = (message: FromWorker) => port.postMessage(message);
  const errorCode = (error: unknown) => String((error as { code?: unknown } | null)?.code ?? 'ERROR');
  const errorText = (error: unknown) => String((error as { message?: unknown } | null)?.message ?? error).split('\n')[0] ?? '';

  let db: BetterSqlite3.Database | null = null;
  let runBatch: ((batch: BatchMessage) => number) | null = null;

  open: {
    let Driver: typeof BetterSqlite3;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      Driver = require(init.driverPath) as typeof BetterSqlite3;
    } catch (error) {
      post({ type: 'failed', kind: 'native-module', code: errorCode(error), message: errorText(error) });
      break open;
    }
    try {
      fs.mkdirSync(pathModule.dirname(init.path), { recursive: true, mode: 0o700 });
      // Create the file 0600 before SQLite does (SQLite would use 0644 less the umask); SQLite
      // gives the -wal and -shm files the main file's mode.
      fs.closeSync(fs.openSync(init.path, 'a', 0o600));
      let mode = fs.statSync(init.path).mode & 0o777;
      let chmodded = false;
      if ((mode & 0o077) !== 0) {
        fs.chmodSync(init.path, 0o600);
        mode = 0o600;
        chmodded = true;
      }
      const handle = new Driver(init.path, { timeout: init.busyTimeoutMs });
      db = handle;
      const journal = String(handle.pragma('journal_mode = WAL', { simple: true }));
      if (journal.toLowerCase() !== 'wal') throw Object.assign(new Error(`journal_mode is ${journal}, not wal`), { code: 'AAP_NO_WAL' });
      // NORMAL in WAL: a committed batch survives a process crash; a power cut may lose the last ones.
      handle.pragma('synchronous = NORMAL');
      handle.pragma(`journal_size_limit = ${init.journalSizeLimitBytes}`);
      migrate(handle, init.migrations);
      const columns = init.errorColumns;
      const insertEvent = handle.prepare(
        `INSERT INTO error_events (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (error_id) DO NOTHING`,
      );
      const upsertTraffic = handle.prepare(
        `INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (minute, service, skill, client) DO UPDATE SET
           requests = requests + excluded.requests,
           errors = errors + excluded.errors,
           retries = retries + excluded.retries`,
      );
      const insertGap = handle.prepare('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES (?, ?, ?, ?, ?)');
      const transaction = handle.transaction((batch: BatchMessage) => {
        let written = 0;
        for (const row of batch.rows) written += insertEvent.run(row).changes;
        for (const row of batch.traffic) upsertTraffic.run(row);
        for (const row of batch.gaps) insertGap.run(row);
        return written;
      });
      runBatch = (batch) => transaction.immediate(batch);
      post({ type: 'ready', mode, chmodded });
    } catch (error) {
      try {
        db?.close();
      } catch {
        // already broken
      }
      db = null;
      post({ type: 'failed', kind: 'open', code: errorCode(error), message: errorText(error) });
    }
  }

  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const checkpoint = () => {
    if (!db) return;
    try {
      // TRUNCATE resets the WAL to zero bytes but must wait for readers; never wait here.
      db.pragma('busy_timeout = 0');
      const rows = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (rows[0]?.busy) db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // A busy database is fine: the next idle period tries again.
    } finally {
      try {
        db.pragma(`busy_timeout = ${init.busyTimeoutMs}`);
      } catch {
        // closed
      }
    }
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'close') {
      clearTimeout(idleTimer);
      if (db) {
        checkpoint();
        try {
          db.close();
        } catch {
          // nothing left to do
        }
        db = null;
      }
      post({ type: 'closed' });
      port.close();
      return;
    }
    let result: FromWorker;
    if (!runBatch) {
      result = { type: 'result', seq: message.seq, written: 0, error: { code: 'AAP_NOT_OPEN', message: 'the audit database is not open' } };
    } else {
      for (let attempt = 1; ; attempt++) {
        try {
          result = { type: 'result', seq: message.seq, written: runBatch(message), error: null };
          break;
        } catch (error) {
          // The busy timeout already waited; one more try covers a lock handed over at the deadline.
          if (errorCode(error).startsWith('SQLITE_BUSY') && attempt < 3) continue;
          result = { type: 'result', seq: message.seq, written: 0, error: { code: errorCode(error), message: errorText(error) } };
          break;
        }
      }
    }
    post(result);
    Atomics.store(signal, 0, message.seq);
    Atomics.notify(signal, 0);
    clearTimeout(idleTimer);
    idleTimer = setTimeout(checkpoint, init.idleCheckpointMs);
  });
}
