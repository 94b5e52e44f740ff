/**
 * Public options and handle of `createTriage` (issue 3 "Public API"). Every field is optional;
 * defaults live in `DEFAULTS` (options.ts) and are repeated here under `@default`.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { Logger } from 'pino';
import type { AuditSink } from '../audit/sink.js';
import type { Pseudonymizer } from '../audit/pseudonym.js';

/** Which AAP error envelope to write when the instrumentation builds or completes one. */
export type AapForm = 'auto' | '2.0' | 'released';

/** Keyed pseudonyms (DESIGN §5), as `loadPseudonymizer` from `src/audit` returns them. */
export type { Pseudonymizer } from '../audit/pseudonym.js';

/** Options of {@link createTriage}. */
export interface TriageOptions {
  /**
   * `service.name` written on every audit row and log line.
   * @default process.env.OTEL_SERVICE_NAME, else 'dealer-agent'
   */
  serviceName?: string;
  /**
   * The dealer's deployed version, written as `service_version` on every audit row (issue 29;
   * issues are resolved and regress by it). Used only when the host's OpenTelemetry resource
   * (`service.version`, `OTEL_RESOURCE_ATTRIBUTES`) and `OTEL_SERVICE_VERSION` name none. 1–64
   * letters, digits or `. _ + ~ -`; anything else throws a TypeError.
   * @default none: rows carry a null version
   */
  serviceVersion?: string;
  /**
   * Path of the SQLite audit database, or `false` to disable auditing (telemetry still works).
   * @default process.env.AAP_TRIAGE_DB, else './aap-triage.db'
   */
  auditDb?: string | false;
  /**
   * An audit sink to write to instead of opening `auditDb` (tests, a PostgreSQL sink, a fan-out).
   * The instrumentation calls `close()` on it at `shutdown()`.
   */
  auditSink?: AuditSink;
  /**
   * Returns the caller's credential. It is pseudonymised with the key before anything else sees
   * it and is never stored.
   * @default the `Authorization: Bearer …` token, else the `x-api-key` header, else none
   */
  credential?: (req: IncomingMessage) => string | null | undefined;
  /**
   * JSON-RPC methods reported by name; any other becomes `_OTHER` in `rpc.method` (the original
   * goes to `rpc.method_original`, on the span only), which keeps metric cardinality bounded.
   * @default DEFAULT_KNOWN_METHODS (A2A 1.0 and 0.3 methods, MCP/DMC-12 `tools/*`, `initialize`)
   */
  knownMethods?: readonly string[];
  /**
   * AAP error form per endpoint (spec/aap-errors.txt: "Existing v1.3 endpoints retain their
   * released error shape"): what a rewritten `AapError` is written in, and what the conformance
   * check holds the host's own errors to. One value for every endpoint, or an object keyed by
   * request path (`{ '/v1/jsonrpc': 'released', '/v2/jsonrpc': '2.0', '*': 'auto' }`, `'*'` for
   * the rest). `auto` reads the version of the AAP extension on the agent card (`agentCard`, or
   * the card the host serves at `/.well-known/agent-card.json`): 2.x → the 2.0 array, ≤ 1.3 →
   * the released object; with no card read yet, the `/vX.Y` of `requiredExtensionUri`, else 2.0.
   * @default 'auto'
   */
  aapForm?: AapForm | Readonly<Record<string, AapForm>>;
  /**
   * The agent card the server serves (an @a2a-js/sdk `AgentCard` or its JSON), read once for the
   * AAP version of each endpoint (`aapForm: 'auto'`). Without it, `auto` waits for the host to
   * serve its card.
   */
  agentCard?: unknown;
  /**
   * Largest request or response body inspected, bytes. A larger JSON response is passed through
   * unchanged and unclassified; a larger request body is not fingerprinted.
   * NOTE: JSON responses up to this size are buffered until complete so they can be completed
   * (error_id) — memory per in-flight request is bounded by it.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * pino logger for the line per error (and the instrumentation's own warnings), or `false` for
   * none. A logger given here always gets its lines (sampled in storms, see `logLinesPerSecond`).
   * Without one, each error leaves as one log event (DESIGN §2): the OpenTelemetry `aap.error`
   * record when the host has a logs pipeline (a global LoggerProvider, e.g. NodeSDK with a log
   * record processor or `aap-triage/register`), else the line of the default logger.
   * @default pino at level warn to stderr (nothing on the host's stdout), used when no logs pipeline exists
   */
  logger?: Logger | false;
  /**
   * Extension URI the agent card declares `required: true`; used to complete a bare -32008. When
   * omitted, it is read from the SDK's own -32008 message (which names the URIs).
   */
  requiredExtensionUri?: string;
  /** Tracer provider. @default the global one (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider;
  /**
   * Meter provider. @default the global one, so `OTEL_METRICS_EXPORTER=prometheus` or OTLP set up
   * by `aap-triage/register` (or the host's NodeSDK) is used as is.
   */
  meterProvider?: MeterProvider;
  /**
   * Keyed pseudonymizer.
   * @default `loadPseudonymizer({ dbPath, create: true })` for the audit database (key from
   * `AAP_TRIAGE_KEY` or `<db>.key`); with auditing off, a per-process random key
   */
  pseudonymizer?: Pseudonymizer;
  /**
   * Skill and tool names reported by name on spans, metrics, logs and audit rows; others become
   * `_OTHER` (a skill name comes from the request, so it is allow-listed like methods).
   * @default DEFAULT_KNOWN_SKILLS (the AAP skills and the DMC-12 tools)
   */
  knownSkills?: readonly string[];
  /**
   * Retry window, milliseconds: a call seen again within it is a retry (DESIGN §6).
   * @default 600_000 (10 min)
   */
  retryWindowMs?: number;
  /**
   * Most `(client, fingerprint)` keys the retry tracker remembers; the least recently seen go first,
   * a sixteenth of the bound at a time (so 15/16 of it to all of it are held once full).
   * NOTE: about 200 bytes per key.
   * @default 50_000
   */
  retryTrackerMaxKeys?: number;
  /**
   * How often per-minute traffic counters are handed to the audit sink, milliseconds.
   * @default 60_000
   */
  trafficFlushIntervalMs?: number;
  /**
   * Most calls of one HTTP exchange (a JSON-RPC batch) that get a span, a log line and an audit
   * row of their own. Calls past it are still answered, completed on the wire and counted in
   * the metrics and traffic counters (not in the retry tracker: attempt 1, or the `aap-attempt`
   * header; no conformance rules); their errors end in one summary: an `audit_gaps` row with reason
   * `exchange_cap` and their count (counted as `dropped`), and one log line. Never a silent cut.
   * NOTE: each audited error costs two HMACs, a span and a row; the cap bounds what one request
   * can make the host do.
   * @default 100
   */
  maxAuditedCallsPerExchange?: number;
  /**
   * Most pino lines per second for one (service, code) during a storm (DESIGN §2, zap-style
   * sampling): the first this many errors of a code in a second get their line; the rest of that
   * second are counted, and one summary line (`omitted`: the exact count) follows when the second
   * is over. Only the human-readable line is sampled: the audit row, the metrics and the
   * OpenTelemetry `aap.error` record stay one per error.
   * @default 10
   */
  logLinesPerSecond?: number;
  /**
   * Also speak OpenTelemetry's GenAI conventions for the two protocols (Development status,
   * open-telemetry/semantic-conventions-genai `docs/gen-ai/a2a.md` and `mcp.md`): A2A calls get
   * the A2A server attributes and the span name `{a2a.method.name}`; DMC-12 `tools/call` calls
   * the MCP server attributes, the span name `tools/call <tool>`, the trace context of
   * `params._meta`, and `mcp.server.operation.duration`. Every value from the caller passes a
   * pattern or allow-list, or is left out (docs/instrumentation.md lists them per mode).
   * @default true when `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma-separated list) holds
   *   `gen_ai_latest_experimental`, else false
   */
  genAiConventions?: boolean;
}

