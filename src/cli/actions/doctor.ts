import type { Command } from 'commander';
import { listGaps } from '../../triage/index.js';
import {
  AuditStoreError,
  DEFAULT_JOURNAL_SIZE_LIMIT_BYTES,
  defaultKeyFilePath,
  isPostgresUrl,
  inspectStore,
  loadPseudonymizer,
  inspectPostgresStore,
  migrateAuditStore,
  nativeModuleProblem,
  openStoreReader,
  PseudonymKeyError,
  readHealthRecords,
  removeHealthRecord,
  type StoreInspection,
} from '../../triage/store.js';
import { DAY_MS, EXIT, toCliError, type CommandContext } from '../context.js';

/** One doctor check: ok, a warning, a failure (exit 3), or skipped. */
export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** One line: what was found, and for warn/fail what to do. */
  detail: string;
}

/** Node version the package supports (package.json engines). */
const MIN_NODE: [number, number] = [20, 6];
/** quick_check reads the whole file; beyond this size it runs only with --integrity. */
const QUICK_CHECK_MAX_BYTES = 1 << 30;
/**
 * A WAL beyond the writer's default journal_size_limit means checkpoints are starved (DESIGN §5
 * "WAL size bounded"): after a checkpoint the writer cuts the WAL back to that size.
 */
const WAL_WARN_BYTES = DEFAULT_JOURNAL_SIZE_LIMIT_BYTES;
/** How far back the gaps check looks, ms (7 days). */
const GAP_LOOKBACK_MS = 7 * DAY_MS;

