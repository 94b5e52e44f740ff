/**
 * The PII canary test (issue 4 "Tests", first bullet; DESIGN §5 "PII-free by construction" and
 * §8; spec/dmc12-errors.txt "PII-safe by design").
 *
 * It drives real instrumented servers — the demo's AAP dealer agent on @a2a-js/sdk and its
 * DMC-12 dealer agent on node:http (src/demo), plus the reusable test servers of test/helpers
 * for the paths the demo cannot produce (an SSE stream, an AapError thrown in the executor with
 * details that echo the request, a DMC-12 batch) — with requests full of distinct canary values:
 * customer names, emails, phones, consent texts, notes, messages, trade-in VINs, API keys,
 * idempotency keys, ids the dealer echoes in its messages, an unknown filter key that is itself
 * an email, and a DMC-12 hand-off whose VALIDATION_FAILED message echoes the bad phone.
 *
 * Both run with the GenAI conventions on (issue 29), and requests put canaries in every caller
 * field those read (A2A message id, context id — also as the SDK echoes it in a task result —,
 * reference task ids, tenant, task id; MCP session id, protocol version, tool name,
 * `params._meta` with its `tracestate`; an `isError` tool result's text); canary-default.test.ts
 * runs this file again with them off, the default (AAP_TRIAGE_CANARY_CONVENTIONS=default).
 *
 * Two `createTriage` instances (one per service) write one temp SQLite file through the real
 * `openAuditSink`, log to one captured pino stream, export spans to an in-memory exporter, and
 * export metrics on two real Prometheus endpoints (the AAP service through
 * `OTEL_METRICS_EXPORTER=prometheus`, which `createTriage` honours via `startMetricsExportFromEnv`;
 * the DMC-12 service through its own `PrometheusExporter`), scraped over HTTP.
 *
 * Then it reads every byte that left the host: the database, its -wal and -shm (copied after a
 * flush while the writers are still open, and again after `shutdown()`), every other file in
 * the temp folder (the health file), the log text, every span (name, attributes, events, status,
 * links, trace state, resource), every OpenTelemetry log record (the `aap.error` record per error, issue 19:
 * body, attributes, scope, ids) and both scrapes, and asserts that no canary appears in any encoding (raw,
 * lower-cased, digits, plain SHA-256 hex/base64/base64url). The positive side: a row per error
 * path, with the caller's `client` pseudonym, the `subject` pseudonym when the request carried an
 * email or phone, the `idempotency` pseudonym, and the unknown email filter key sanitised to
 * `/filters/*`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT_CONTEXT, defaultTextMapGetter, propagation, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadPseudonymizer, openAuditReader, openAuditSink } from '../../src/audit/index.js';
import type { Pseudonymizer } from '../../src/audit/index.js';
import { DealerAgentError, createAapFetch, createRetryBudget, withRetries } from '../../src/client/index.js';
import { AapDealer } from '../../src/demo/aap/dealer.js';
import { createAapApp } from '../../src/demo/aap/server.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';
import { Dmc12Dealer } from '../../src/demo/dmc12/dealer.js';
import { createDmc12Listener } from '../../src/demo/dmc12/server.js';
import { closeServer, listenLoopback } from '../../src/demo/http-util.js';
import { demoInventory } from '../../src/demo/inventory.js';
import { createRng } from '../../src/demo/rng.js';
import { createTriage } from '../../src/instrument/index.js';
import { hasGlobalMeterProvider } from '../../src/instrument/metrics-export.js';
import type { Triage } from '../../src/instrument/types.js';
import { startAapServer, TEST_EXTENSION_URI } from '../helpers/aap-server.js';
import { captureSdkConsole } from '../helpers/sdk-console.js';
import type { AapServer } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server } from '../helpers/dmc12-server.js';
import type { Dmc12Server } from '../helpers/dmc12-server.js';
import { captureLog } from '../helpers/log-capture.js';
import { CanaryFactory, formsOf, leaksIn } from './canaries.js';
import type { CanaryForm } from './canaries.js';

/** The `tracestate` a `tools/call` sends in `params._meta` (set in driveDmc12). */
let TRACESTATE_WITH_CANARY = '';

/** The GenAI conventions (issue 29): on here, off (the default) when run by canary-default.test.ts. */
const GENAI_CONVENTIONS = process.env['AAP_TRIAGE_CANARY_CONVENTIONS'] !== 'default';

type Obj = Record<string, unknown>;

const AAP_SERVICE = 'pii-canary-aap';
const DMC_SERVICE = 'pii-canary-dmc12';
/** Inventory VINs of src/demo/inventory.ts: one available, one sold. */
const AVAILABLE_VIN = '2HKRW2H88PH123456';
const SOLD_VIN = '5YJ3E1EA2NF291177';
const DMC_VINS = ['1HGCY2F52RA004211', 'JTMB1RFV7RD118842', '4T1C11AK5PU073315'] as const;
const HOUR_MS = 3_600_000;

/** What one driven error path must have left in the audit store. */
interface Expectation {
  path: string;
  service: string;
  code: string;
  /** `error_id` the caller received; null when the wire carries none (then matched by code). */
  errorId: string | null;
  /** Raw credential the request carried (its pseudonym must be the row's `client`). */
  credential: string | null;
  /** Raw email or phone the request carried (its pseudonym must be the row's `subject`). */
  subject?: string;
  idempotency?: string;
  violations?: { location: string; keyword: string }[];
  httpStatus?: number;
  jsonrpcCode?: number;
  /** The wire error_id the dealer sent, which fails its pattern: the row must carry a minted one. */
  mintedFrom?: string;
  /** The dealer's upstream trace id fails its pattern: the row's must be null. */
  upstreamNull?: boolean;
}

interface Row {
  error_id: string;
  service: string;
  code: string;
  rpc_method: string;
  skill: string | null;
  client: string | null;
  subject: string | null;
  idempotency: string | null;
  fingerprint: string | null;
  violations: string;
  http_status: number;
  jsonrpc_code: number | null;
  legacy_error: string | null;
  key_id: string | null;
  upstream_trace_id: string | null;
}