/** What {@link createTriage} returns. */
export interface Triage {
  /**
   * Express middleware; mount it before the JSON-RPC handler (`app.use(triage.middleware())`).
   * Works with a body parser mounted before or after it.
   */
  middleware(): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  /**
   * Express error-handling middleware for body-parser failures; mount it after the routes
   * (`app.use(triage.errorHandler())`). A body `express.json()` could not read — truncated JSON,
   * a body over its `limit`, an unsupported charset or encoding — is answered with a JSON-RPC
   * error (`id: null`; -32700 Parse error, else -32600 Invalid Request; body-parser's HTTP
   * status), never Express's HTML error page, and audited with an `error_id` like any error.
   * Other errors go to the next error handler unchanged.
   * NOTE: the answer waits until the unread rest of the request body is drained (as Express's
   * finalhandler does), so the client receives it instead of a connection reset.
   */
  errorHandler(): (err: unknown, req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  /** Wraps a `node:http` request listener. */
  wrap<L extends RequestListener>(listener: L): L;
  /**
   * Observes one exchange without wrapping a listener (used by `aap-triage/register`). Call it
   * synchronously before the host's handler runs: it enters the exchange's AsyncLocalStorage
   * store for the rest of the current execution.
   */
  observe(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Flushes traffic counters and the audit sink, then closes the sink. Resolves when done; never
   * rejects. Idempotent.
   */
  shutdown(): Promise<void>;
}

/**
 * Options of {@link AapTriageInstrumentation}: every {@link TriageOptions} field except the
 * providers (the SDK sets them through `setTracerProvider` / `setMeterProvider` /
 * `setLoggerProvider`), plus `enabled` from `InstrumentationConfig`.
 */
export interface AapTriageInstrumentationConfig extends InstrumentationConfig, Omit<TriageOptions, 'tracerProvider' | 'meterProvider'> {}
