/**
 * Per-minute request counters for the audit store's `traffic` table (DESIGN §5): the denominator
 * for error rates and storms. Keyed by minute × skill × client; the service is the triage's (read
 * when a sample is opened: it may be learnt from the host's resource after construction).
 * Apart from the sink (traffic.ts) so that the core's shapes (internal-types.ts) can name it
 * without an import circle.
 */
import type { TrafficSample } from '../../protocol/error-event.js';

const MINUTE_MS = 60_000;

/** The counters of one core: `add` per call, `drain` per flush. */
export class TrafficCounter {
  private samples = new Map<string, TrafficSample>();

  constructor(private readonly service: () => string) {}

  /** The sample the last call counted in: most calls count in the same one (no key text built). */
  private last: TrafficSample | null = null;

  /** Counts one call that arrived at `at` (epoch ms). */
  add(at: number, skill: string | null, client: string | null, isError: boolean, isRetry: boolean): void {
    const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS;
    const s = skill ?? '';
    const c = client ?? '';
    let sample = this.last;
    if (sample === null || sample.minute !== minute || sample.skill !== s || sample.client !== c) {
      const key = `${minute}\u0000${s}\u0000${c}`;
      sample = this.samples.get(key) ?? null;
      if (!sample) {
        sample = { minute, service: this.service(), skill: s, client: c, requests: 0, errors: 0, retries: 0 };
        this.samples.set(key, sample);
      }
      this.last = sample;
    }
    sample.requests += 1;
    if (isError) sample.errors += 1;
    if (isRetry) sample.retries += 1;
  }

  /** Everything counted since the last drain; the store adds rows with the same key together. */
  drain(): TrafficSample[] {
    if (this.samples.size === 0) return [];
    const out = [...this.samples.values()];
    this.samples = new Map();
    this.last = null;
    return out;
  }
}
