/**
 * The body of the PostgreSQL audit writer's worker thread (issue #19 "Writers in many processes
 * and on many hosts"). It speaks the same messages as the SQLite worker (internal-types.ts), so
 * the writer's queue, drop accounting, gap records, health and exit flush are the same code.
 *
 * Each batch is one transaction: a multi-row `INSERT … ON CONFLICT DO NOTHING` into
 * error_events that also adds the inserted rows to issue_hours in the same statement
 * (pg/issue-hours.ts; chunked under PostgreSQL's 65 535-parameter limit), a multi-row traffic upsert
 * and the gap rows; a batch of error rows only is that one statement, without BEGIN/COMMIT. When the server is away (connection refused, reset, restarting, admin
 * shutdown) the batch is retried on a new connection with exponential backoff (100 ms doubling
 * to 2 s) for up to `retryForMs`; after that it is answered as failed, and the writer counts it
 * and queues a gap record, which goes out with the next batch that succeeds. I/O is async inside
 * this thread, so the host's event loop never waits on the database.
 *
 * Started from source text (`eval: true`) like the SQLite worker, so the function must not use
 * imports or bindings from outside its body; the schema functions are passed in.
 */
import type { Client, ClientBase } from 'pg';
import type { BatchMessage, FromWorker, ToWorker } from '../internal-types.js';

/** `workerData` of the PostgreSQL writer worker. */
export interface PgWorkerInit {
  /** Connection URL (may hold a password: never posted back, never logged). */
  url: string;
  /** Absolute path of the `pg` package's entry, resolved by the main thread. */
  driverPath: string;
  /** How long one batch keeps retrying while the server is unreachable, ms. */
  retryForMs: number;
  migrations: readonly string[];
  errorColumns: readonly string[];
  /** Position of `occurred_at` in a row (columns.ts), for the partitions a batch needs. */
  occurredAtIndex: number;
  /** Int32Array[0] = last processed batch seq, [1] = 1 once closed. */
  signal: SharedArrayBuffer;
}

/** The schema functions of schema.ts, as the worker receives them. */
export interface PgSchemaFunctions {
  migratePg(client: ClientBase, migrations: readonly string[]): Promise<number>;
  ensurePartitions(client: ClientBase, times: Iterable<number>, known: Set<string>): Promise<string[]>;
  /** pg/issue-hours.ts: one statement inserting a batch's rows and adding them to issue_hours. */
  issueHoursBatchSql(columns: readonly string[], values: string): string;
}

