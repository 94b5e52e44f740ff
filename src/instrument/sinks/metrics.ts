/**
 * Metric instruments (DESIGN §4), created in one function with unit, description and buckets,
 * and the recorders that copy an explicit allow-list of a call report's fields to labels
 * (METRIC_ATTRIBUTES). Never an id, client, message or VIN as a label.
 */
import { ValueType } from '@opentelemetry/api';
import type { Attributes, BatchObservableResult, Histogram, Meter, Observable } from '@opentelemetry/api';
import type { AuditHealth } from '../../audit/sink.js';
import {
  ATTR_AAP_AUDIT_OUTCOME,
  ATTR_AAP_CONFORMANCE_RULE,
  ATTR_AAP_ERROR_CODE,
  ATTR_AAP_ERROR_RETRYABLE,
  ATTR_AAP_PROTOCOL,
  ATTR_AAP_RETRY_FLAG,
  ATTR_AAP_SKILL,
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  MCP_METRICS,
  METRICS,
  RETRY_FLAG_NONE,
  RPC_SYSTEM_NAME_VALUE_JSONRPC,
} from '../attributes.js';
import type { CallRecord, ExchangeRecords, Instruments, SumCounter, TriageCore } from '../internal-types.js';

class PreAggregated implements SumCounter {
  private readonly sums = new Map<Attributes, number>();
  add(value: number, attributes: Attributes): void {
    this.sums.set(attributes, (this.sums.get(attributes) ?? 0) + value);
  }
  /** Reports every running total on `instrument` (cumulative, as an observable counter's values are). */
  observe(result: BatchObservableResult, instrument: Observable): void {
    if (this.sums.size === 0) return;
    const merged = new Map<string, { attributes: Attributes; value: number }>();
    for (const [attributes, value] of this.sums) {
      const key = JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const m = merged.get(key);
      if (m) m.value += value;
      else merged.set(key, { attributes, value });
    }
    for (const { attributes, value } of merged.values()) result.observe(instrument, value, attributes);
  }
}

/** The instruments of one meter and the audit-health sources its observable callbacks sum. */
interface MeterInstruments {
  instruments: Instruments;
  sources: Set<() => AuditHealth | null>;
}

/**
 * One set of instruments per meter (issue 16): several `createTriage` instances or
 * instrumentations in one process share them, so their counts add up, and the observable audit
 * instruments report the sum over every registered sink instead of one callback's value
 * overwriting another's.
 */
const byMeter = new WeakMap<Meter, MeterInstruments>();

/** A registration made by {@link createInstruments}; `release()` stops its sink being summed. */
export interface InstrumentsHandle {
  instruments: Instruments;
  release(): void;
}

function sumHealth(sources: Set<() => AuditHealth | null>): AuditHealth | null {
  let sum: AuditHealth | null = null;
  for (const health of sources) {
    let h: AuditHealth | null = null;
    try {
      h = health();
    } catch {
      // A sink whose health throws is left out of this collection; the rest still report.
    }
    if (!h) continue;
    if (!sum) sum = { ...h };
    else {
      sum.written += h.written;
      sum.dropped += h.dropped;
      sum.failed += h.failed;
      sum.queueSize += h.queueSize;
    }
  }
  return sum;
}

function build(meter: Meter, sources: Set<() => AuditHealth | null>): Instruments {
  const m = METRICS;
  const counter = (d: { name: string; unit: string; description: string }): Observable =>
    meter.createObservableCounter(d.name, { unit: d.unit, description: d.description, valueType: ValueType.INT });
  const sums = { errors: new PreAggregated(), retries: new PreAggregated(), conformance: new PreAggregated() };
  let mcp: Histogram | null = null;
  const instruments: Instruments = {
    callDuration: meter.createHistogram(m.callDuration.name, {
      unit: m.callDuration.unit,
      description: m.callDuration.description,
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...m.callDuration.buckets] },
    }),
    errors: sums.errors,
    retries: sums.retries,
    attempts: meter.createHistogram(m.attempts.name, {
      unit: m.attempts.unit,
      description: m.attempts.description,
      valueType: ValueType.INT,
      advice: { explicitBucketBoundaries: [...m.attempts.buckets] },
    }),
    conformance: sums.conformance,
    mcpOperationDuration: () =>
      (mcp ??= meter.createHistogram(MCP_METRICS.operationDuration.name, {
        unit: MCP_METRICS.operationDuration.unit,
        description: MCP_METRICS.operationDuration.description,
        valueType: ValueType.DOUBLE,
        advice: { explicitBucketBoundaries: [...MCP_METRICS.operationDuration.buckets] },
      })),
  };
  const errors = counter(m.errors);
  const retries = counter(m.retries);
  const conformance = counter(m.conformance);
  const records = counter(m.auditRecords);
  // The queue rises and falls, so it is an up-down counter (semconv: a "size" that is additive).
  const queue = meter.createObservableUpDownCounter(m.auditQueue.name, {
    unit: m.auditQueue.unit,
    description: m.auditQueue.description,
    valueType: ValueType.INT,
  });
  meter.addBatchObservableCallback(
    (result: BatchObservableResult) => {
      sums.errors.observe(result, errors);
      sums.retries.observe(result, retries);
      sums.conformance.observe(result, conformance);
      const h = sumHealth(sources);
      if (!h) return;
      result.observe(records, h.written, { [ATTR_AAP_AUDIT_OUTCOME]: 'written' });
      result.observe(records, h.dropped, { [ATTR_AAP_AUDIT_OUTCOME]: 'dropped' });
      result.observe(records, h.failed, { [ATTR_AAP_AUDIT_OUTCOME]: 'failed' });
      result.observe(queue, h.queueSize);
    },
    [errors, retries, conformance, records, queue],
  );
  return instruments;
}

