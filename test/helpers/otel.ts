/**
 * In-memory OpenTelemetry for tests: a tracer provider with an in-memory span exporter and a
 * meter provider with a reader collected on demand.
 */
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram, MetricData, ScopeMetrics } from '@opentelemetry/sdk-metrics';

type InstrumentationScope = ScopeMetrics['scope'];
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** A reader collected on demand (contrib undici `mock-metrics-reader.ts` pattern). */
export class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface TestOtel {
  tracerProvider: NodeTracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  reset(): void;
  /** All metric data points by instrument name. */
  metrics(): Promise<Map<string, MetricData>>;
  /** The instrumentation scopes that have metrics. */
  metricScopes(): Promise<InstrumentationScope[]>;
}

/**
 * Registers a NodeTracerProvider globally (tracer, AsyncLocalStorage context manager, W3C
 * propagator), as the OpenTelemetry Node SDK does. Call once per test file.
 */
export function setupOtel(): TestOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  tracerProvider.register();
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async metrics() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const sm of resourceMetrics.scopeMetrics) for (const m of sm.metrics) out.set(m.descriptor.name, m);
      return out;
    },
    async metricScopes() {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.map((sm) => sm.scope);
    },
  };
}

/** Sum of a counter's points whose attributes include `match`. */
export function counterSum(m: MetricData | undefined, match: Record<string, unknown> = {}): number {
  if (!m) return 0;
  let sum = 0;
  for (const p of m.dataPoints as DataPoint<number>[]) {
    if (Object.entries(match).every(([k, v]) => p.attributes[k] === v)) sum += p.value;
  }
  return sum;
}

/** Count of a histogram's points whose attributes include `match`. */
export function histogramCount(m: MetricData | undefined, match: Record<string, unknown> = {}): number {
  if (!m) return 0;
  let n = 0;
  for (const p of m.dataPoints as DataPoint<Histogram>[]) {
    if (Object.entries(match).every(([k, v]) => p.attributes[k] === v)) n += p.value.count;
  }
  return n;
}

/** Waits until `cond()` holds (the response's 'finish' runs after the client has the body). */
export async function waitFor(cond: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
