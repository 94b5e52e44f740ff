/**
 * Internal shapes shared by the observer, sinks and adapters. Never exported from index.ts, so
 * they may change freely (contrib GUIDELINES.md).
 */
import type { Span } from '@opentelemetry/api';
import type { ErrorEvent, ErrorProtocol, EventOrigin, RetryFlag } from '../protocol/error-event.js';
import type { ConventionFacts } from './genai-conventions.js';

/**
 * The one record of one JSON-RPC call, made by `record()` (exchange/record.ts) once its exchange
 * is over; every sink reads it and none re-parses, re-bounds or re-sanitises a value. Plain data
 * but for the call's span handle.
 */
export interface CallRecord {
  /** Allow-listed method (`_OTHER` for unknown). */
  method: string;
  protocol: ErrorProtocol;
  /** Allow-listed skill or tool name, `_OTHER`, or null. */
  skill: string | null;
  /** Keyed pseudonym of the caller's credential, or null (the traffic counters' client). */
  client: string | null;
  /** `probe` for a call of `aap-triage probe`, else null (then not counted as buyer traffic). */
  origin: EventOrigin | null;
  attempt: number;
  flags: RetryFlag[];
  /** When the exchange started, epoch ms (the traffic minute). */
  startedAt: number;
  /** When the response was done, epoch ms (span end, `occurred_at`). */
  endedAt: number;
  /** Server-side duration, seconds. */
  durationS: number;
  /**
   * `error.type` by the semconv RPC rule (telemetry-codes.ts): the JSON-RPC status code when an
   * error member was returned, else the domain code; `_OTHER` for a code no table knows. Null on success.
   */
  errorType: string | null;
  /** `rpc.status_code`: the error member's JSON-RPC code (bounded), or null. */
  statusCode: string | null;
  /** `aap.error.code`: the AAP / DMC-12 / A2A code (bounded), or null on success. */
  errorCode: string | null;
  /** `retryable` as the wire said it (null: unknown, or a success). */
  retryable: boolean | null;
  /** Conformance rule ids the answer broke (empty past the audit cap: the rules are not run). */
  conformance: readonly string[];
  /** Within `maxAuditedCallsPerExchange`: the call has its own span, line and row. */
  audited: boolean;
  /** The audit record of an audited error; null on success and past the cap. */
  event: ErrorEvent | null;
  /** The error_id of the audit row when the dealer reused a wire id (the row gets its own); else null. */
  rowId: string | null;
  /** The call's span (audited calls only). */
  span: Span | null;
  /** The record ends `span` (false for the HTTP server span, which its owner ends). */
  endsSpan: boolean;
  /** The GenAI conventions' span name, attributes and MCP metric labels (issue 29); null without the opt-in or for a call they do not cover. */
  conventions: ConventionFacts | null;
  /**
   * How many calls of one exchange this record stands for in the metrics (identical labels and
   * values: a batch's calls share one duration). 1 unless the metrics sink grouped them.
   */
  count: number;
}

/** What the cap on audited calls left out of one exchange: counted, never silent. Times epoch ms. */
export interface CappedErrors {
  count: number;
  from: number;
  to: number;
}

/** One exchange's records, as the sinks receive them. */
export interface ExchangeRecords {
  records: CallRecord[];
  /** Errors past `maxAuditedCallsPerExchange` (one gap row and one line), or null. */
  capped: CappedErrors | null;
  /** The exchange's trace id (for the capped line), or null. */
  traceId: string | null;
}

import type { Attributes, Histogram, Tracer } from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { Logger } from 'pino';
import type { AuditSink } from '../audit/sink.js';
import type { Pseudonymizer } from '../audit/pseudonym.js';
import type { EndpointForms } from './endpoint-forms.js';
import type { ErrorIdMemory } from './exchange/error-id-memory.js';
import type { RetryTracker } from './exchange/retry-tracker.js';
import type { Settings } from './options.js';
import type { SafeCaller } from './safe-call.js';
import type { LineSampler } from './sinks/line-sampler.js';
import type { TrafficCounter } from './sinks/traffic-counter.js';

/**
 * The state one core (core.ts: a `createTriage` call or an `AapTriageInstrumentation`) shares
 * with every exchange it observes. `tracer`, `instruments`, `otelLogger` and `service` follow the
 * providers set after construction.
 */
export interface TriageCore {
  /** The resolved options (options.ts), read-only. */
  readonly settings: Settings;
  /** `service.name`: the option, `OTEL_SERVICE_NAME`, the tracer provider's resource, else `dealer-agent`. */
  service: string;
  /** `service.version` for audit rows: the tracer provider's resource, else `settings.serviceVersion` (issue 29). */
  serviceVersion: string | null;
  tracer: Tracer;
  instruments: Instruments | null;
  /** OpenTelemetry logger of the `aap.error` records (the API's proxy until a provider is set). */
  otelLogger: OtelLogger;
  /** Whether an OpenTelemetry logs pipeline takes the `aap.error` records (DESIGN §2 "one log event"). */
  logsPipeline(): boolean;
  /** pino logger of the per-error line and the instrumentation's own warnings, or null. */
  logger: Logger | null;
  /** The logger is the host's own (`logger` option): it gets its lines whatever the logs pipeline. */
  hostLogger: boolean;
  /** Samples the per-error pino lines in storms (`logLinesPerSecond`). */
  lines: LineSampler;
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
  /** Recent wire error_ids, to keep a row for each error of a dealer that reuses one. */
  errorIds: ErrorIdMemory;
  /** The AAP error form of each endpoint (option, agent card). */
  forms: EndpointForms;
  /** False after shutdown or disable: exchanges pass through unobserved. */
  active: boolean;
}

/**
 * A monotonic count kept in plain numbers on the hot path and reported through an observable
 * counter at collection (issue 14): `add` is a map update, where a synchronous counter's `add`
 * hashes the attribute set on every call. Attribute objects are the cached label sets of sinks/metrics.ts, so
 * the map is keyed by identity; equal sets from a cleared cache are merged at collection.
 */
export interface SumCounter {
  add(value: number, attributes: Attributes): void;
}

/** The metric instruments of one meter (sinks/metrics.ts creates them; DESIGN §4). */
export interface Instruments {
  callDuration: Histogram;
  errors: SumCounter;
  retries: SumCounter;
  attempts: Histogram;
  conformance: SumCounter;
  /**
   * `mcp.server.operation.duration` (GenAI opt-in, issue 29), created on first use so that a
   * process without the opt-in exports no such metric.
   */
  mcpOperationDuration(): Histogram;
}