/**
 * The instruments of `meter`, created on first use (unit, description, buckets from METRICS),
 * and registers `health` as one more source of the observable audit instruments
 * (`aap.audit.records` by outcome, `aap.audit.queue.size`), summed over every source.
 */
export function createInstruments(meter: Meter, health: () => AuditHealth | null): InstrumentsHandle {
  let entry = byMeter.get(meter);
  if (!entry) {
    const sources = new Set<() => AuditHealth | null>();
    entry = { instruments: build(meter, sources), sources };
    byMeter.set(meter, entry);
  }
  // A fresh function per registration, so the same health function registered twice counts twice.
  const source = (): AuditHealth | null => health();
  entry.sources.add(source);
  const sources = entry.sources;
  return { instruments: entry.instruments, release: () => void sources.delete(source) };
}

/**
 * Label sets are built once per combination and reused: the SDK hashes them on every record,
 * and fresh objects per call would only add garbage.
 */
interface LabelSets {
  base: Attributes;
  duration: Attributes;
  error: Attributes | null;
  /** `base` plus `aap.retry.flag`, by flag (`none` for a plain retry), built when first needed. */
  retry: Map<string, Attributes>;
}
const labelCache = new Map<string, LabelSets>();
const LABEL_CACHE_MAX = 4096;
const conformanceLabels = new Map<string, Attributes>();

function retryLabels(l: LabelSets, flag: string): Attributes {
  let a = l.retry.get(flag);
  if (!a) {
    a = { ...l.base, [ATTR_AAP_RETRY_FLAG]: flag };
    l.retry.set(flag, a);
  }
  return a;
}

function ruleLabels(protocol: string, rule: string): Attributes {
  const key = `${protocol}\u0000${rule}`;
  let a = conformanceLabels.get(key);
  if (!a) {
    a = { [ATTR_AAP_PROTOCOL]: protocol, [ATTR_AAP_CONFORMANCE_RULE]: rule };
    if (conformanceLabels.size >= LABEL_CACHE_MAX) conformanceLabels.clear();
    conformanceLabels.set(key, a);
  }
  return a;
}

/** The label sets of the last call and what they were built from: most calls repeat them. */
let last: { r: Pick<CallRecord, 'method' | 'protocol' | 'skill' | 'errorType' | 'statusCode' | 'errorCode'>; retryable: boolean | null; sets: LabelSets } | null = null;

function labelsFor(r: CallRecord, retryable: boolean | null): LabelSets {
  const l = last;
  // Compared field by field (bounded strings, mostly the same constants): no key text per call.
  if (l && l.r.method === r.method && l.r.protocol === r.protocol && l.r.skill === r.skill && l.r.errorType === r.errorType && l.r.statusCode === r.statusCode && l.r.errorCode === r.errorCode && l.retryable === retryable) return l.sets;
  const sets = labelSetsFor(r, retryable);
  last = { r: { method: r.method, protocol: r.protocol, skill: r.skill, errorType: r.errorType, statusCode: r.statusCode, errorCode: r.errorCode }, retryable, sets };
  return sets;
}

