/** Messages between the writer (main thread) and its worker. Internal: never exported. */

/** `workerData` of the writer worker. */
export interface WorkerInit {
  path: string;
  /** Absolute path of better-sqlite3's entry, resolved by the main thread. */
  driverPath: string;
  busyTimeoutMs: number;
  journalSizeLimitBytes: number;
  idleCheckpointMs: number;
  migrations: readonly string[];
  errorColumns: readonly string[];
  /** ISSUE_HOURS_UPSERT_SQL (schema.ts): the batch's issue_hours upsert. */
  issueHoursUpsert: string;
  /** ISSUE_HOUR_VERSIONS_UPSERT_SQL (schema.ts): the batch's issue_hour_versions upsert. */
  issueHourVersionsUpsert: string;
  /** Int32Array[0] = last processed batch seq, [1] = 1 once closed (for synchronous waits at exit). */
  signal: SharedArrayBuffer;
}

/** A traffic row: minute, service, skill, client, requests, errors, retries. */
export type TrafficRow = [number, string, string, string, number, number, number];
/** A gap row: service, started_at, ended_at, dropped, reason. */
export type GapRow = [string, number, number, number, string];

export interface BatchMessage {
  type: 'batch';
  seq: number;
  /** error_events rows, values in ERROR_EVENT_COLUMNS order. */
  rows: unknown[][];
  traffic: TrafficRow[];
  gaps: GapRow[];
}

export interface CloseMessage {
  type: 'close';
}

export type ToWorker = BatchMessage | CloseMessage;

export type FromWorker =
  | { type: 'ready'; mode: number; chmodded: boolean }
  | { type: 'failed'; kind: 'native-module' | 'open'; code: string; message: string }
  | {
      type: 'result';
      seq: number;
      written: number;
      error: { code: string; message: string } | null;
      /** The database file had been replaced or removed (or a reopen failed before): reopened now, or `error` why not. */
      reopened: { what: 'replaced' | 'removed' | 'lost'; error: { code: string; message: string } | null } | null;
    }
  | { type: 'closed' };