interface Http {
  status: number;
  text: string;
  json: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `error_id` the caller sees: ErrorInfo metadata, an aap.error payload, error.data, or result.data. */
function wireErrorId(body: unknown): string | null {
  if (!isObj(body)) return null;
  const error = isObj(body.error) ? body.error : null;
  const data = error?.data;
  if (Array.isArray(data)) {
    for (const d of data) if (isObj(d) && isObj(d.metadata) && typeof d.metadata.error_id === 'string') return d.metadata.error_id;
    for (const d of data) if (isObj(d) && typeof d.error_id === 'string') return d.error_id;
  }
  if (isObj(data) && typeof data.error_id === 'string') return data.error_id;
  const result = isObj(body.result) ? body.result : null;
  if (result && isObj(result.data) && typeof result.data.error_id === 'string') return result.data.error_id;
  return null;
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function post(url: string, body: unknown, headers: Record<string, string>, send: typeof fetch = fetch): Promise<Http> {
  const res = await send(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A SendMessage (or streaming) body whose first part carries `data`. */
function message(id: string | number, data: Obj, method = 'SendMessage'): Obj {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: { message: { messageId: `msg-${String(id)}`, role: 'ROLE_USER', parts: [{ data, mediaType: 'application/json' }] } },
  };
}

function toolsCall(id: string | number, name: string, args: Obj): Obj {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

const iso = (ms: number): string => new Date(ms).toISOString();

// ---- shared state filled by beforeAll -------------------------------------------------------

const canaries = new CanaryFactory();
let forms: CanaryForm[] = [];
const expectations: Expectation[] = [];
let dir = '';
let dbPath = '';
let pseudonymizer: Pseudonymizer;
/** Files of the temp folder read after a flush, writers still open (before the final checkpoint). */
const beforeCheckpoint = new Map<string, Buffer>();
/** Files of the temp folder read after `shutdown()`. */
const afterShutdown = new Map<string, Buffer>();
let logText = '';
let spans: ReadableSpan[] = [];
let otelLogs: ReadableLogRecord[] = [];
let loggerProvider: LoggerProvider | null = null;
const scrapes = new Map<string, string>();
let rows: Row[] = [];
let trafficClients: string[] = [];
/** Text of the wire responses: proves the servers did echo the canaries (the test is not vacuous). */
let wireText = '';
const savedEnv = new Map<string, string | undefined>();

const servers: (() => Promise<void>)[] = [];
let aapTriage: Triage | null = null;
let dmcTriage: Triage | null = null;
let dmcMeterProvider: MeterProvider | null = null;
let tracerProvider: NodeTracerProvider | null = null;

/** The @a2a-js/sdk server's own console.error lines while the canary traffic runs (captured, asserted below). */
const sdkConsole = captureSdkConsole('file');

function expectRow(e: Expectation): void {
  expectations.push(e);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aap-pii-canary-'));
  dbPath = join(dir, 'audit.db');
  const log = captureLog();
  const spanExporter = new InMemorySpanExporter();
  tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  tracerProvider.register();
  // The host's logs pipeline: the `aap.error` record of every error lands here.
  const logExporter = new InMemoryLogRecordExporter();
  loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
  logs.setGlobalLoggerProvider(loggerProvider);

  pseudonymizer = loadPseudonymizer({ dbPath, create: true, env: {}, logger: log.logger });
  // The real SQLite sinks, passed in so the test can flush them and copy the WAL before the
  // final checkpoint (an idle checkpoint would otherwise fold it into the main file first).
  const sinkOptions = { path: dbPath, logger: log.logger, idleCheckpointMs: 600_000, handleSignals: false };
  const aapSink = openAuditSink({ ...sinkOptions, service: AAP_SERVICE });
  const dmcSink = openAuditSink({ ...sinkOptions, service: DMC_SERVICE });

  // AAP service: metrics exported through the environment, as a server without an SDK would.
  const aapPort = await freePort();
  const env = {
    OTEL_METRICS_EXPORTER: 'prometheus',
    OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
    OTEL_EXPORTER_PROMETHEUS_PORT: String(aapPort),
  };
  for (const [k, v] of Object.entries(env)) {
    savedEnv.set(k, process.env[k]);
    process.env[k] = v;
  }
  expect(hasGlobalMeterProvider()).toBe(false);
  aapTriage = createTriage({ serviceName: AAP_SERVICE, auditSink: aapSink, pseudonymizer, logger: log.logger, tracerProvider, genAiConventions: GENAI_CONVENTIONS });
  // The export starts one event-loop turn later (a host SDK started next would be in charge).
  await new Promise((r) => setTimeout(r, 10));
  expect(hasGlobalMeterProvider()).toBe(true);

  // DMC-12 service: its own PrometheusExporter.
  const dmcPort = await freePort();
  dmcMeterProvider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': DMC_SERVICE }),
    readers: [new PrometheusExporter({ host: '127.0.0.1', port: dmcPort })],
  });
  dmcTriage = createTriage({
    serviceName: DMC_SERVICE,
    auditSink: dmcSink,
    pseudonymizer,
    logger: log.logger,
    tracerProvider,
    meterProvider: dmcMeterProvider,
    genAiConventions: GENAI_CONVENTIONS,
  });

  const wire: string[] = [];
  const call = async (url: string, body: unknown, headers: Record<string, string>, send: typeof fetch = fetch): Promise<Http> => {
    const r = await post(url, body, headers, send);
    wire.push(r.text);
    return r;
  };

  await driveAap(call, aapTriage);
  await driveDmc12(call, dmcTriage, log.logger);
  wireText = wire.join('\n');

  // Metrics while the endpoints are up (shutdown stops them).
  for (const [job, port] of [
    [AAP_SERVICE, aapPort],
    [DMC_SERVICE, dmcPort],
  ] as const) {
    scrapes.set(job, await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()));
  }

  // Everything queued so far committed; the WAL still holds it (no checkpoint yet).
  await aapSink.flush();
  await dmcSink.flush();
  for (const name of readdirSync(dir)) beforeCheckpoint.set(name, readFileSync(join(dir, name)));

  for (const close of servers.splice(0).reverse()) await close();
  await aapTriage.shutdown();
  await dmcTriage.shutdown();
  await dmcMeterProvider.shutdown();
  await tracerProvider.forceFlush();

  for (const name of readdirSync(dir)) afterShutdown.set(name, readFileSync(join(dir, name)));
  logText = log.raw.join('');
  spans = spanExporter.getFinishedSpans();
  otelLogs = [...logExporter.getFinishedLogRecords()];
  forms = canaries.all.flatMap(formsOf);

  const db = openAuditReader(dbPath);
  try {
    rows = db.prepare('SELECT * FROM error_events').all() as Row[];
    trafficClients = (db.prepare('SELECT DISTINCT client FROM traffic').all() as { client: string }[]).map((r) => r.client);
  } finally {
    db.close();
  }
}, 60_000);