function labelSetsFor(r: CallRecord, retryable: boolean | null): LabelSets {
  const key = `${r.method}\u0000${r.protocol}\u0000${r.skill ?? ''}\u0000${r.errorType ?? ''}\u0000${r.statusCode ?? ''}\u0000${r.errorCode ?? ''}\u0000${String(retryable)}`;
  let hit = labelCache.get(key);
  if (hit) return hit;
  const base: Attributes = { [ATTR_RPC_METHOD]: r.method, [ATTR_AAP_PROTOCOL]: r.protocol };
  if (r.skill !== null) base[ATTR_AAP_SKILL] = r.skill;
  const duration: Attributes = { ...base, [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_JSONRPC };
  if (r.errorType !== null) duration[ATTR_ERROR_TYPE] = r.errorType;
  if (r.statusCode !== null) duration[ATTR_RPC_STATUS_CODE] = r.statusCode;
  let error: Attributes | null = null;
  if (r.errorType !== null) {
    error = { ...base, [ATTR_ERROR_TYPE]: r.errorType, [ATTR_AAP_ERROR_CODE]: r.errorCode ?? r.errorType };
    if (retryable !== null) error[ATTR_AAP_ERROR_RETRYABLE] = retryable;
  }
  hit = { base, duration, error, retry: new Map() };
  if (labelCache.size >= LABEL_CACHE_MAX) labelCache.clear();
  labelCache.set(key, hit);
  return hit;
}

/**
 * Records one call — or `r.count` identical calls of one exchange: duration, attempts, and for
 * errors, retries and conformance, the counters (added once with the count).
 */
export function recordCall(i: Instruments, r: CallRecord): void {
  const n = r.count;
  const isError = r.errorType !== null;
  const labels = labelsFor(r, isError ? r.retryable : null);
  for (let k = 0; k < n; k++) {
    i.callDuration.record(r.durationS, labels.duration);
    i.attempts.record(r.attempt, labels.base);
  }
  if (r.attempt > 1) {
    if (r.flags.length === 0) i.retries.add(n, retryLabels(labels, RETRY_FLAG_NONE));
    for (const flag of r.flags) i.retries.add(n, retryLabels(labels, flag));
  }
  if (isError && labels.error) {
    i.errors.add(n, labels.error);
    for (const rule of r.conformance) i.conformance.add(n, ruleLabels(r.protocol, rule));
  }
  const mcp = r.conventions?.mcpMetric;
  if (mcp) {
    const h = i.mcpOperationDuration();
    for (let k = 0; k < n; k++) h.record(r.durationS, mcp);
  }
}

/** Whether two string lists hold the same items in the same order. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two calls of a batch fall in one metric group: everything their labels and recorded values depend on is equal. */
function sameGroup(a: CallRecord, b: CallRecord): boolean {
  return (
    a.method === b.method &&
    a.protocol === b.protocol &&
    a.skill === b.skill &&
    a.attempt === b.attempt &&
    a.durationS === b.durationS &&
    a.errorType === b.errorType &&
    a.statusCode === b.statusCode &&
    a.errorCode === b.errorCode &&
    a.retryable === b.retryable &&
    sameList(a.flags, b.flags) &&
    sameList(a.conformance, b.conformance)
  );
}

/** Groups searched one by one before a batch's groups are keyed by text: most batches have a handful. */
const FEW_GROUPS = 8;

/** The metric group of a call in a batch as text, once a batch has more than {@link FEW_GROUPS} groups. */
function groupKey(r: CallRecord): string {
  return `${r.method}\u0000${r.protocol}\u0000${r.skill ?? ''}\u0000${r.attempt}\u0000${r.durationS}\u0000${r.flags.join(',')}\u0000${r.errorType ?? ''}\u0000${r.statusCode ?? ''}\u0000${r.errorCode ?? ''}\u0000${String(r.retryable)}\u0000${r.conformance.join(',')}`;
}

/**
 * The metrics sink: every call's duration and attempt, and for errors the counters. The calls of
 * a batch with identical labels and values are recorded once with their count; grouping compares
 * fields (no key text per call) while the batch has few groups.
 */
export function metricsSink(core: TriageCore, x: ExchangeRecords): void {
  const instruments = core.instruments;
  if (!instruments) return;
  const records = x.records;
  if (records.length === 1) {
    recordCall(instruments, records[0] as CallRecord);
    return;
  }
  const groups: CallRecord[] = [];
  let keyed: Map<string, CallRecord> | null = null;
  let last: CallRecord | null = null;
  for (const r of records) {
    let group: CallRecord | undefined;
    if (last !== null && sameGroup(last, r)) group = last;
    else if (keyed === null) {
      for (const g of groups) if (sameGroup(g, r)) group = g;
      if (group === undefined && groups.length === FEW_GROUPS) keyed = new Map(groups.map((g) => [groupKey(g), g]));
    }
    if (group === undefined && keyed !== null) {
      const key = groupKey(r);
      group = keyed.get(key);
      if (group === undefined) keyed.set(key, (group = { ...r, count: 0 }));
      if (group.count === 0) groups.push(group);
    } else if (group === undefined) groups.push((group = { ...r, count: 0 }));
    group.count++;
    last = group;
  }
  for (const r of groups) recordCall(instruments, r);
}
