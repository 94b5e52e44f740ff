/**
 * The writer's gap tracker (DESIGN §5 "bounded queue (overflow counted, never silent)"): a run
 * of error records dropped while the queue is full becomes one open gap (service, first and last
 * time, count), closed into a gap row ("N errors not recorded between t1 and t2") when the queue
 * takes a record again or the writer flushes.
 */
import type { ErrorEvent } from '../protocol/error-event.js';
import type { GapRow } from './internal-types.js';
import { gapRow } from './row.js';

interface OpenGap {
  service: string;
  startedAt: number;
  endedAt: number;
  count: number;
}

/** Gap rows of queue overflow. */
export class GapTracker {
  private gap: OpenGap | null = null;

  /** `service`: the writer's own `service` option, which names the gap when set. */
  constructor(private readonly service: string | null | undefined) {}

  /** True while records are being dropped and no row has closed the gap yet. */
  get isOpen(): boolean {
    return this.gap !== null;
  }

  /** Counts one dropped event. Returns true when it opened a new gap (the writer warns once). */
  drop(event: ErrorEvent): boolean {
    const at = typeof event?.occurred_at === 'number' && Number.isFinite(event.occurred_at) ? Math.trunc(event.occurred_at) : Date.now();
    const opened = this.gap === null;
    const gap = (this.gap ??= { service: this.service ?? (typeof event?.service === 'string' ? event.service : 'unknown_service'), startedAt: at, endedAt: at, count: 0 });
    gap.count++;
    if (at < gap.startedAt) gap.startedAt = at;
    if (at > gap.endedAt) gap.endedAt = at;
    return opened;
  }

  /** Closes the open gap: its `queue_full` row, or null when none is open. */
  close(): GapRow | null {
    const gap = this.gap;
    if (!gap) return null;
    this.gap = null;
    return gapRow(gap.service, gap.startedAt, gap.endedAt, gap.count, 'queue_full');
  }
}
