/**
 * An in-memory `AuditSink`: a real implementation of the interface (not a mock) that keeps what
 * it is given, for tests that assert on audit records without SQLite.
 */
import type { AuditGap, AuditHealth, AuditSink } from '../../src/audit/sink.js';
import type { ErrorEvent, TrafficSample } from '../../src/protocol/error-event.js';

export class MemoryAuditSink implements AuditSink {
  readonly events: ErrorEvent[] = [];
  readonly traffic: TrafficSample[] = [];
  readonly gaps: AuditGap[] = [];
  closed = false;
  write(event: ErrorEvent): void {
    this.events.push(structuredClone(event));
  }
  recordGap(gap: AuditGap): void {
    this.gaps.push({ ...gap });
  }
  recordTraffic(samples: TrafficSample[]): void {
    this.traffic.push(...samples.map((s) => ({ ...s })));
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {
    this.closed = true;
  }
  health(): AuditHealth {
    return { state: 'ok', reason: null, written: this.events.length, dropped: this.gaps.reduce((n, g) => n + g.count, 0), failed: 0, queueSize: 0 };
  }
}