export function pgWriterWorkerMain(schema: PgSchemaFunctions): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (!parentPort) return;
  const port = parentPort;
  const init = workerData as PgWorkerInit;
  const signal = new Int32Array(init.signal);
  const post = (message: FromWorker) => port.postMessage(message);
  const codeOf = (error: unknown) => {
    const c = (error as { code?: unknown } | null)?.code;
    return typeof c === 'string' && c !== '' ? c : 'ERROR';
  };
  // Server messages carry no password; URLs and password= settings are scrubbed all the same.
  const textOf = (error: unknown) =>
    (String((error as { message?: unknown } | null)?.message ?? error).split('\n')[0] ?? '')
      .replace(/postgres(?:ql)?:\/\/\S+/gi, 'postgres://…')
      .replace(/(password\s*=\s*)\S+/gi, '$1***');
  /** Errors after which a new connection may succeed: network, server shutting down or starting, too many clients. */
  const transient = (error: unknown) => {
    const code = codeOf(error);
    const text = textOf(error);
    return (
      /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code) ||
      /^(57P01|57P02|57P03|53300|08000|08001|08003|08004|08006|40001|40P01)$/.test(code) ||
      /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(text)
    );
  };

  let Pg: typeof import('pg') | null = null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    Pg = require(init.driverPath) as typeof import('pg');
  } catch (error) {
    post({ type: 'failed', kind: 'native-module', code: codeOf(error), message: textOf(error) });
  }

  let client: Client | null = null;
  let migrated = false;
  const partitions = new Set<string>();
  const columns = init.errorColumns;
  const MAX_PARAMS = 65_000;
  const rowsPerInsert = Math.max(1, Math.floor(MAX_PARAMS / columns.length));

  const drop = () => {
    const c = client;
    client = null;
    c?.end().catch(() => undefined);
  };

  let connecting: Promise<Client> | null = null;
  const connect = (): Promise<Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= open().finally(() => {
      connecting = null;
    });
    return connecting;
  };

  const open = async (): Promise<Client> => {
    const D = Pg as typeof import('pg');
    // keepAlive and a query timeout: a connection that dies without a reset (a host gone, a cable
    // pulled) fails the batch within 30 s and the next one reconnects, instead of waiting on TCP.
    const c = new D.Client({ connectionString: init.url, connectionTimeoutMillis: 5_000, keepAlive: true, query_timeout: 30_000, application_name: 'aap-triage-writer' });
    // A connection that dies while idle emits 'error': forget it; the next batch reconnects.
    c.on('error', () => {
      if (client === c) client = null;
    });
    try {
      await c.connect();
      if (!migrated) {
        await schema.migratePg(c, init.migrations);
        migrated = true;
      }
    } catch (error) {
      c.end().catch(() => undefined);
      throw error;
    }
    client = c;
    return c;
  };

  const insertEvents = async (c: Client, rows: unknown[][]): Promise<number> => {
    let written = 0;
    for (let i = 0; i < rows.length; i += rowsPerInsert) {
      const chunk = rows.slice(i, i + rowsPerInsert);
      const values: unknown[] = [];
      const tuples = chunk.map((row) => {
        const base = values.length;
        values.push(...row);
        return `(${row.map((_, j) => `$${base + j + 1}`).join(', ')})`;
      });
      // The rows and their hours of issue_hours in one statement, so the summary never misses a
      // committed row nor counts a duplicate (issue 31).
      const result = await c.query<{ written: number }>(schema.issueHoursBatchSql(columns, tuples.join(', ')), values);
      written += Number(result.rows[0]?.written ?? 0);
    }
    return written;
  };

  const runBatch = async (batch: BatchMessage): Promise<number> => {
    const c = await connect();
    if (batch.rows.length > 0) await schema.ensurePartitions(c, batch.rows.map((r) => r[init.occurredAtIndex] as number), partitions);
    // Error rows alone in one statement are atomic by themselves: no BEGIN/COMMIT round trips.
    if (batch.traffic.length === 0 && batch.gaps.length === 0 && batch.rows.length <= rowsPerInsert) return batch.rows.length > 0 ? insertEvents(c, batch.rows) : 0;
    await c.query('BEGIN');
    try {
      const written = batch.rows.length > 0 ? await insertEvents(c, batch.rows) : 0;
      if (batch.traffic.length > 0) {
        const values: unknown[] = [];
        const tuples = batch.traffic.map((row) => {
          const base = values.length;
          values.push(...row);
          return `(${row.map((_, j) => `$${base + j + 1}`).join(', ')})`;
        });
        await c.query(
          `INSERT INTO traffic (minute, service, skill, client, requests, errors, retries) VALUES ${tuples.join(', ')}
           ON CONFLICT (minute, service, skill, client) DO UPDATE SET
             requests = traffic.requests + excluded.requests,
             errors = traffic.errors + excluded.errors,
             retries = traffic.retries + excluded.retries`,
          values,
        );
      }
      for (const gap of batch.gaps) await c.query('INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ($1, $2, $3, $4, $5)', gap);
      await c.query('COMMIT');
      return written;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** One batch, retried on a new connection while the server is away, up to retryForMs. */
  const write = async (batch: BatchMessage): Promise<FromWorker> => {
    const deadline = Date.now() + init.retryForMs;
    for (let backoff = 100; ; backoff = Math.min(backoff * 2, 2_000)) {
      try {
        return { type: 'result', seq: batch.seq, written: await runBatch(batch), error: null, reopened: null };
      } catch (error) {
        const again = transient(error) || client === null;
        drop();
        if (!again || Date.now() + backoff > deadline) {
          return { type: 'result', seq: batch.seq, written: 0, error: { code: codeOf(error), message: textOf(error) }, reopened: null };
        }
        await sleep(backoff);
      }
    }
  };

  if (Pg) {
    // Ready at once: a server that is away now is retried per batch, not a reason to give up.
    post({ type: 'ready', mode: 0o600, chmodded: false });
    connect().catch(() => drop());
  }

  // Batches are handled one at a time, in order (the writer sends the next after a result).
  let chain: Promise<void> = Promise.resolve();
  port.on('message', (message: ToWorker) => {
    chain = chain.then(async () => {
      if (message.type === 'close') {
        drop();
        Atomics.store(signal, 1, 1);
        Atomics.notify(signal, 1);
        post({ type: 'closed' });
        port.close();
        return;
      }
      const result: FromWorker = Pg
        ? await write(message)
        : { type: 'result', seq: message.seq, written: 0, error: { code: 'AAP_NOT_OPEN', message: 'the pg module did not load' }, reopened: null };
      post(result);
      Atomics.store(signal, 0, message.seq);
      Atomics.notify(signal, 0);
    });
  });
}
