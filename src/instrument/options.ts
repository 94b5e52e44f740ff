/**
 * Defaults of `createTriage`, in one object, and the option checks (errors name the option and
 * what was expected, better-sqlite3 style).
 */
import type { IncomingMessage } from 'node:http';
import { RETRY_WINDOW_MS } from '../protocol/retry.js';
import { KNOWN_RPC_METHODS, KNOWN_SKILLS } from '../protocol/skills.js';
import { SEMCONV_OPT_IN_GEN_AI } from './attributes.js';
import { safeServiceVersion } from '../protocol/value-patterns.js';
import { envServiceVersion } from './host-resource.js';
import type { TriageOptions } from './types.js';

/**
 * JSON-RPC methods reported by name: protocol's `KNOWN_RPC_METHODS` (A2A 1.0 and 0.3, MCP /
 * DMC-12). Others are `_OTHER`, the original on the span only.
 */
export const DEFAULT_KNOWN_METHODS: readonly string[] = KNOWN_RPC_METHODS;

/**
 * Skill and tool names reported by name: protocol's `KNOWN_SKILLS` (the five AAP skills, then the
 * DMC-12 tools, `request_quote` included). Others are `_OTHER`.
 */
export const DEFAULT_KNOWN_SKILLS: readonly string[] = KNOWN_SKILLS;

/** The default credential: the `Authorization: Bearer` token, else the `x-api-key` header. */
export function defaultCredential(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1] ?? null;
  }
  const key = req.headers['x-api-key'];
  const v = Array.isArray(key) ? key[0] : key;
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** Every default of `TriageOptions` that is a plain value. */
export const DEFAULTS = {
  serviceName: 'dealer-agent',
  aapForm: 'auto',
  maxBodyBytes: 1_048_576,
  retryWindowMs: RETRY_WINDOW_MS,
  retryTrackerMaxKeys: 50_000,
  trafficFlushIntervalMs: 60_000,
  maxAuditedCallsPerExchange: 100,
  logLinesPerSecond: 10,
} as const;

const KNOWN_KEYS = new Set([
  'serviceName',
  'serviceVersion',
  'auditDb',
  'auditSink',
  'credential',
  'knownMethods',
  'knownSkills',
  'aapForm',
  'agentCard',
  'maxBodyBytes',
  'logger',
  'requiredExtensionUri',
  'tracerProvider',
  'meterProvider',
  'pseudonymizer',
  'retryWindowMs',
  'retryTrackerMaxKeys',
  'trafficFlushIntervalMs',
  'maxAuditedCallsPerExchange',
  'logLinesPerSecond',
  'genAiConventions',
]);

function positiveInt(options: TriageOptions, name: keyof TriageOptions): void {
  const v = options[name];
  if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)) {
    throw new RangeError(`createTriage: option ${name} must be a positive integer, got ${JSON.stringify(v)}`);
  }
}

const FORMS: readonly unknown[] = ['auto', '2.0', 'released'];

/** Checks the `aapForm` option: a form, or an object of request paths (or `'*'`) to forms. */
function checkAapForm(v: unknown): void {
  if (v === undefined || FORMS.includes(v)) return;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    for (const [path, form] of Object.entries(v)) {
      if (path !== '*' && !path.startsWith('/')) {
        throw new TypeError(`createTriage: option aapForm has key ${JSON.stringify(path)}; expected a request path starting with '/' or '*'`);
      }
      if (!FORMS.includes(form)) {
        throw new TypeError(`createTriage: option aapForm[${JSON.stringify(path)}] must be 'auto', '2.0' or 'released', got ${JSON.stringify(form)}`);
      }
    }
    return;
  }
  throw new TypeError(`createTriage: option aapForm must be 'auto', '2.0', 'released' or an object of paths to those, got ${JSON.stringify(v)}`);
}

/**
 * Every option resolved: what `checkOptions` returns, frozen, with each default applied once
 * (nothing downstream writes `?? DEFAULTS.x`). `serviceName` is null when neither the option nor
 * `OTEL_SERVICE_NAME` names the service: the core then takes it from the host's resource.
 */
export interface Settings {
  readonly serviceName: string | null;
  /**
   * `service_version` of audit rows when the host's resource names none (issue 29):
   * `OTEL_SERVICE_VERSION`, else `OTEL_RESOURCE_ATTRIBUTES`' `service.version`, else the
   * `serviceVersion` option, else null. The resource's own `service.version` wins (core.ts).
   */
  readonly serviceVersion: string | null;
  readonly auditDb: string | false | undefined;
  readonly auditSink: NonNullable<TriageOptions['auditSink']> | null;
  readonly credential: (req: IncomingMessage) => string | null | undefined;
  readonly knownMethods: ReadonlySet<string>;
  readonly knownSkills: ReadonlySet<string>;
  readonly aapForm: NonNullable<TriageOptions['aapForm']>;
  readonly agentCard: unknown;
  readonly maxBodyBytes: number;
  /** The host's own logger (its lines are kept whatever the logs pipeline), null for none, undefined for the default. */
  readonly logger: TriageOptions['logger'];
  readonly requiredExtensionUri: string | null;
  readonly tracerProvider: NonNullable<TriageOptions['tracerProvider']> | null;
  readonly meterProvider: NonNullable<TriageOptions['meterProvider']> | null;
  readonly pseudonymizer: NonNullable<TriageOptions['pseudonymizer']> | null;
  readonly retryWindowMs: number;
  readonly retryTrackerMaxKeys: number;
  readonly trafficFlushIntervalMs: number;
  readonly maxAuditedCallsPerExchange: number;
  readonly logLinesPerSecond: number;
  /** The GenAI conventions are on (option, else `OTEL_SEMCONV_STABILITY_OPT_IN`): see `TriageOptions.genAiConventions`. */
  readonly genAiConventions: boolean;
}

