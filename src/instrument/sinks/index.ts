/**
 * The sinks (DESIGN §2): a fixed array, each reading the exchange's records and copying its own
 * allow-list from them, behind one guard. Adding a sink is one file and one line here.
 */
import type { ExchangeRecords, TriageCore } from '../internal-types.js';
import { auditSink } from './audit.js';
import { logSink } from './log.js';
import { metricsSink } from './metrics.js';
import { spanSink } from './span.js';
import { trafficSink } from './traffic.js';

/** A sink: reads one exchange's records. May throw; the guard in {@link runSinks} catches it. */
export type Sink = (core: TriageCore, x: ExchangeRecords) => void;

/**
 * The sinks in the order they run, each with the kind its failures are reported under (once per
 * kind, safe-call.ts). The span goes first: it is open until then.
 */
export const SINKS: readonly (readonly [kind: string, sink: Sink])[] = [
  ['span', spanSink],
  ['metrics', metricsSink],
  ['log', logSink],
  ['traffic', trafficSink],
  ['audit-write', auditSink],
];

/** Hands one exchange's records to every sink. Never throws: a failing sink is counted and reported once, and the others still run. */
export function runSinks(core: TriageCore, x: ExchangeRecords): void {
  for (const [kind, sink] of SINKS) {
    try {
      sink(core, x);
    } catch (err) {
      core.safe.fail(kind, err);
    }
  }
}
