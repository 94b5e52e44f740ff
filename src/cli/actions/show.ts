import type { Command } from 'commander';
import { ERROR_EVENT_COLUMNS } from '../../triage/store.js';
import { formatUtc, getError, loadClientLabels } from '../../triage/index.js';
import { EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { errorTable } from '../format.js';

/** `show <error_id>` (src/cli/commands/show.ts): one error, its code's meaning and related errors; exit 1 if unknown. */
export async function show(ctx: CommandContext, errorId: string, cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const db = (await openDb(ctx, cmd));
  const detail = (await getError(db, errorId.trim()));
  if (!detail) {
    ctx.note(`aap-triage: no error with id ${errorId} — check the id, or the --db the client's server writes to`);
    ctx.exitCode = EXIT.NOT_FOUND;
    return;
  }
  const labels = (await loadClientLabels(db));
  const label = detail.error.client ? (labels.get(detail.error.client) ?? null) : null;
  if (g.json) {
    ctx.json({ ...detail, client_label: label });
    return;
  }
  const e = detail.error;
  const lines: string[] = [];
  for (const col of ERROR_EVENT_COLUMNS) {
    const v = e[col];
    const text = col === 'occurred_at' ? `${formatUtc(e.occurred_at)} (${e.occurred_at})` : v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    lines.push(`${col.padEnd(18)} ${text}`);
    if (col === 'client' && label) lines.push(`${'client_label'.padEnd(18)} ${label.name}${label.contact ? ` <${label.contact}>` : ''}`);
  }
  const info = detail.codeInfo;
  lines.push('', `Meaning:           ${info?.meaning ?? 'unknown code'}`);
  lines.push(`Client action:     ${info?.clientAction ?? 'no recommendation for an unknown code'}`);
  if (info) lines.push(`Spec:              ${info.specSection}`);
  lines.push('', `Same trace (${detail.sameTrace.length})`);
  if (detail.sameTrace.length) lines.push(errorTable(detail.sameTrace, labels));
  const shown = detail.sameFingerprint.length;
  const minutes = Math.round(detail.fingerprintWindowMs / 60_000);
  lines.push('', `Same fingerprint: ${detail.sameFingerprintCount} within ±${minutes}m${shown < detail.sameFingerprintCount ? `, the ${shown} nearest shown` : ''}`);
  if (detail.sameFingerprint.length) lines.push(errorTable(detail.sameFingerprint, labels));
  ctx.out(lines.join('\n'));
}