afterAll(async () => {
  for (const close of servers.splice(0).reverse()) await close();
  await aapTriage?.shutdown();
  await dmcTriage?.shutdown();
  await dmcMeterProvider?.shutdown();
  await tracerProvider?.shutdown();
  await loggerProvider?.shutdown();
  logs.disable();
  for (const [k, v] of savedEnv) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- the AAP dealer (demo, @a2a-js/sdk) and the AAP test server ------------------------------

type Call = (url: string, body: unknown, headers: Record<string, string>, send?: typeof fetch) => Promise<Http>;

/** A customer with every field a lead can carry, all canaries. */
function customer(path: string) {
  return {
    first_name: canaries.name(`${path} first name`),
    last_name: canaries.name(`${path} last name`),
    email: canaries.email(`${path} email`),
    phone: canaries.phone(`${path} phone`),
  };
}

async function driveAap(call: Call, triage: Triage): Promise<void> {
  const t0 = Date.now();
  const dealer = new AapDealer({
    inventory: demoInventory(),
    rng: createRng(41),
    rateLimit: { capacity: 20, refillPerSecond: 0.0001 },
    minRetryAfterMs: 1000,
    leadFaultRate: 0,
    now: () => t0,
  });
  const app = createAapApp(dealer, triage.middleware());
  const server: Server = createServer(app.app);
  const base = await listenLoopback(server);
  app.setBaseUrl(base);
  servers.push(() => closeServer(server));
  const url = `${base}/a2a`;
  const headersFor = (key: string): Record<string, string> => ({
    'content-type': 'application/json',
    'A2A-Version': '1.0',
    'A2A-Extensions': AAP_EXTENSION_URI,
    authorization: `Bearer ${key}`,
  });

  /** A complete lead.submit payload, every value a canary. */
  const lead = (path: string, over: Obj = {}): { data: Obj; email: string } => {
    const c = customer(path);
    const data: Obj = {
      type: 'lead.submit.request',
      customer: { ...c, preferred_contact: 'email' },
      consent: {
        granted_at: iso(t0 - HOUR_MS),
        expires_at: iso(t0 + 365 * 24 * HOUR_MS),
        allowed_channels: ['email', 'phone'],
        consent_text: canaries.text(`${path} consent text`, 'I agree to be contacted by Demo Motors'),
        scope: ['lead_submission'],
      },
      vehicle_of_interest: { vin: AVAILABLE_VIN },
      trade_in: { vin: canaries.vin(`${path} trade-in VIN`), year: 2015, make: 'Honda', model: 'Civic', mileage: 91234, condition: 'good' },
      appointment: { appointment_type: 'test_drive', appointment_at: iso(t0 + 24 * HOUR_MS), notes: canaries.text(`${path} appointment notes`, 'Please call after five') },
      message: canaries.text(`${path} message`, 'Looking for a family car'),
      source_agent: { name: canaries.name(`${path} source agent`) },
      ...over,
    };
    return { data, email: c.email };
  };
  let n = 0;
  const rpcId = (): string => `aap-${++n}`;
  const aapPath = async (path: string, code: string, data: Obj, key: string, extra: Partial<Expectation> = {}, headers = headersFor(key), target = url) => {
    const r = await call(target, message(rpcId(), data), headers);
    expectRow({ path, service: AAP_SERVICE, code, errorId: wireErrorId(r.json), credential: key, ...extra });
    return r;
  };

  // A2A transport errors, each request a full lead of canaries.
  {
    const key = canaries.id('AAP API key (-32009)', 'sk_live_canary_');
    const { data, email } = lead('-32009');
    const { 'A2A-Version': _omit, ...headers } = headersFor(key);
    await aapPath('AAP -32009 (no A2A-Version)', 'VERSION_NOT_SUPPORTED', data, key, { subject: email }, headers);
  }
  {
    const key = canaries.id('AAP API key (-32008)', 'sk_live_canary_');
    const { data, email } = lead('-32008');
    const { 'A2A-Extensions': _omit, ...headers } = headersFor(key);
    await aapPath('AAP -32008 (extension not activated)', 'EXTENSION_SUPPORT_REQUIRED', data, key, { subject: email }, headers);
  }

  // Caller-controlled JSON-RPC fields (issue 16): an email as the id and as the method.
  {
    const idKey = canaries.id('AAP API key (email id)', 'sk_live_canary_');
    const emailId = canaries.email('JSON-RPC id (AAP)');
    const r = await call(url, message(emailId, { type: 'inventory.vehicle.request', vin: canaries.vin('unknown VIN (AAP email id)') }), headersFor(idKey));
    expect(r.text).toContain(emailId);
    expectRow({ path: 'AAP VEHICLE_NOT_FOUND with an email as JSON-RPC id', service: AAP_SERVICE, code: 'VEHICLE_NOT_FOUND', errorId: wireErrorId(r.json), credential: idKey });
    const methodKey = canaries.id('AAP API key (email method)', 'sk_live_canary_');
    const m = await call(url, { jsonrpc: '2.0', id: rpcId(), method: canaries.email('JSON-RPC method (AAP)'), params: {} }, headersFor(methodKey));
    expectRow({ path: 'AAP -32601 for an email as method', service: AAP_SERVICE, code: '', errorId: wireErrorId(m.json), credential: methodKey });
  }

  // Skill errors of the demo dealer, one API key for the lead flow.
  const key = canaries.id('AAP API key (leads)', 'sk_live_canary_');
  {
    const { data, email } = lead('unsupported skill');
    data.type = `${canaries.id('unknown skill name', 'canary.skill.')}.request`;
    await aapPath('AAP UNSUPPORTED_SKILL', 'UNSUPPORTED_SKILL', data, key, { subject: email });
  }
  {
    const filterKey = canaries.email('unknown filter key');
    const data = { type: 'inventory.search.request', filters: { [filterKey]: 1 } };
    const r = await aapPath('AAP SCHEMA_VALIDATION_FAILED (unknown filter key is an email)', 'SCHEMA_VALIDATION_FAILED', data, key, {
      violations: [{ location: '/filters/*', keyword: 'additionalProperties' }],
    });
    // The wire does carry the email in instanceLocation: only the store must not.
    expect(r.text).toContain(filterKey);
  }
  {
    const badEmail = canaries.text('malformed email', 'not-an-email');
    const data = {
      type: 'lead.submit.request',
      customer: { first_name: canaries.name('schema first name'), last_name: canaries.name('schema last name'), email: badEmail, phone: canaries.badPhone('schema bad phone') },
      source_agent: { name: canaries.name('schema source agent') },
    };
    await aapPath('AAP SCHEMA_VALIDATION_FAILED (bad email and phone)', 'SCHEMA_VALIDATION_FAILED', data, key, { subject: badEmail });
  }
  await aapPath('AAP VEHICLE_NOT_FOUND', 'VEHICLE_NOT_FOUND', { type: 'inventory.vehicle.request', vin: canaries.vin('unknown VIN (AAP vehicle)') }, key);
  await aapPath('AAP VEHICLE_UNAVAILABLE', 'VEHICLE_UNAVAILABLE', { type: 'inventory.vehicle.request', vin: SOLD_VIN }, key);
  {
    const { data, email } = lead('consent missing');
    delete data.consent;
    await aapPath('AAP CONTACT_CONSENT_REQUIRED (no consent)', 'CONTACT_CONSENT_REQUIRED', data, key, { subject: email });
  }
  {
    const { data } = lead('consent expired');
    const c = data.customer as Obj;
    delete c.email;
    c.preferred_contact = 'phone';
    (data.consent as Obj).expires_at = iso(t0 - 1000);
    await aapPath('AAP INVALID_CONSENT (phone only)', 'INVALID_CONSENT', data, key, { subject: c.phone as string });
  }
  {
    const { data, email } = lead('channel not consented');
    (data.customer as Obj).preferred_contact = 'sms';
    await aapPath('AAP CONTACT_CONSENT_REQUIRED (channel)', 'CONTACT_CONSENT_REQUIRED', data, key, { subject: email });
  }
  {
    const { data, email } = lead('wrong condition');
    (data.trade_in as Obj).condition = 'new';
    await aapPath('AAP INVALID_CONDITION', 'INVALID_CONDITION', data, key, { subject: email });
  }
  {
    const { data, email } = lead('test drive without vehicle');
    delete data.vehicle_of_interest;
    await aapPath('AAP MISSING_REQUIRED_FIELD', 'MISSING_REQUIRED_FIELD', data, key, { subject: email });
  }
  {
    const { data, email } = lead('vehicle of interest unknown', {});
    data.vehicle_of_interest = { vin: canaries.vin('unknown VIN (lead vehicle_of_interest)') };
    await aapPath('AAP VEHICLE_NOT_FOUND (lead)', 'VEHICLE_NOT_FOUND', data, key, { subject: email });
  }
  // Idempotency: a first lead is stored, the same key with another body conflicts.
  const idem = canaries.id('idempotency key', 'idem-canary-');
  {
    const first = lead('first lead', { idempotency_key: idem });
    const ok = await call(url, message(rpcId(), first.data), headersFor(key));
    expect(ok.text).toContain('lead.submit.response');
    const second = lead('idempotency conflict', { idempotency_key: idem });
    await aapPath('AAP IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_CONFLICT', second.data, key, { subject: second.email, idempotency: idem });
  }
  {
    // The dealer's CRM fails on the 2nd new lead of a run.
    const { data, email } = lead('crm fault', { idempotency_key: canaries.id('idempotency key (crm fault)', 'idem-canary-') });
    await aapPath('AAP INTERNAL_ERROR', 'INTERNAL_ERROR', data, key, { subject: email });
  }
  {
    const { data, email } = lead('appointment in the past');
    (data.appointment as Obj).appointment_at = iso(t0 - 24 * HOUR_MS);
    await aapPath('AAP APPOINTMENT_TIME_UNAVAILABLE', 'APPOINTMENT_TIME_UNAVAILABLE', data, key, { subject: email });
  }
  {
    // Per-key token bucket of 20 with a frozen clock: the 21st call is rate limited.
    const rlKey = canaries.id('AAP API key (rate limited)', 'sk_live_canary_');
    for (let i = 0; i < 20; i++) await call(url, message(rpcId(), { type: 'dealer.information.request' }), headersFor(rlKey));
    const { data, email } = lead('rate limited');
    await aapPath('AAP RATE_LIMITED', 'RATE_LIMITED', data, rlKey, { subject: email });
  }
  {
    // An x-api-key credential instead of a bearer token.
    const apiKey = canaries.id('AAP x-api-key', 'xk_canary_');
    const { authorization: _omit, ...base } = headersFor('unused');
    const r = await call(url, message(rpcId(), { type: 'inventory.vehicle.request', vin: canaries.vin('unknown VIN (x-api-key)') }), { ...base, 'x-api-key': apiKey });
    expectRow({ path: 'AAP VEHICLE_NOT_FOUND (x-api-key)', service: AAP_SERVICE, code: 'VEHICLE_NOT_FOUND', errorId: wireErrorId(r.json), credential: apiKey });
  }
  {
    const taskId = canaries.id('task id (GetTask)', 'task-canary-');
    const r = await call(url, { jsonrpc: '2.0', id: rpcId(), method: 'GetTask', params: { id: taskId } }, headersFor(key));
    expectRow({ path: 'A2A -32001 task not found', service: AAP_SERVICE, code: 'TASK_NOT_FOUND', errorId: wireErrorId(r.json), credential: key });
  }
  {
    const { data, email } = lead('unknown method');
    const r = await call(url, { jsonrpc: '2.0', id: rpcId(), method: 'FetchEverything', params: { message: { parts: [{ data }] } } }, headersFor(key));
    expectRow({ path: 'AAP -32601 method not found', service: AAP_SERVICE, code: '-32601', errorId: wireErrorId(r.json), credential: key, subject: email });
  }
  {
    // SendMessage without a message: the demo's handler checks A2A's parameters before any skill
    // (issue 31), so this is JSON-RPC -32602 InvalidParams.
    const { data } = lead('params without message');
    const r = await call(url, { jsonrpc: '2.0', id: rpcId(), method: 'SendMessage', params: { customer: data.customer, notes: data.appointment } }, headersFor(key));
    expectRow({ path: 'AAP SendMessage without a message', service: AAP_SERVICE, code: '-32602', errorId: wireErrorId(r.json), credential: key });
  }
  {
    const { data } = lead('truncated body');
    const text = JSON.stringify(message(rpcId(), data));
    const r = await call(url, text.slice(0, text.indexOf('consent_text') + 60), headersFor(key));
    expectRow({ path: 'AAP -32700 truncated body', service: AAP_SERVICE, code: '-32700', errorId: wireErrorId(r.json), credential: key });
  }
  {
    const { data } = lead('wrong content type');
    const r = await call(url, message(rpcId(), data), { ...headersFor(key), 'content-type': 'text/plain' });
    expectRow({ path: 'AAP -32005 content type', service: AAP_SERVICE, code: 'CONTENT_TYPE_NOT_SUPPORTED', errorId: wireErrorId(r.json), credential: key });
  }
  {
    const a = lead('batch call 1');
    const b = lead('batch call 2');
    // The SDK does not serve batches: one error answers the whole array.
    const r = await call(url, [message(rpcId(), a.data), message(rpcId(), b.data)], headersFor(key));
    const jsonrpcCode = (r.json as { error: { code: number } }).error.code;
    expect(jsonrpcCode).toBeLessThan(-32000);
    expectRow({ path: 'AAP batch', service: AAP_SERVICE, code: '', jsonrpcCode, errorId: wireErrorId(r.json), credential: key });
  }

  // The AAP test server (test/helpers): an SSE stream whose task fails, and AapErrors whose
  // details echo the request (a dealer that puts PII in details or instanceLocation).
  const helper: AapServer = await startAapServer({ triage });
  servers.push(() => helper.close());
  // The test server declares its own extension URI, not the demo dealer's.
  const helperHeaders = (key: string): Record<string, string> => ({ ...headersFor(key), 'A2A-Extensions': TEST_EXTENSION_URI });
  {
    const { data, email } = lead('sse stream');
    data.type = 'inventory.search.request';
    data.crash = true;
    const res = await fetch(helper.rpcUrl, { method: 'POST', headers: helperHeaders(key), body: JSON.stringify(message(rpcId(), data, 'SendStreamingMessage')) });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await res.text();
    expectRow({ path: 'AAP SSE stream, task failed', service: AAP_SERVICE, code: 'TASK_FAILED', errorId: null, credential: key, subject: email });
  }
  {
    const { data, email } = lead('details echo (executor)');
    const echoed = canaries.email('email echoed in details');
    data.type = 'inventory.search.request';
    data.fail = 'SCHEMA_VALIDATION_FAILED';
    data.details = {
      errors: [
        { instanceLocation: `/customer/${echoed}`, keyword: 'format', error: `${echoed} is not a valid email` },
        { instanceLocation: '/customer/email', keyword: 'format', error: `bad value ${echoed}` },
      ],
      echo: { customer: data.customer, notes: canaries.text('notes echoed in details', 'call me') },
    };
    await aapPath(
      'AAP SCHEMA_VALIDATION_FAILED thrown in the executor, details echo PII',
      'SCHEMA_VALIDATION_FAILED',
      data,
      key,
      {
        subject: email,
        violations: [
          { location: '/customer/*', keyword: 'format' },
          { location: '/customer/email', keyword: 'format' },
        ],
      },
      helperHeaders(key),
      helper.rpcUrl,
    );
  }
  {
    const { data, email } = lead('details echo (handler)');
    data.type = 'inventory.search.request';
    data.failInHandler = 'RATE_LIMITED';
    data.details = { retry_after_ms: 1500, customer: data.customer, consent_text: canaries.text('consent echoed in details', 'I agree') };
    await aapPath('AAP RATE_LIMITED thrown in the handler, details echo PII', 'RATE_LIMITED', data, key, { subject: email }, headersFor(key), helper.rpcUrl);
  }
  // The GenAI conventions' caller fields (issue 29, opt-in on): message id, context id, referenced
  // task ids and tenant full of canaries; each must fail its pattern and be left out of the span.
  {
    const body = message(rpcId(), { type: 'inventory.search.request', make: 'Honda' });
    const params = body.params as { message: Obj } & Obj;
    const vin = canaries.vin('A2A referenceTaskIds (VIN)');
    Object.assign(params.message, { messageId: canaries.email('A2A messageId'), contextId: canaries.phone('A2A contextId'), referenceTaskIds: [vin, canaries.name('A2A referenceTaskIds (name)')] });
    params.tenant = canaries.name('A2A tenant');
    // The SDK warns on the console about each reference task its store does not hold.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const r = await call(helper.rpcUrl, body, helperHeaders(key));
      expect(r.status).toBe(200);
      expect(warn.mock.calls.map((c) => String(c[0]))).toContain(`Reference task ${vin} not found.`);
    } finally {
      warn.mockRestore();
    }
  }
  // A task result (issue 29: a2a.task.state, and the task and context ids the response carries):
  // the SDK echoes the request's contextId, a canary, in the task it answers with.
  {
    const body = message(rpcId(), { type: 'inventory.search.request', taskState: 6 });
    const contextId = canaries.email('A2A contextId echoed in a task result');
    Object.assign((body.params as { message: Obj }).message, { contextId });
    const r = await call(helper.rpcUrl, body, helperHeaders(key));
    expect((r.json as { result: { task: { contextId: string; status: { state: string } } } }).result.task).toMatchObject({ contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
  }
  {
    const r = await call(helper.rpcUrl, { jsonrpc: '2.0', id: rpcId(), method: 'GetTask', params: { id: canaries.vin('A2A GetTask id (VIN)'), tenant: canaries.email('A2A GetTask tenant') } }, helperHeaders(key));
    const jsonrpcCode = (r.json as { error: { code: number } }).error.code;
    expectRow({ path: 'A2A GetTask with a VIN as task id and an email as tenant', service: AAP_SERVICE, code: '', jsonrpcCode, errorId: wireErrorId(r.json), credential: key });
  }
}

// ---- the DMC-12 dealer (demo, node:http) and the DMC-12 test server --------------------------

async function driveDmc12(call: Call, triage: Triage, logger: ReturnType<typeof captureLog>['logger']): Promise<void> {
  const t0 = Date.now();
  const dealer = new Dmc12Dealer({
    inventory: demoInventory(),
    rng: createRng(42),
    rateLimit: { capacity: 25, refillPerSecond: 0.0001 },
    ttlMs: 30 * 60_000,
    dailyReservations: 1,
    handoffFaultRate: 0,
    now: () => t0,
  });
  const tokenA = canaries.id('DMC-12 API key A', 'dmc_key_canary_');
  const tokenB = canaries.id('DMC-12 API key B', 'dmc_key_canary_');
  const tokenC = canaries.id('DMC-12 API key C (rate limited)', 'dmc_key_canary_');
  const dealerTokens = new Set([tokenA, tokenB, tokenC]);
  const server = createServer(triage.wrap(createDmc12Listener(dealer, dealerTokens)));
  const base = await listenLoopback(server);
  servers.push(() => closeServer(server));
  const url = `${base}/rpc`;
  // The buyer side goes through the client adapter (its spans, metrics and log are read too).
  const aapFetch = createAapFetch({ logger });
  const headers = (token: string): Record<string, string> => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
  let n = 0;
  const tool = async (token: string, name: string, args: Obj): Promise<Http> => call(url, toolsCall(`dmc-${++n}`, name, args), headers(token), aapFetch);
  const dmcPath = async (path: string, code: string, token: string, name: string, args: Obj, extra: Partial<Expectation> = {}): Promise<Http> => {
    const r = await tool(token, name, args);
    expectRow({ path, service: DMC_SERVICE, code, errorId: wireErrorId(r.json), credential: token, ...extra });
    return r;
  };
  const handoffArgs = (path: string, reservationToken: string, over: Obj = {}): { args: Obj; email: string; phone: string } => {
    const email = canaries.email(`${path} email`);
    const phone = canaries.phone(`${path} phone`);
    return {
      email,
      phone,
      args: {
        reservation_token: reservationToken,
        customer: { name: canaries.text(`${path} customer name`, 'Jane'), email, phone },
        customer_consent: { granted_at: iso(t0 - HOUR_MS), expires_at: iso(t0 + 24 * HOUR_MS) },
        notes: canaries.text(`${path} notes`, 'Trade-in has a dent'),
        ...over,
      },
    };
  };

  {
    const bad = canaries.id('DMC-12 rejected bearer token', 'dmc_key_canary_');
    const h = handoffArgs('401', 'rsv_none');
    const r = await call(url, toolsCall(`dmc-${++n}`, 'initiate_deal_handoff', h.args), headers(bad));
    expect(r.status).toBe(401);
    expectRow({ path: 'DMC-12 -32001 / HTTP 401', service: DMC_SERVICE, code: '', errorId: wireErrorId(r.json), credential: bad, subject: h.email, httpStatus: 401, jsonrpcCode: -32001 });
  }
  {
    // Plain fetch, not the client adapter: the adapter reports the tool name it sends as is (the
    // buyer's own value); the server must allow-list it (`knownSkills`), which is what is tested.
    const name = canaries.id('unknown tool name', 'canary_tool_');
    const r = await call(url, toolsCall(`dmc-${++n}`, name, { note: canaries.text('unknown tool note', 'hello') }), headers(tokenA));
    expect(r.text).toContain(name);
    expectRow({ path: 'DMC-12 VALIDATION_FAILED (unknown tool)', service: DMC_SERVICE, code: 'VALIDATION_FAILED', errorId: wireErrorId(r.json), credential: tokenA });
  }
  await dmcPath('DMC-12 VEHICLE_NOT_FOUND (echoes the VIN)', 'VEHICLE_NOT_FOUND', tokenA, 'get_vehicle', { vin: canaries.vin('unknown VIN (DMC-12 get_vehicle)') });
  await dmcPath('DMC-12 VEHICLE_UNAVAILABLE', 'VEHICLE_UNAVAILABLE', tokenA, 'request_quote', { vin: SOLD_VIN });
  await dmcPath('DMC-12 QUOTE_NOT_FOUND (echoes the id)', 'QUOTE_NOT_FOUND', tokenA, 'create_reservation', { quote_id: canaries.id('quote id', 'q_canary_') });
  await dmcPath('DMC-12 RESERVATION_NOT_FOUND (echoes the token)', 'RESERVATION_NOT_FOUND', tokenA, 'release_reservation', {
    reservation_token: canaries.id('reservation token', 'rsv_canary_'),
  });

  const quoteA = (await tool(tokenA, 'request_quote', { vin: DMC_VINS[0] })).json as { result: { data: { quote_id: string } } };
  const held = (await tool(tokenA, 'create_reservation', { quote_id: quoteA.result.data.quote_id })).json as { result: { data: { reservation_token: string } } };
  const rsv = held.result.data.reservation_token;
  expect(rsv).toMatch(/^rsv_/);
  const quoteB = (await tool(tokenB, 'request_quote', { vin: DMC_VINS[0] })).json as { result: { data: { quote_id: string } } };
  await dmcPath('DMC-12 RESERVATION_CONFLICT', 'RESERVATION_CONFLICT', tokenB, 'create_reservation', { quote_id: quoteB.result.data.quote_id });
  await dmcPath('DMC-12 QUOTE_STATE', 'QUOTE_STATE', tokenA, 'create_reservation', { quote_id: quoteA.result.data.quote_id });
  await dmcPath('DMC-12 NOT_AUTHORIZED', 'NOT_AUTHORIZED', tokenB, 'release_reservation', { reservation_token: rsv });
  {
    // The validation message echoes the bad phone (spec: "Validation-error messages you receive
    // echo your own input"); the email is valid, so it is the subject.
    const h = handoffArgs('hand-off bad phone', rsv);
    const badPhone = canaries.badPhone('hand-off bad phone (echoed)');
    (h.args.customer as Obj).phone = badPhone;
    // Through withRetries, so the client's give-up log line is read too: not retryable, one attempt.
    let last: Http | null = null;
    const thrown = await withRetries(
      async () => {
        last = await tool(tokenA, 'initiate_deal_handoff', h.args);
        return last;
      },
      { budget: createRetryBudget(), logger, sleep: async () => undefined },
    ).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(DealerAgentError);
    expect(thrown).toMatchObject({ code: 'VALIDATION_FAILED', stopReason: 'not-retryable' });
    const r = last as unknown as Http;
    expect(r.text).toContain(badPhone);
    expectRow({ path: 'DMC-12 VALIDATION_FAILED (message echoes the bad phone)', service: DMC_SERVICE, code: 'VALIDATION_FAILED', errorId: wireErrorId(r.json), credential: tokenA, subject: h.email });
  }
  {
    const h = handoffArgs('hand-off consent expired', rsv);
    (h.args.customer_consent as Obj).expires_at = iso(t0 - 1000);
    await dmcPath('DMC-12 CONSENT_INVALID', 'CONSENT_INVALID', tokenA, 'initiate_deal_handoff', h.args, { subject: h.email });
  }
  {
    const h = handoffArgs('hand-off smtp fault', rsv);
    await dmcPath('DMC-12 UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', tokenA, 'initiate_deal_handoff', h.args, { subject: h.email });
    const sent = await tool(tokenA, 'initiate_deal_handoff', handoffArgs('hand-off sent', rsv).args);
    expect(sent.text).toContain('"status":"sent"');
  }
  await dmcPath('DMC-12 RESERVATION_STATE', 'RESERVATION_STATE', tokenA, 'release_reservation', { reservation_token: rsv });
  {
    const stale = dealer.seedStale(tokenA, DMC_VINS[1], 2 * HOUR_MS);
    await dmcPath('DMC-12 QUOTE_EXPIRED', 'QUOTE_EXPIRED', tokenA, 'create_reservation', { quote_id: stale.quoteId });
    const h = handoffArgs('hand-off hold expired', stale.reservationToken);
    await dmcPath('DMC-12 RESERVATION_EXPIRED', 'RESERVATION_EXPIRED', tokenA, 'initiate_deal_handoff', h.args, { subject: h.email });
  }
  {
    const q = (await tool(tokenA, 'request_quote', { vin: DMC_VINS[2] })).json as { result: { data: { quote_id: string } } };
    await dmcPath('DMC-12 RESERVATION_LIMIT', 'RESERVATION_LIMIT', tokenA, 'create_reservation', { quote_id: q.result.data.quote_id });
  }
  {
    for (let i = 0; i < 25; i++) await tool(tokenC, 'search_inventory', { make: 'Honda' });
    const h = handoffArgs('rate limited hand-off', 'rsv_unknown');
    await dmcPath('DMC-12 RATE_LIMITED', 'RATE_LIMITED', tokenC, 'initiate_deal_handoff', h.args, { subject: h.email });
  }
  {
    const h = handoffArgs('method not found', 'rsv_x');
    const r = await call(url, { jsonrpc: '2.0', id: `dmc-${++n}`, method: 'resources/read', params: { arguments: h.args } }, headers(tokenA));
    expectRow({ path: 'DMC-12 -32601', service: DMC_SERVICE, code: '-32601', errorId: wireErrorId(r.json), credential: tokenA });
  }
  {
    const h1 = handoffArgs('demo batch 1', 'rsv_b1');
    const h2 = handoffArgs('demo batch 2', 'rsv_b2');
    const r = await call(url, [toolsCall(`dmc-${++n}`, 'initiate_deal_handoff', h1.args), toolsCall(`dmc-${++n}`, 'initiate_deal_handoff', h2.args)], headers(tokenA));
    expectRow({ path: 'DMC-12 batch (demo answers -32600)', service: DMC_SERVICE, code: '-32600', errorId: wireErrorId(r.json), credential: tokenA });
  }
  {
    const h = handoffArgs('truncated hand-off', 'rsv_t');
    const text = JSON.stringify(toolsCall(`dmc-${++n}`, 'initiate_deal_handoff', h.args));
    const r = await call(url, text.slice(0, text.indexOf('"notes"') + 20), headers(tokenA));
    expectRow({ path: 'DMC-12 -32700 truncated body', service: DMC_SERVICE, code: '-32700', errorId: wireErrorId(r.json), credential: tokenA });
  }

  // Caller-controlled JSON-RPC fields on the demo DMC-12 dealer (issue 16).
  {
    const idToken = canaries.id('DMC-12 API key (email id)', 'dmc_key_canary_');
    const methodToken = canaries.id('DMC-12 API key (email method)', 'dmc_key_canary_');
    dealerTokens.add(idToken);
    dealerTokens.add(methodToken);
    const emailId = canaries.email('JSON-RPC id (DMC-12)');
    const r = await call(url, toolsCall(emailId, 'get_vehicle', { vin: canaries.vin('unknown VIN (DMC-12 email id)') }), headers(idToken));
    expect(r.text).toContain(emailId);
    expectRow({ path: 'DMC-12 VEHICLE_NOT_FOUND with an email as JSON-RPC id', service: DMC_SERVICE, code: 'VEHICLE_NOT_FOUND', errorId: wireErrorId(r.json), credential: idToken });
    const m = await call(url, { jsonrpc: '2.0', id: `dmc-${++n}`, method: canaries.email('JSON-RPC method (DMC-12)'), params: {} }, headers(methodToken));
    expectRow({ path: 'DMC-12 -32601 for an email as method', service: DMC_SERVICE, code: '-32601', errorId: wireErrorId(m.json), credential: methodToken });
  }

  // The DMC-12 test server: a batch of result errors and a success, with a notification.
  const helper: Dmc12Server = await startDmc12Server(triage);
  servers.push(() => helper.close());
  // A valid W3C tracestate whose second member's value is a canary: the SDK's propagator would
  // carry it as the span's trace state (exported as OTLP trace_state) were it handed over.
  TRACESTATE_WITH_CANARY = `rojo=00f067aa0ba902b7,congo=${canaries.email('MCP _meta tracestate')}`;
  expect(trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: TRACESTATE_WITH_CANARY }, defaultTextMapGetter))?.traceState?.serialize()).toBe(
    TRACESTATE_WITH_CANARY,
  );
  // The GenAI conventions' caller fields (issue 29, opt-in on): session id, protocol version, tool
  // name and `params._meta` (its trace context is honoured; any other key, baggage included, is not).
  {
    const body = toolsCall(`dmc-${++n}`, canaries.name('MCP tool name'), { note: canaries.text('MCP tool note', 'hi') });
    (body.params as Obj)._meta = {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: TRACESTATE_WITH_CANARY,
      baggage: `user=${encodeURIComponent(canaries.email('MCP _meta baggage'))}`,
      'example.com/customer': canaries.phone('MCP _meta key'),
    };
    const r = await call(helper.url, body, { ...DMC12_HEADERS, 'mcp-session-id': canaries.email('MCP session id'), 'mcp-protocol-version': canaries.phone('MCP protocol version') });
    expect(r.status).toBe(200);
  }
  // A tool result with isError: true (issue 29: error.type tool_error) whose text echoes a canary.
  {
    const id = `dmc-${++n}`;
    const reply = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `no vehicle for ${canaries.email('MCP isError result text')}` }], isError: true } };
    const r = await call(helper.url, toolsCall(id, 'search_inventory', {}), { ...DMC12_HEADERS, 'x-test-raw-response': Buffer.from(JSON.stringify(reply)).toString('base64') });
    expect(r.json).toEqual(reply);
  }
  // A dealer's reply is caller-influenced text too (issue 16): an email in each machine field of
  // an error, sent as is by the test server's raw mode. Each with its own credential, so its row
  // is found by (code, client) where the wire id cannot name it.
  {
    const raw = async (label: string, reply: (id: string) => Obj): Promise<{ r: Http; token: string }> => {
      const token = canaries.id(`DMC-12 API key (${label})`, 'dmc_key_canary_');
      const id = `raw-${++n}`;
      const body = Buffer.from(JSON.stringify(reply(id))).toString('base64');
      const r = await call(helper.url, toolsCall(id, 'create_reservation', { quote_id: 'q_1' }), { ...headers(token), 'x-test-raw-response': body });
      return { r, token };
    };
    const dmcError = (id: string, data: Obj, meta: Obj = { trace_id: 'trc_0123456789abcdef0123456789abcdef' }): Obj => ({ jsonrpc: '2.0', id, result: { data, _metadata: meta } });
    {
      const email = canaries.email('dealer error_id');
      const { r, token } = await raw('error_id', (id) => dmcError(id, { error: 'quote_state', error_code: 'QUOTE_STATE', retryable: false, error_id: email }));
      expect(r.text).toContain(email);
      expectRow({ path: 'DMC-12 reply with an email as error_id (minted anew)', service: DMC_SERVICE, code: 'QUOTE_STATE', errorId: null, credential: token, mintedFrom: email });
    }
    {
      const email = canaries.email('dealer error_code');
      const { r, token } = await raw('error_code', (id) => dmcError(id, { error: 'quote_state', error_code: email, retryable: false }));
      expect(r.text).toContain(email);
      expectRow({ path: 'DMC-12 reply with an email as error_code', service: DMC_SERVICE, code: '_OTHER', errorId: wireErrorId(r.json), credential: token });
    }
    {
      const email = canaries.email('dealer upstream trace id');
      const { r, token } = await raw('trace id', (id) => dmcError(id, { error: 'quote_state', error_code: 'QUOTE_STATE', retryable: false }, { trace_id: email }));
      expect(r.text).toContain(email);
      expectRow({ path: 'DMC-12 reply with an email as upstream trace id', service: DMC_SERVICE, code: 'QUOTE_STATE', errorId: wireErrorId(r.json), credential: token, upstreamNull: true });
    }
    {
      const email = canaries.email('dealer ErrorInfo reason');
      const { r, token } = await raw('ErrorInfo reason', (id) => ({
        jsonrpc: '2.0',
        id,
        error: { code: -32099, message: 'failed', data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: email, domain: 'autoagentprotocol.org', metadata: { retryable: 'false' } }] },
      }));
      expect(r.text).toContain(email);
      expectRow({ path: 'AAP-form error with an email as ErrorInfo reason', service: DMC_SERVICE, code: '_OTHER', errorId: wireErrorId(r.json), credential: token });
    }
  }
  {
    const h1 = handoffArgs('helper batch 1', 'rsv_h1');
    const h2 = handoffArgs('helper batch 2', 'rsv_h2');
    const h3 = handoffArgs('helper batch notification', 'rsv_h3');
    const h4 = handoffArgs('helper batch legacy', 'rsv_h4');
    const batch = [
      toolsCall('hb-1', 'initiate_deal_handoff', { ...h1.args, fail: 'VALIDATION_FAILED', omitErrorId: true }),
      toolsCall('hb-2', 'create_reservation', { ...h2.args, fail: 'RESERVATION_LIMIT', omitErrorId: true }),
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'initiate_deal_handoff', arguments: h3.args } },
      toolsCall('hb-3', 'search_inventory', { note: canaries.text('helper batch success note', 'fine') }),
      toolsCall('hb-4', 'create_reservation', { ...h4.args, fail: 'RESERVATION_CONFLICT', legacyOnly: true }),
    ];
    const r = await call(helper.url, batch, DMC12_HEADERS);
    const replies = r.json as Obj[];
    const idOf = (id: string): string | null => wireErrorId(replies.find((x) => x.id === id));
    const token = DMC12_HEADERS.authorization?.replace('Bearer ', '') ?? null;
    expectRow({ path: 'DMC-12 batch VALIDATION_FAILED', service: DMC_SERVICE, code: 'VALIDATION_FAILED', errorId: idOf('hb-1'), credential: token, subject: h1.email });
    expectRow({ path: 'DMC-12 batch RESERVATION_LIMIT', service: DMC_SERVICE, code: 'RESERVATION_LIMIT', errorId: idOf('hb-2'), credential: token, subject: h2.email });
    expectRow({ path: 'DMC-12 batch legacy-only RESERVATION_CONFLICT', service: DMC_SERVICE, code: 'RESERVATION_CONFLICT', errorId: null, credential: token, subject: h4.email });
  }
}

