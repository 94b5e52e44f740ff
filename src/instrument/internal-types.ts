/**
 * Internal shapes shared by the observer, sinks and adapters. Never exported from index.ts, so
 * they may change freely (contrib GUIDELINES.md).
 */
import type { ErrorEvent, ErrorProtocol, RetryFlag } from '../protocol/error-event.js';

/** Everything known about one JSON-RPC call once its exchange is over; what the sinks read. */
export interface CallReport {
  /** Allow-listed method (`_OTHER` for unknown). */
  method: string;
  protocol: ErrorProtocol;
  /** Allow-listed skill or tool name, `_OTHER`, or null. */
  skill: string | null;
  attempt: number;
  flags: RetryFlag[];
  /** Server-side duration, seconds. */
  durationS: number;
  /**
   * `error.type` by the semconv RPC rule (telemetry-codes.ts): the JSON-RPC status code when an
   * error member was returned, else the domain code; `_OTHER` for a code no table knows.
   */
  errorType: string | null;
  /** `rpc.status_code`: the error member's JSON-RPC code (bounded), or null. */
  statusCode: string | null;
  /** `aap.error.code`: the AAP / DMC-12 / A2A code (bounded), or null on success. */
  errorCode: string | null;
  /** The audit record, when the call was answered with an error. */
  error: ErrorEvent | null;
  /**
   * How many calls of one exchange this report stands for in the metrics (identical labels and
   * values: a batch's calls share one duration). @default 1
   */
  count?: number;
}

import type { IncomingMessage } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { Logger } from 'pino';
import type { AuditSink } from '../audit/sink.js';
import type { Instruments } from './metrics.js';
import type { RetryTracker } from './retry-tracker.js';
import type { SafeCaller } from './safe-call.js';
import type { TrafficCounter } from './traffic.js';
import type { Pseudonymizer } from '../audit/pseudonym.js';
import type { EndpointForms } from './endpoint-forms.js';
import type { ErrorIdMemory } from './error-id-memory.js';

/**
 * The state one core (core.ts: a `createTriage` call or an `AapTriageInstrumentation`) shares
 * with every exchange it observes. `tracer`, `instruments` and `otelLogger` are replaced when a
 * provider is set after construction.
 */
export interface TriageCore {
  service: string;
  tracer: Tracer;
  instruments: Instruments | null;
  /** OpenTelemetry logger of the `aap.error` records (the API's proxy until a provider is set). */
  otelLogger: OtelLogger;
  /** pino logger of the per-error line and the instrumentation's own warnings, or null. */
  logger: Logger | null;
  safe: SafeCaller;
  sink: AuditSink | null;
  pseudonymizer: Pseudonymizer | null;
  /** `pseudonymizer.client`, memoised per credential (callers reuse their key on every call). */
  clientPseudonym(credential: string): string | null;
  /**
   * `pseudonymizer.fingerprint(method, skill, params)`, memoised by `memoKey` (the call's tracker
   * hash) when given: a retried call is fingerprinted once. Throws what the pseudonymizer throws.
   */
  fingerprintOf(method: string, skill: string | null, params: unknown, memoKey: number | null): string | null;
  tracker: RetryTracker;
  traffic: TrafficCounter;
  knownMethods: ReadonlySet<string>;
  knownSkills: ReadonlySet<string>;
  /** Recent wire error_ids, to keep a row for each error of a dealer that reuses one. */
  errorIds: ErrorIdMemory;
  /** The AAP error form of each endpoint (option, agent card). */
  forms: EndpointForms;
  maxBodyBytes: number;
  credential: (req: IncomingMessage) => string | null | undefined;
  requiredExtensionUri: string | null;
  /** `maxAuditedCallsPerExchange`: calls of one exchange reported one by one. */
  maxAuditedCalls: number;
  /** False after shutdown: exchanges pass through unobserved. */
  active: boolean;
}
