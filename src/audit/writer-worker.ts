/**
 * The body of the audit writer's worker thread.
 *
 * Why a function serialised to source text (see writer.ts): Node 20 cannot start a Worker from
 * a `.ts` file, and vitest transforms only the main thread. Started with `eval: true` from
 * `writerWorkerMain.toString()`, the same type-checked code runs from `dist/` and under vitest
 * with no build step and no stale copy. The price: this function (and `applyMigrations`, passed
 * in) must not use imports or any binding from outside its own body; it reaches Node and
 * better-sqlite3 through the `require` of the eval worker, passed in as `load`: a free `require`
 * call would be rewritten by the library bundle (scripts/bundle-lib.mjs) into a helper that
 * does not exist in the worker.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { BatchMessage, FromWorker, ToWorker, WorkerInit } from './internal-types.js';

type Migrate = (db: BetterSqlite3.Database, migrations: readonly string[]) => number;

export function writerWorkerMain(migrate: Migrate, load: NodeJS.Require): void {
  const { parentPort, workerData } = load('node:worker_threads') as typeof import('node:worker_threads');
  const fs = load('node:fs') as typeof import('node:fs');
  const pathModule = load('node:path') as typeof import('node:path');
  if (!parentPort) return;
  const port = parentPort;
  const init = workerData as WorkerInit;
  const signal = new Int32Array(init.signal);
  const post = (message: FromWorker) => port.postMessage(message);
  const errorCode = (error: unknown) => String((error as { code?: unknown } | null)?.code ?? 'ERROR');
  const errorText = (error: unknown) => String((error as { message?: unknown } | null)?.message ?? error).split('\n')[0] ?? '';

  let db: BetterSqlite3.Database | null = null;
  let runBatch: ((batch: BatchMessage) => number) | null = null;
  /** Identity of the file the connection has open: an operator may replace or delete it. */
  let identity: { dev: number; ino: number } | null = null;
  let Driver: typeof BetterSqlite3 | null = null;

  /** Opens (creating folder and file, 0600), migrates and prepares. Returns the file's mode and whether it was chmodded. */
  const openDb = (): { mode: number; chmodded: boolean } => {
    const D = Driver as typeof BetterSqlite3;
    fs.mkdirSync(pathModule.dirname(init.path), { recursive: true, mode: 0o700 });
    // Create the file 0600 before SQLite does (SQLite would use 0644 less the umask); SQLite
    // gives the -wal and -shm files the main file's mode. Only a new file ('wx'): closing any
    // descriptor of an existing one would drop every POSIX lock this process holds on it, those
    // of the other writers' connections in this process too (issue 27, docs/audit-store.md).
    try {
      fs.closeSync(fs.openSync(init.path, 'wx', 0o600));
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
    const st = fs.statSync(init.path);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${init.path}'`), { code: 'EISDIR' });
    let mode = st.mode & 0o777;
    let chmodded = false;
    if ((mode & 0o077) !== 0) {
      fs.chmodSync(init.path, 0o600);
      mode = 0o600;
      chmodded = true;
    }
    const handle = new D(init.path, { timeout: init.busyTimeoutMs });
    db = handle;
    identity = { dev: st.dev, ino: st.ino };
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
    // issue_hours (issue #17): the batch's rows added up per (hour, issue), one upsert each
    // (and one per version of it into issue_hour_versions, issue 31),
    // with the hour's client ids merged into the stored list; only rows actually inserted count
    // (a duplicate error_id is skipped). Client ids are cached for this connection only.
    const upsertHour = handle.prepare(init.issueHoursUpsert);
    const upsertVersion = handle.prepare(init.issueHourVersionsUpsert);
    const storedClients = handle.prepare('SELECT clients FROM issue_hours WHERE hour = ? AND issue_key = ?').pluck();
    const addClientId = handle.prepare('INSERT INTO issue_client_ids (client) VALUES (?) ON CONFLICT (client) DO NOTHING');
    const clientId = handle.prepare('SELECT id FROM issue_client_ids WHERE client = ?').pluck();
    const clientIds = new Map<string, number>();
    const idOf = (client: string): number => {
      let id = clientIds.get(client);
      if (id === undefined) {
        addClientId.run(client);
        id = clientId.get(client) as number;
        if (clientIds.size > 100_000) clientIds.clear();
        clientIds.set(client, id);
      }
      return id;
    };
    const at = columns.indexOf('occurred_at');
    const keyAt = columns.indexOf('issue_key');
    const clientAt = columns.indexOf('client');
    const retryableAt = columns.indexOf('retryable');
    const versionAt = columns.indexOf('service_version');
    const transaction = handle.transaction((batch: BatchMessage) => {
      let written = 0;
      const hours = new Map<string, { hour: number; key: string; n: number; r: number; f: number; lo: number; hi: number; ids: Set<number>; versions: Map<string, number> }>();
      for (const row of batch.rows) {
        const changes = insertEvent.run(row).changes;
        written += changes;
        const key = row[keyAt];
        if (changes === 0 || typeof key !== 'string') continue;
        const t = row[at] as number;
        const hour = t - (t % 3_600_000);
        const id = `${hour}\u0000${key}`;
        let h = hours.get(id);
        if (!h) hours.set(id, (h = { hour, key, n: 0, r: 0, f: 0, lo: t, hi: t, ids: new Set(), versions: new Map() }));
        h.n += 1;
        if (row[retryableAt] === 1) h.r += 1;
        else if (row[retryableAt] === 0) h.f += 1;
        if (t < h.lo) h.lo = t;
        if (t > h.hi) h.hi = t;
        const version = typeof row[versionAt] === 'string' ? (row[versionAt] as string) : '';
        h.versions.set(version, (h.versions.get(version) ?? 0) + 1);
        const client = row[clientAt];
        if (typeof client === 'string' && client !== '') h.ids.add(idOf(client));
      }
      for (const h of hours.values()) {
        const stored = storedClients.get(h.hour, h.key) as string | undefined;
        if (stored) for (const part of stored.split(',')) if (part !== '') h.ids.add(Number(part));
        upsertHour.run(h.hour, h.key, h.n, h.r, h.f, h.lo, h.hi, [...h.ids].join(','));
        for (const [version, n] of h.versions) upsertVersion.run(h.hour, h.key, version, n);
      }
      for (const row of batch.traffic) upsertTraffic.run(row);
      for (const row of batch.gaps) insertGap.run(row);
      return written;
    });
    runBatch = (batch) => transaction.immediate(batch);
    return { mode, chmodded };
  };

  const closeDb = () => {
    try {
      db?.close();
    } catch {
      // already broken
    }
    db = null;
    runBatch = null;
    identity = null;
  };

  /**
   * Before each batch: is the path still the file the connection has open? A replaced file (new
   * inode) or a removed one (or its folder) would swallow every later row into an unlinked
   * inode, so the connection is reopened on the path. Returns what happened, or null.
   */
  const checkIdentity = (): 'replaced' | 'removed' | null => {
    if (!identity) return null;
    let st: import('node:fs').Stats | null = null;
    try {
      st = fs.statSync(init.path);
    } catch {
      st = null;
    }
    if (st && st.dev === identity.dev && st.ino === identity.ino) return null;
    const what = st ? 'replaced' : 'removed';
    closeDb();
    return what;
  };

  open: {
    try {
      Driver = load(init.driverPath) as typeof BetterSqlite3;
    } catch (error) {
      post({ type: 'failed', kind: 'native-module', code: errorCode(error), message: errorText(error) });
      break open;
    }
    // Writers of other processes opening the same new file at the same moment: switching it to
    // WAL can answer SQLITE_BUSY without waiting on the busy timeout, so the open is retried
    // (with backoff) until that timeout has passed.
    const deadline = Date.now() + init.busyTimeoutMs;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      try {
        const { mode, chmodded } = openDb();
        post({ type: 'ready', mode, chmodded });
        break;
      } catch (error) {
        closeDb();
        if (errorCode(error).startsWith('SQLITE_BUSY') && Date.now() + delay < deadline) {
          Atomics.wait(pause, 0, 0, delay);
          continue;
        }
        post({ type: 'failed', kind: 'open', code: errorCode(error), message: errorText(error) });
        break;
      }
    }
  }

  /** A reopen after a replacement or removal failed: keep trying on each batch. */
  let lostBefore = false;
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
        // The last writer to close leaves a zero-byte WAL (TRUNCATE); with others still open it
        // cannot, and they will.
        checkpoint();
        closeDb();
      }
      Atomics.store(signal, 1, 1);
      Atomics.notify(signal, 1);
      post({ type: 'closed' });
      port.close();
      return;
    }
    let result: FromWorker;
    let reopened: { what: 'replaced' | 'removed' | 'lost'; error: { code: string; message: string } | null } | null = null;
    const lost = Driver !== null && db === null && identity === null && lostBefore;
    const what = checkIdentity() ?? (lost ? 'lost' : null);
    if (what !== null) {
      try {
        openDb();
        reopened = { what, error: null };
        lostBefore = false;
      } catch (error) {
        closeDb();
        lostBefore = true;
        reopened = { what, error: { code: errorCode(error), message: errorText(error) } };
      }
    }
    if (!runBatch) {
      result = {
        type: 'result',
        seq: message.seq,
        written: 0,
        error: reopened?.error ?? { code: 'AAP_NOT_OPEN', message: 'the audit database is not open' },
        reopened,
      };
    } else {
      for (let attempt = 1; ; attempt++) {
        try {
          result = { type: 'result', seq: message.seq, written: runBatch(message), error: null, reopened };
          break;
        } catch (error) {
          // The busy timeout already waited; one more try covers a lock handed over at the deadline.
          if (errorCode(error).startsWith('SQLITE_BUSY') && attempt < 3) continue;
          result = { type: 'result', seq: message.seq, written: 0, error: { code: errorCode(error), message: errorText(error) }, reopened };
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
