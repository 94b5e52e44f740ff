/**
 * The audit sink: one row per audited error (DESIGN §5), and one gap row for the errors the
 * per-exchange cap left out ("overflow counted, never silent"). The row is the record's event as
 * made by `record()`; a dealer that reused an error_id gets a row id of its own.
 */
import type { ExchangeRecords, TriageCore } from '../internal-types.js';
import { EXCHANGE_CAP_REASON } from './log.js';

export function auditSink(core: TriageCore, x: ExchangeRecords): void {
  const sink = core.sink;
  if (!sink) return;
  for (const r of x.records) {
    const e = r.event;
    if (e) sink.write(r.rowId === null ? e : { ...e, error_id: r.rowId });
  }
  if (x.capped && sink.recordGap) {
    sink.recordGap({ service: core.service, startedAt: x.capped.from, endedAt: x.capped.to, count: x.capped.count, reason: EXCHANGE_CAP_REASON });
  }
}