// ---- assertions --------------------------------------------------------------------------------

/** The row of an expectation: by the wire error_id, else the only/first row of its service and code. */
function rowOf(e: Expectation): Row | undefined {
  if (e.errorId) return rows.find((r) => r.error_id === e.errorId);
  return rows.find(
    (r) =>
      r.service === e.service &&
      r.code === e.code &&
      r.client === pseudonymizer.client(e.credential) &&
      (e.subject === undefined || r.subject === pseudonymizer.subject(e.subject)),
  );
}

describe('PII canaries never leave the host (issue 4, DESIGN §5)', () => {
  it('the detector finds a planted canary in every encoding it searches for', () => {
    const f = new CanaryFactory();
    f.email('planted email');
    f.phone('planted phone');
    const planted = f.all.flatMap(formsOf);
    // raw, lower-cased, and 7 hashes each, plus the token and its upper case; a phone's
    // normalised forms are its E.164 (the raw value itself) and its digits.
    expect(planted.filter((x) => x.label === 'planted email').length).toBe(18);
    expect(planted.filter((x) => x.label === 'planted phone').length).toBe(16);
    for (const p of planted) {
      const haystack = Buffer.concat([Buffer.from('\u0000noise\u0001'), Buffer.from(p.text, 'utf8'), Buffer.from('\u0002tail')]);
      expect(leaksIn('h', haystack, planted), `${p.label} ${p.form}`).toContain(`h: ${p.label} as ${p.form} (${p.text})`);
    }
    expect(leaksIn('h', 'nothing to see', planted)).toEqual([]);
  });

  it('drove the servers with canaries that the wire itself echoes (the test is not vacuous)', () => {
    expect(canaries.all.length).toBeGreaterThan(100);
    expect(forms.length).toBeGreaterThan(canaries.all.length * 8);
    // Dealers echo request values in messages and details: these canaries did reach the wire.
    const echoed = canaries.all.filter((c) => wireText.includes(c.value));
    expect(echoed.length).toBeGreaterThan(5);
    expect(echoed.map((c) => c.label)).toEqual(
      expect.arrayContaining(['unknown filter key', 'hand-off bad phone (echoed)', 'unknown VIN (DMC-12 get_vehicle)', 'quote id', 'reservation token']),
    );
  });

  it('no canary in the database, -wal or -shm files read before the final checkpoint', () => {
    expect([...beforeCheckpoint.keys()]).toEqual(expect.arrayContaining(['audit.db', 'audit.db-wal']));
    // The WAL held the rows at that point (a committed error_id is in it).
    const wal = beforeCheckpoint.get('audit.db-wal') as Buffer;
    const someId = expectations.find((e) => e.errorId)?.errorId as string;
    expect(wal.length).toBeGreaterThan(0);
    expect(Buffer.concat([wal, beforeCheckpoint.get('audit.db') as Buffer]).includes(someId)).toBe(true);
    const leaks = [...beforeCheckpoint].flatMap(([name, bytes]) => leaksIn(`${name} (before checkpoint)`, bytes, forms));
    expect(leaks).toEqual([]);
  });

  it('no canary in the database files and the health file after shutdown()', () => {
    expect(afterShutdown.has('audit.db')).toBe(true);
    // One health file per writing service and process while it runs: audit.db.health.<service>.<pid>.json;
    // a clean shutdown removes it.
    const isHealth = (n: string) => /^audit\.db\.health\..+\.\d+\.json$/.test(n);
    const healthName = [...beforeCheckpoint.keys()].find(isHealth);
    expect(healthName).toBeDefined();
    const health = JSON.parse((beforeCheckpoint.get(healthName as string) as Buffer).toString('utf8')) as { state: string; written: number };
    expect(health.state).toBe('ok');
    expect(leaksIn(healthName as string, beforeCheckpoint.get(healthName as string) as Buffer, forms)).toEqual([]);
    expect([...afterShutdown.keys()].filter(isHealth)).toEqual([]);
    const leaks = [...afterShutdown].flatMap(([name, bytes]) => leaksIn(name, bytes, forms));
    expect(leaks).toEqual([]);
  });

  it('no canary in the captured log output', () => {
    expect(logText).toContain('json-rpc error sent');
    expect(leaksIn('log', logText, forms)).toEqual([]);
  });

  it('the SDK itself logged only the failures the traffic provokes (refused version, executor throws)', () => {
    const kinds = new Set(sdkConsole.lines.map((l) => l.replace(/ (stream )?message \S+:$/, ' $1message:')));
    expect(kinds).toEqual(new Set(['Unhandled error in JSON-RPC POST handler:', 'Agent execution failed for stream message:', 'Agent execution failed for message:']));
  });

  it('no canary in any exported span (names, attributes, events, status, links, trace state, resource)', () => {
    expect(spans.filter((s) => s.status.code === 2).length).toBeGreaterThanOrEqual(expectations.length);
    const leaks = spans.flatMap((s) =>
      leaksIn(
        `${s.kind === 2 ? 'CLIENT' : s.kind === 1 ? 'SERVER' : 'other'} span ${s.name} (${s.instrumentationScope.name}) id ${String(s.attributes['jsonrpc.request.id'] ?? '')}`,
        JSON.stringify({
          name: s.name,
          attributes: s.attributes,
          events: s.events,
          status: s.status,
          links: s.links,
          // Exported too (OTLP Span.trace_state, Link.trace_state); a TraceState is a Map inside, which JSON.stringify drops.
          traceState: s.spanContext().traceState?.serialize() ?? null,
          parentTraceState: s.parentSpanContext?.traceState?.serialize() ?? null,
          linkTraceStates: s.links.map((l) => l.context.traceState?.serialize() ?? null),
          resource: s.resource.attributes,
          scope: s.instrumentationScope,
        }),
        forms,
      ),
    );
    expect(leaks).toEqual([]);
  });

  it('no canary in any OpenTelemetry log record (one aap.error record per audit row)', () => {
    const records = otelLogs.filter((l) => l.eventName === 'aap.error');
    expect(records.length).toBe(rows.length);
    const leaks = otelLogs.flatMap((l) =>
      leaksIn(
        `log record ${String(l.eventName)} ${String(l.attributes.error_id ?? '')}`,
        JSON.stringify({ eventName: l.eventName, body: l.body, attributes: l.attributes, severity: l.severityText, scope: l.instrumentationScope, resource: l.resource.attributes, spanContext: l.spanContext }),
        forms,
      ),
    );
    expect(leaks).toEqual([]);
  });

  it('no canary in the Prometheus scrapes of either service', () => {
    expect(scrapes.get(AAP_SERVICE)).toContain('aap_server_errors');
    expect(scrapes.get(DMC_SERVICE)).toContain('aap_server_errors');
    const leaks = [...scrapes].flatMap(([job, text]) => leaksIn(`scrape ${job}`, text, forms));
    expect(leaks).toEqual([]);
  });

  it('wrote one row per error path, each with the caller’s client pseudonym and the key id', () => {
    const missing = expectations.filter((e) => !rowOf(e)).map((e) => e.path);
    expect(missing).toEqual([]);
    // One row per error call, nothing else (successes, the notification and the batch's success
    // leave none); every expectation found a different row.
    expect(rows).toHaveLength(expectations.length);
    expect(new Set(expectations.map((e) => rowOf(e)?.error_id)).size).toBe(expectations.length);
    for (const e of expectations) {
      const row = rowOf(e) as Row;
      if (e.code) expect(row.code, e.path).toBe(e.code);
      expect(row.service, e.path).toBe(e.service);
      expect(row.key_id, e.path).toBe(pseudonymizer.keyId);
      if (e.httpStatus !== undefined) expect(row.http_status, e.path).toBe(e.httpStatus);
      if (e.jsonrpcCode !== undefined) expect(row.jsonrpc_code, e.path).toBe(e.jsonrpcCode);
      expect(row.client, e.path).not.toBeNull();
      expect(row.client, e.path).toBe(pseudonymizer.client(e.credential));
    }
  });

  it('counts traffic per client pseudonym (the credential itself is never a key)', () => {
    for (const e of expectations) expect(trafficClients, e.path).toContain(pseudonymizer.client(e.credential));
  });

  it('sets the subject pseudonym where the request carried an email or phone, and the idempotency pseudonym', () => {
    const withSubject = expectations.filter((e) => e.subject !== undefined);
    expect(withSubject.length).toBeGreaterThan(15);
    for (const e of withSubject) {
      const row = rowOf(e) as Row;
      expect(row.subject, e.path).toBe(pseudonymizer.subject(e.subject));
      expect(row.subject, e.path).toMatch(/^[A-Za-z0-9_-]{22}$/);
    }
    const idem = expectations.find((e) => e.idempotency !== undefined) as Expectation;
    expect(rowOf(idem)?.idempotency).toBe(pseudonymizer.idempotency(idem.idempotency));
  });

  it('checks every caller-controlled machine field against its pattern (issue 16)', () => {
    const minted = expectations.filter((e) => e.mintedFrom !== undefined);
    expect(minted).toHaveLength(1);
    for (const e of minted) {
      const row = rowOf(e) as Row;
      expect(row.error_id, e.path).toMatch(/^err_[0-9a-f]{32}$/);
      expect(row.error_id, e.path).not.toBe(e.mintedFrom);
    }
    for (const e of expectations.filter((x) => x.upstreamNull)) expect((rowOf(e) as Row).upstream_trace_id, e.path).toBeNull();
    const other = expectations.filter((e) => e.code === '_OTHER');
    expect(other.map((e) => e.path)).toEqual(['DMC-12 reply with an email as error_code', 'AAP-form error with an email as ErrorInfo reason']);
    // The emails sent as id and method reached the wire (echoed), never a span attribute.
    for (const label of ['JSON-RPC id (AAP)', 'JSON-RPC id (DMC-12)']) {
      const value = canaries.all.find((c) => c.label === label)?.value as string;
      expect(wireText, label).toContain(value);
      expect(spans.some((s) => s.attributes['jsonrpc.request.id'] === value), label).toBe(false);
    }
    const methods = canaries.all.filter((c) => c.label.startsWith('JSON-RPC method')).map((c) => c.value);
    expect(methods).toHaveLength(2);
    expect(spans.filter((s) => methods.includes(String(s.attributes['rpc.method_original'])))).toEqual([]);
    expect(spans.filter((s) => s.attributes['rpc.method'] === '_OTHER').length).toBeGreaterThanOrEqual(2);
  });

  it.runIf(GENAI_CONVENTIONS)('ran with the GenAI conventions on (issue 29): their spans, metric and _meta parent exist, their caller fields left out', () => {
    expect(spans.some((s) => s.attributes['a2a.method.name'] === 'SendMessage' && s.name === 'SendMessage')).toBe(true);
    expect(spans.some((s) => s.attributes['a2a.method.name'] === 'GetTask')).toBe(true);
    const mcp = spans.filter((s) => s.attributes['mcp.method.name'] === 'tools/call');
    expect(mcp.length).toBeGreaterThan(5);
    expect(mcp.some((s) => s.spanContext().traceId === '4bf92f3577b34da6a3ce929d0e0e4736' && s.name === 'tools/call')).toBe(true);
    expect(scrapes.get(DMC_SERVICE)).toContain('mcp_server_operation_duration');
    // The response side: a task's state, an isError tool result; the _meta tracestate is not carried.
    expect(spans.some((s) => s.attributes['a2a.task.state'] === 'TASK_STATE_INPUT_REQUIRED' && typeof s.attributes['a2a.task.id'] === 'string')).toBe(true);
    expect(spans.some((s) => s.attributes['error.type'] === 'tool_error' && s.status.code === 2)).toBe(true);
    expect(mcp.filter((s) => s.spanContext().traceId === '4bf92f3577b34da6a3ce929d0e0e4736').map((s) => s.spanContext().traceState?.serialize() ?? '')).toEqual(['']);
    // Every canary sent in these fields failed its pattern: none of the attributes is set from one.
    for (const key of ['a2a.message.id', 'gen_ai.conversation.id', 'a2a.task.id', 'a2a.task.state', 'a2a.tenant', 'a2a.message.reference_task_ids', 'mcp.session.id', 'mcp.protocol.version']) {
      const values = spans.map((s) => s.attributes[key]).filter((v) => v !== undefined);
      expect(values.flat().filter((v) => canaries.all.some((c) => c.value === v)), key).toEqual([]);
    }
  });

  it.skipIf(GENAI_CONVENTIONS)('ran with the GenAI conventions off (the default): no a2a.*, mcp.* or gen_ai.* attribute, no MCP metric', () => {
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.flatMap((s) => Object.keys(s.attributes)).filter((k) => /^(a2a|mcp|gen_ai)\./.test(k))).toEqual([]);
    expect(scrapes.get(DMC_SERVICE)).not.toContain('mcp_server_operation_duration');
  });

  it('no canary in what the @a2a-js/sdk server printed on stderr (every argument, as printed)', () => {
    expect(sdkConsole.texts.length).toBe(sdkConsole.lines.length);
    expect(sdkConsole.texts.length).toBeGreaterThan(0);
    expect(leaksIn('sdk stderr', sdkConsole.texts.join('\n'), forms)).toEqual([]);
  });

  it('stores the unknown email filter key as /filters/* and sanitises pointers a dealer echoed', () => {
    for (const e of expectations.filter((x) => x.violations)) {
      expect(JSON.parse((rowOf(e) as Row).violations), e.path).toEqual(e.violations);
    }
  });
});