const mib = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MiB`;

/**
 * Runs every check against `dbPath`. Never throws. `options.command` turns a command (`doctor
 * --migrate`) into the line a hint prints — the CLI repeats the operator's `--db` and `--key-file`;
 * default `aap-triage <command>`. `now` is epoch ms.
 */
export async function runDoctor(
  dbPath: string,
  env: NodeJS.ProcessEnv,
  options: { keyFile?: string; integrity?: boolean; now: number; command?: (rest: string) => string },
): Promise<DoctorCheck[]> {
  const command = options.command ?? ((rest: string) => `aap-triage ${rest}`);
  const checks: DoctorCheck[] = [];
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const nodeOk = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  checks.push({
    check: 'node',
    status: nodeOk ? 'ok' : 'fail',
    detail: nodeOk ? `v${process.versions.node}` : `v${process.versions.node} is too old — install Node ${MIN_NODE.join('.')} or later`,
  });
  const native = nativeModuleProblem();
  checks.push(native === null ? { check: 'native', status: 'ok', detail: 'better-sqlite3 loads' } : { check: 'native', status: 'fail', detail: native });
  if (isPostgresUrl(dbPath)) checks.push(...(await postgresChecks(dbPath, options.now, command)));
  let store: StoreInspection | undefined;
  if (native === null && !isPostgresUrl(dbPath)) {
    try {
      store = inspectStore(dbPath, { quickCheckMaxBytes: options.integrity ? Number.POSITIVE_INFINITY : QUICK_CHECK_MAX_BYTES });
      const schema = `schema ${store.schemaVersion} of ${store.expectedVersion}`;
      checks.push(
        store.schemaVersion < store.expectedVersion
          ? { check: 'database', status: 'fail', detail: `${dbPath} (${schema}): older than this aap-triage — run ${command('doctor --migrate')}` }
          : { check: 'database', status: 'ok', detail: `${dbPath} (${schema})` },
      );
    } catch (error) {
      const msg = error instanceof AuditStoreError ? error.message : String((error as Error).message).split('\n')[0];
      checks.push({ check: 'database', status: 'fail', detail: msg ?? 'cannot open' });
    }
  }
  if (store) {
    if (store.quickCheck === null) {
      checks.push({ check: 'integrity', status: 'skip', detail: `file is ${mib(store.fileBytes)}; run doctor --integrity to check it (reads the whole file)` });
    } else {
      checks.push(
        store.quickCheck === 'ok'
          ? { check: 'integrity', status: 'ok', detail: 'quick_check ok' }
          : { check: 'integrity', status: 'fail', detail: `quick_check: ${store.quickCheck} — restore from a backup or copy the rows out with sqlite3 .recover` },
      );
    }
    checks.push(
      store.walBytes > WAL_WARN_BYTES
        ? { check: 'wal', status: 'warn', detail: `WAL is ${mib(store.walBytes)} — a long-running reader is starving checkpoints; close idle aap-triage tail/tui sessions` }
        : { check: 'wal', status: 'ok', detail: `WAL ${mib(store.walBytes)}` },
    );
    if (store.schemaVersion === store.expectedVersion) checks.push(await gapsCheck(dbPath, options.now, command));
  }
  try {
    const warnings: string[] = [];
    const p = loadPseudonymizer({
      dbPath,
      env,
      keyFile: options.keyFile,
      create: false,
      logger: { info: () => undefined, warn: (_o, msg) => warnings.push(msg ?? 'warning'), error: (_o, msg) => warnings.push(msg ?? 'error') },
    });
    const source = env['AAP_TRIAGE_KEY'] ? 'AAP_TRIAGE_KEY' : (options.keyFile ?? defaultKeyFilePath(dbPath));
    checks.push(
      warnings.length
        ? { check: 'key', status: 'warn', detail: `key ${p.keyId} (${source}): ${warnings.join('; ')}` }
        : { check: 'key', status: 'ok', detail: `key ${p.keyId} (${source})` },
    );
  } catch (error) {
    const msg = error instanceof PseudonymKeyError ? error.message : String((error as Error).message);
    checks.push({ check: 'key', status: 'warn', detail: `${msg} (needed by hash, forget and client:/subject: queries)` });
  }
  // One check per writing service and process (issue #17): a store several services write
  // has several writers, each healthy or not on its own.
  const records = readHealthRecords(dbPath);
  if (records.length === 0) checks.push({ check: 'writer', status: 'skip', detail: 'no writer has reported health for this database yet' });
  for (const health of records) {
    // A degraded or failed writer that is still running loses records now: a failure (exit 3).
    // One whose process has gone reported a past state: a warning (or, if it was ok, a note),
    // shown this once, marked gone: its record is removed, so the next doctor does not repeat it
    // (a writer that shut down cleanly removed its own).
    let running = true;
    try {
      process.kill(health.pid, 0);
    } catch (error) {
      running = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!running) removeHealthRecord(dbPath, health);
    checks.push({
      check: `writer ${health.service ?? '(no service name)'} pid ${health.pid}`,
      status: health.state === 'ok' ? (running ? 'ok' : 'skip') : running ? 'fail' : 'warn',
      detail: `${running ? '' : 'gone, last report: '}${health.state}${health.reason ? `: ${health.reason}` : ''} (${running ? 'running' : 'no longer running; record removed'}, written ${health.written}, dropped ${health.dropped}, failed ${health.failed}, at ${new Date(health.updatedAt).toISOString()})`,
    });
  }
  return checks;
}

/** The PostgreSQL store's checks: schema, partitions and size (no password in any line), then its gap records. */
async function postgresChecks(url: string, now: number, command: (rest: string) => string): Promise<DoctorCheck[]> {
  try {
    const s = await inspectPostgresStore(url);
    const facts = `schema ${s.schemaVersion} of ${s.expectedVersion}, ${s.partitions} day partition${s.partitions === 1 ? '' : 's'}, ${mib(s.totalBytes)}, PostgreSQL ${s.serverVersion}`;
    if (s.schemaVersion < s.expectedVersion) return [{ check: 'database', status: 'fail', detail: `${s.path} (${facts}): older than this aap-triage — run ${command('doctor --migrate')}` }];
    return [{ check: 'database', status: 'ok', detail: `${s.path} (${facts})` }, await gapsCheck(url, now, command)];
  } catch (error) {
    const msg = error instanceof AuditStoreError ? error.message : String((error as Error).message).split('\n')[0];
    return [{ check: 'database', status: 'fail', detail: msg ?? 'cannot open' }];
  }
}

/** The gap records of the last 7 days, as one check (through the read-only reader). */
async function gapsCheck(dbPath: string, now: number, command: (rest: string) => string): Promise<DoctorCheck> {
  let db;
  try {
    db = await openStoreReader(dbPath);
    const gaps = await listGaps(db, { since: now - GAP_LOOKBACK_MS, until: now + 1 });
    const dropped = gaps.reduce((a, g) => a + g.dropped, 0);
    return gaps.length
      ? { check: 'gaps', status: 'warn', detail: `${dropped} errors seen but not recorded in the last 7 days (${gaps.length} gap records) — see ${command('stats --since 7d')} and the writer's logs` }
      : { check: 'gaps', status: 'ok', detail: 'no gap records in the last 7 days' };
  } catch (error) {
    return { check: 'gaps', status: 'skip', detail: `cannot list gap records: ${String((error as Error).message).split('\n')[0]}` };
  } finally {
    await db?.close();
  }
}

/** `doctor` (src/cli/commands/doctor.ts): migrates first with --migrate, then prints every check; exit 3 on a failure. */
export async function doctor(ctx: CommandContext, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  if (g['migrate']) {
    let done;
    try {
      done = await migrateAuditStore(ctx.storePath(cmd));
    } catch (error) {
      throw toCliError(error);
    }
    const lines = [done.from === done.to ? `schema already at version ${done.to}` : `migrated schema from version ${done.from} to ${done.to}`, ...done.notes];
    for (const line of lines) {
      if (g.json) ctx.note(`aap-triage: ${line}`);
      else ctx.out(line);
    }
  }
  const checks = await runDoctor(ctx.storePath(cmd), ctx.io.env, {
    keyFile: g.keyFile,
    integrity: Boolean(g['integrity']),
    now: ctx.now(),
    command: (rest) => ctx.commandLine(cmd, rest, { window: false }),
  });
  if (g.json) ctx.json(checks);
  else for (const c of checks) ctx.out(`${c.status.toUpperCase().padEnd(5)} ${c.check.padEnd(10)} ${c.detail}`);
  if (checks.some((c) => c.status === 'fail')) ctx.exitCode = EXIT.ENV;
}