/**
 * Checks `options` at construction and resolves every default (see {@link Settings}). Throws
 * TypeError / RangeError naming the option; this is the only place the instrumentation throws,
 * and only from `createTriage` / the instrumentation's constructor and `setConfig`.
 */
export function checkOptions(options: unknown, env: NodeJS.ProcessEnv = process.env): Settings {
  return resolve(validate(options), env);
}

/**
 * Whether `OTEL_SEMCONV_STABILITY_OPT_IN` names `token`: a comma-separated list, entries trimmed,
 * as OpenTelemetry's other opt-ins (`http`, `http/dup`, `database`) read it.
 */
export function semconvOptIn(env: NodeJS.ProcessEnv, token: string): boolean {
  const v = env.OTEL_SEMCONV_STABILITY_OPT_IN;
  return typeof v === 'string' && v.split(',').some((t) => t.trim() === token);
}

function resolve(o: TriageOptions, env: NodeJS.ProcessEnv): Settings {
  return Object.freeze({
    serviceName: o.serviceName ?? (env.OTEL_SERVICE_NAME || null),
    serviceVersion: envServiceVersion(env) ?? o.serviceVersion ?? null,
    auditDb: o.auditDb,
    auditSink: o.auditSink ?? null,
    credential: o.credential ?? defaultCredential,
    knownMethods: new Set(o.knownMethods ?? DEFAULT_KNOWN_METHODS),
    knownSkills: new Set(o.knownSkills ?? DEFAULT_KNOWN_SKILLS),
    aapForm: o.aapForm ?? DEFAULTS.aapForm,
    agentCard: o.agentCard,
    maxBodyBytes: o.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    logger: o.logger,
    requiredExtensionUri: o.requiredExtensionUri ?? null,
    tracerProvider: o.tracerProvider ?? null,
    meterProvider: o.meterProvider ?? null,
    pseudonymizer: o.pseudonymizer ?? null,
    retryWindowMs: o.retryWindowMs ?? DEFAULTS.retryWindowMs,
    retryTrackerMaxKeys: o.retryTrackerMaxKeys ?? DEFAULTS.retryTrackerMaxKeys,
    trafficFlushIntervalMs: o.trafficFlushIntervalMs ?? DEFAULTS.trafficFlushIntervalMs,
    maxAuditedCallsPerExchange: o.maxAuditedCallsPerExchange ?? DEFAULTS.maxAuditedCallsPerExchange,
    logLinesPerSecond: o.logLinesPerSecond ?? DEFAULTS.logLinesPerSecond,
    genAiConventions: o.genAiConventions ?? semconvOptIn(env, SEMCONV_OPT_IN_GEN_AI),
  });
}

function validate(options: unknown): TriageOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('createTriage: options must be an object');
  const o = options as TriageOptions;
  for (const k of Object.keys(o)) {
    if (!KNOWN_KEYS.has(k)) throw new TypeError(`createTriage: unknown option ${JSON.stringify(k)}`);
  }
  if (o.serviceName !== undefined && (typeof o.serviceName !== 'string' || o.serviceName === '')) {
    throw new TypeError('createTriage: option serviceName must be a non-empty string');
  }
  if (o.serviceVersion !== undefined && safeServiceVersion(o.serviceVersion) === null) {
    throw new TypeError(`createTriage: option serviceVersion must be 1–64 letters, digits or . _ + ~ - (e.g. '1.4.2'), got ${JSON.stringify(o.serviceVersion)}`);
  }
  if (o.auditDb !== undefined && o.auditDb !== false && typeof o.auditDb !== 'string') {
    throw new TypeError('createTriage: option auditDb must be a path string or false');
  }
  if (o.credential !== undefined && typeof o.credential !== 'function') {
    throw new TypeError('createTriage: option credential must be a function (req) => string | null');
  }
  for (const name of ['knownMethods', 'knownSkills'] as const) {
    const v = o[name];
    if (v !== undefined && (!Array.isArray(v) || v.some((m) => typeof m !== 'string'))) {
      throw new TypeError(`createTriage: option ${name} must be an array of strings`);
    }
  }
  checkAapForm(o.aapForm);
  if (o.agentCard !== undefined && (typeof o.agentCard !== 'object' || o.agentCard === null || Array.isArray(o.agentCard))) {
    throw new TypeError(`createTriage: option agentCard must be an agent card object, got ${o.agentCard === null ? 'null' : typeof o.agentCard}`);
  }
  positiveInt(o, 'maxBodyBytes');
  positiveInt(o, 'retryWindowMs');
  positiveInt(o, 'retryTrackerMaxKeys');
  positiveInt(o, 'trafficFlushIntervalMs');
  positiveInt(o, 'maxAuditedCallsPerExchange');
  positiveInt(o, 'logLinesPerSecond');
  if (o.genAiConventions !== undefined && typeof o.genAiConventions !== 'boolean') {
    throw new TypeError(`createTriage: option genAiConventions must be a boolean, got ${JSON.stringify(o.genAiConventions)}`);
  }
  if (o.requiredExtensionUri !== undefined && (typeof o.requiredExtensionUri !== 'string' || !URL.canParse(o.requiredExtensionUri))) {
    throw new TypeError('createTriage: option requiredExtensionUri must be an absolute URI');
  }
  return o;
}
