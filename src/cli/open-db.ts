import type { Command } from 'commander';
import { AuditStoreError, openStoreReader } from '../triage/store.js';
import type { Db } from '../triage/index.js';
import { CliError, toCliError, type CommandContext } from './context.js';

/**
 * The store of `cmd`'s `--db` (SQLite or PostgreSQL), opened read-only once per run and kept in
 * `ctx.db` (closed by `ctx.close()`). An `AuditStoreError` becomes an exit-3 `CliError`; the
 * reader's `aap-triage doctor --migrate` advice is repeated with this run's `--db`. Lives apart
 * from the context so only the commands that read the store load the reader (issue 31 "Start-up").
 */
export async function openDb(ctx: CommandContext, cmd: Command): Promise<Db> {
  if (ctx.db) return ctx.db;
  const path = ctx.storePath(cmd);
  try {
    ctx.db = await openStoreReader(path);
    return ctx.db;
  } catch (error) {
    const cli = toCliError(error);
    if (error instanceof AuditStoreError && (error.kind === 'schema-too-old' || error.kind === 'missing') && cli instanceof CliError) {
      throw new CliError(cli.what.replace('`aap-triage doctor --migrate`', `\`${ctx.commandLine(cmd, 'doctor --migrate', { window: false })}\``), cli.how, cli.exitCode);
    }
    throw cli;
  }
}
