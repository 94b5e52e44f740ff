/**
 * Shared setup of the instrumentation tests: one triage wired to in-memory spans and metrics, a
 * captured pino logger and an in-memory audit sink; plus helpers to find a call's span, log line
 * and audit record by JSON-RPC id.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import { createTriage } from '../../src/instrument/index.js';
import type { Triage, TriageOptions } from '../../src/instrument/types.js';
import type { ErrorEvent } from '../../src/protocol/error-event.js';
import { captureLog } from '../helpers/log-capture.js';
import type { CapturedLog } from '../helpers/log-capture.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { setupOtel, waitFor } from '../helpers/otel.js';
import type { TestOtel } from '../helpers/otel.js';

export interface Harness {
  otel: TestOtel;
  log: CapturedLog;
  sink: MemoryAuditSink;
  triage: Triage;
  /** The finished span of the call with JSON-RPC id `id` (waits for it). */
  span(id: string | number): Promise<ReadableSpan>;
  /** The audit record whose `error_id` is `errorId`. */
  event(errorId: string): ErrorEvent;
  logLine(errorId: string): Record<string, unknown> | undefined;
}

let otel: TestOtel | null = null;

export function createHarness(options: TriageOptions = {}): Harness {
  otel ??= setupOtel();
  const o = otel;
  const log = captureLog();
  const sink = new MemoryAuditSink();
  const triage = createTriage({
    serviceName: 'dealer-test',
    auditSink: sink,
    logger: log.logger,
    tracerProvider: o.tracerProvider,
    meterProvider: o.meterProvider,
    ...options,
  });
  const findSpan = (id: string | number): ReadableSpan | undefined =>
    o.spans().find((s) => s.attributes['jsonrpc.request.id'] === String(id));
  return {
    otel: o,
    log,
    sink,
    triage,
    async span(id) {
      await waitFor(() => findSpan(id) !== undefined);
      return findSpan(id) as ReadableSpan;
    },
    event(errorId) {
      const e = sink.events.find((x) => x.error_id === errorId);
      expect(e, `audit record ${errorId}`).toBeDefined();
      return e as ErrorEvent;
    },
    logLine(errorId) {
      return log.lines().find((l) => l.error_id === errorId);
    },
  };
}

/** Asserts an error span: status ERROR without message, the error attributes, and returns its error id. */
export function assertErrorSpan(span: ReadableSpan, expected: { code: string; rpcStatus?: string | null; protocol: string; retryable?: boolean | null }): string {
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(span.status.message ?? '').toBe('');
  // semconv 1.45 RPC rule: error.type is the JSON-RPC status code when an error member was
  // returned, else the domain code; the domain code is always in aap.error.code.
  expect(span.attributes['error.type']).toBe(span.attributes['rpc.status_code'] ?? expected.code);
  expect(span.attributes['aap.error.code']).toBe(expected.code);
  expect(span.attributes['aap.protocol']).toBe(expected.protocol);
  if (expected.rpcStatus !== undefined) expect(span.attributes['rpc.status_code']).toBe(expected.rpcStatus ?? undefined);
  if (expected.retryable !== undefined) expect(span.attributes['aap.error.retryable']).toBe(expected.retryable ?? undefined);
  const id = span.attributes['aap.error.id'];
  expect(id).toMatch(/^err_[0-9a-f]{32}$/);
  return id as string;
}

/** The `error_id` the caller sees in a JSON-RPC error member (ErrorInfo metadata, aap.error, or data.error_id). */
export function wireErrorId(body: unknown): string | undefined {
  const error = (body as { error?: { data?: unknown } }).error;
  const data = error?.data;
  if (Array.isArray(data)) {
    for (const d of data) {
      const meta = (d as { metadata?: { error_id?: string } }).metadata;
      if (meta?.error_id) return meta.error_id;
    }
    for (const d of data) if ((d as { error_id?: string }).error_id) return (d as { error_id: string }).error_id;
  }
  if (data && typeof data === 'object') return (data as { error_id?: string }).error_id;
  const result = (body as { result?: { data?: { error_id?: string } } }).result;
  return result?.data?.error_id;
}
