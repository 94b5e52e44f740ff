/**
 * The traffic sink: feeds the per-minute request counters (traffic-counter.ts) of the audit
 * store's `traffic` table (DESIGN §5).
 */
import type { ExchangeRecords, TriageCore } from '../internal-types.js';

/** The traffic sink: every buyer's call, audited or not, counts in its minute (errors and retries too); a probe's does not. */
export function trafficSink(core: TriageCore, x: ExchangeRecords): void {
  for (const r of x.records) if (r.origin === null) core.traffic.add(r.startedAt, r.skill, r.client, r.errorType !== null, r.attempt > 1);
}
