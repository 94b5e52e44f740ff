import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { AuditStoreError, loadPseudonymizer, openAuditReader, PseudonymKeyError, readHealth, SCHEMA_VERSION } from '../../audit/index.js';
import { listGaps, type Db } from '../../triage/index.js';
import { EXIT, type CommandContext, type CommandModule } from '../context.js';

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
/** A WAL beyond this means checkpoints are starved (DESIGN §5 "WAL size bounded"). */
const WAL_WARN_BYTES = 64 << 20;

const mib = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MiB`;

/** Runs every check against `dbPath`. Never throws. */
export function runDoctor(dbPath: string, env: NodeJS.ProcessEnv, options: { keyFile?: string; integrity?: boolean; now: number }): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const nodeOk = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  checks.push({
    check: 'node',
    status: nodeOk ? 'ok' : 'fail',
    detail: nodeOk ? `v${process.versions.node}` : `v${process.versions.node} is too old — install Node ${MIN_NODE.join('.')} or later`,
  });
  let nativeOk = true;
  try {
    const Driver = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => { close(): void };
    new Driver(':memory:').close();
    checks.push({ check: 'native', status: 'ok', detail: 'better-sqlite3 loads' });
  } catch (error) {
    nativeOk = false;
    checks.push({ check: 'native', status: 'fail', detail: `better-sqlite3 does not load (${String((error as Error).message).split('\n')[0]}) — run npm rebuild better-sqlite3` });
  }
  let db: Db | undefined;
  if (nativeOk) {
    try {
      db = openAuditReader(dbPath);
      const version = Number(db.pragma('user_version', { simple: true }));
      checks.push({ check: 'database', status: 'ok', detail: `${dbPath} (schema ${version} of ${SCHEMA_VERSION})` });
    } catch (error) {
      const msg = error instanceof AuditStoreError ? error.message : String((error as Error).message).split('\n')[0];
      checks.push({ check: 'database', status: 'fail', detail: msg ?? 'cannot open' });
    }
  }
  if (db) {
    let size = 0;
    try {
      size = statSync(dbPath).size;
    } catch {
      // reported by the database check
    }
    if (size > QUICK_CHECK_MAX_BYTES && !options.integrity) {
      checks.push({ check: 'integrity', status: 'skip', detail: `file is ${mib(size)}; run doctor --integrity to check it (reads the whole file)` });
    } else {
      const result = String(db.pragma('quick_check', { simple: true }));
      checks.push(
        result === 'ok'
          ? { check: 'integrity', status: 'ok', detail: 'quick_check ok' }
          : { check: 'integrity', status: 'fail', detail: `quick_check: ${result} — restore from a backup or copy the rows out with sqlite3 .recover` },
      );
    }
    let wal = 0;
    try {
      wal = statSync(`${dbPath}-wal`).size;
    } catch {
      // no WAL file: nothing to report
    }
    checks.push(
      wal > WAL_WARN_BYTES
        ? { check: 'wal', status: 'warn', detail: `WAL is ${mib(wal)} — a long-running reader is starving checkpoints; close idle aap-triage tail/tui sessions` }
        : { check: 'wal', status: 'ok', detail: `WAL ${mib(wal)}` },
    );
    const gaps = listGaps(db, { since: options.now - 7 * 86_400_000, until: options.now + 1 });
    const dropped = gaps.reduce((a, g) => a + g.dropped, 0);
    checks.push(
      gaps.length
        ? { check: 'gaps', status: 'warn', detail: `${dropped} errors seen but not recorded in the last 7 days (${gaps.length} gap records) — see aap-triage stats and the writer's logs` }
        : { check: 'gaps', status: 'ok', detail: 'no gap records in the last 7 days' },
    );
    db.close();
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
    const source = env['AAP_TRIAGE_KEY'] ? 'AAP_TRIAGE_KEY' : (options.keyFile ?? `${dbPath}.key`);
    checks.push(
      warnings.length
        ? { check: 'key', status: 'warn', detail: `key ${p.keyId} (${source}): ${warnings.join('; ')}` }
        : { check: 'key', status: 'ok', detail: `key ${p.keyId} (${source})` },
    );
  } catch (error) {
    const msg = error instanceof PseudonymKeyError ? error.message : String((error as Error).message);
    checks.push({ check: 'key', status: 'warn', detail: `${msg} (needed by hash, forget and client:/subject: queries)` });
  }
  const health = readHealth(dbPath);
  if (!health) checks.push({ check: 'writer', status: 'skip', detail: 'no writer has reported health for this database yet' });
  else {
    checks.push({
      check: 'writer',
      status: health.state === 'ok' ? 'ok' : 'warn',
      detail: `${health.state}${health.reason ? `: ${health.reason}` : ''} (pid ${health.pid}, written ${health.written}, dropped ${health.dropped}, failed ${health.failed}, at ${new Date(health.updatedAt).toISOString()})`,
    });
  }
  return checks;
}

/** `doctor`: checks the database, the key, the native module and Node, one line each. */
export const doctorCommand: CommandModule = {
  name: 'doctor',
  register(program: Command, ctx: CommandContext) {
    program
      .command('doctor')
      .description('check the database (opens, schema, integrity, WAL), the key, the native module and Node; exit 3 on a failure')
      .option('--integrity', 'run quick_check even on a large file')
      .action((_opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd);
        const checks = runDoctor(ctx.dbPath(cmd), ctx.io.env, { keyFile: g.keyFile, integrity: Boolean(g['integrity']), now: ctx.now() });
        if (g.json) ctx.json(checks);
        else for (const c of checks) ctx.out(`${c.status.toUpperCase().padEnd(5)} ${c.check.padEnd(10)} ${c.detail}`);
        if (checks.some((c) => c.status === 'fail')) ctx.exitCode = EXIT.ENV;
      });
  },
};
