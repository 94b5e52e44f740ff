/**
 * Traffic and gap rows as the writer queues them. The error_events row comes from the column
 * table (columns.ts `eventToRow`, re-exported here for the benchmarks).
 */
import type { TrafficSample } from '../protocol/error-event.js';
import type { GapRow, TrafficRow } from './internal-types.js';

export { eventToRow } from './columns.js';

const int = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null);

/** Key under which traffic samples are added up before they are written. */
export function trafficKey(sample: TrafficSample): string {
  return `${sample.minute}\u0000${sample.service}\u0000${sample.skill}\u0000${sample.client}`;
}

/** A traffic sample as a row, or null when it is not well formed (counted, never thrown). */
export function trafficToRow(sample: TrafficSample): TrafficRow | null {
  const minute = int(sample?.minute);
  if (minute === null || typeof sample.service !== 'string') return null;
  return [
    minute,
    sample.service,
    typeof sample.skill === 'string' ? sample.skill : '',
    typeof sample.client === 'string' ? sample.client : '',
    int(sample.requests) ?? 0,
    int(sample.errors) ?? 0,
    int(sample.retries) ?? 0,
  ];
}

/** A gap row ("N errors not recorded between t1 and t2"). */
export function gapRow(service: string, startedAt: number, endedAt: number, dropped: number, reason: string): GapRow {
  return [service, startedAt, endedAt, dropped, reason];
}

/** Adds `row`'s counters (requests, errors, retries) to `into`, a row of the same key. */
export function addTraffic(into: TrafficRow, row: TrafficRow): void {
  into[4] += row[4];
  into[5] += row[5];
  into[6] += row[6];
}
