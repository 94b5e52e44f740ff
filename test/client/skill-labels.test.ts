/**
 * `aap.skill` on the client's spans and metric labels is allow-listed (DESIGN §4 "Metrics:
 * low-cardinality attributes only"): a caller can name any tool, so a name outside `knownSkills`
 * is reported as `_OTHER`, as the server side does. Against a real `node:http` server
 * (fixtures/raw-server.ts) answering DMC-12 result errors built with `buildDmc12Error`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { DealerAgentError, callWithDetails, createAapFetch, createRetryBudget, withRetries } from '../../src/client/index.js';
import { KNOWN_SKILLS, buildDmc12Error } from '../../src/protocol/index.js';
import { startRawServer } from './fixtures/raw-server.js';
import type { RawServer } from './fixtures/raw-server.js';
import { createTestTelemetry } from './fixtures/telemetry.js';
import type { TestTelemetry } from './fixtures/telemetry.js';

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.script.length = 0;
  server.requests.length = 0;
});

/** Scripts one DMC-12 result error for the next request (the tool echoed into `_metadata`). */
function answerWith(code: 'RATE_LIMITED' | 'VALIDATION_FAILED', tool: string): void {
  server.script.push((body) => {
    const id = (JSON.parse(body) as { id: number }).id;
    return { chunks: [JSON.stringify({ jsonrpc: '2.0', id, result: buildDmc12Error(code, { tool: tool.slice(0, 100).replace(/[^A-Za-z0-9_]/g, '_') }) })] };
  });
}

let nextId = 1;
const callTool = (aapFetch: typeof fetch, tool: string) =>
  aapFetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: tool, arguments: {} } }),
  });

function skillLabels(t: TestTelemetry, metric: string): unknown[] {
  return t.points(metric).map((p: DataPoint<number | Histogram>) => p.attributes['aap.skill']);
}

const UNKNOWN_TOOL = 'export_customers_jane.doe@example.com';

describe('aap.skill allow-list', () => {
  it('reports a tool outside the default list as _OTHER on the span and every metric, and keeps a known one', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false });
    answerWith('VALIDATION_FAILED', UNKNOWN_TOOL);
    answerWith('VALIDATION_FAILED', 'request_quote');
    const unknown = (await callWithDetails(() => callTool(aapFetch, UNKNOWN_TOOL)).catch((x: unknown) => x)) as DealerAgentError;
    const known = (await callWithDetails(() => callTool(aapFetch, 'request_quote')).catch((x: unknown) => x)) as DealerAgentError;

    // The error the caller holds keeps the name it sent (it is the caller's own value).
    expect(unknown).toBeInstanceOf(DealerAgentError);
    expect(unknown.skill).toBe(UNKNOWN_TOOL);
    expect(known.skill).toBe('request_quote');

    const spans = t.spans.getFinishedSpans();
    expect(spans.map((s) => s.attributes['aap.skill'])).toEqual(['_OTHER', 'request_quote']);
    for (const s of spans) expect(Object.values(s.attributes)).not.toContain(UNKNOWN_TOOL);

    await t.collect();
    expect(skillLabels(t, 'aap.client.errors').sort()).toEqual(['_OTHER', 'request_quote']);
    expect(skillLabels(t, 'rpc.client.call.duration').sort()).toEqual(['_OTHER', 'request_quote']);
    for (const p of [...t.points('aap.client.errors'), ...t.points('rpc.client.call.duration')]) {
      expect(JSON.stringify(p.attributes)).not.toContain('jane.doe');
    }
  });

  it('defaults to the protocol layer’s KNOWN_SKILLS: every AAP skill and DMC-12 tool keeps its name', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false });
    for (const skill of KNOWN_SKILLS) {
      server.script.push({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: nextId, result: {} })] });
      await callTool(aapFetch, skill);
    }
    expect(t.spans.getFinishedSpans().map((s) => s.attributes['aap.skill'])).toEqual([...KNOWN_SKILLS]);
  });

  it('uses the knownSkills option instead of the default list', async () => {
    const t = createTestTelemetry();
    const aapFetch = createAapFetch({ tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false, knownSkills: ['my_tool'] });
    answerWith('VALIDATION_FAILED', 'my_tool');
    answerWith('VALIDATION_FAILED', 'request_quote');
    await callWithDetails(() => callTool(aapFetch, 'my_tool')).catch(() => {});
    await callWithDetails(() => callTool(aapFetch, 'request_quote')).catch(() => {});
    expect(t.spans.getFinishedSpans().map((s) => s.attributes['aap.skill'])).toEqual(['my_tool', '_OTHER']);
    await t.collect();
    expect(skillLabels(t, 'aap.client.errors').sort()).toEqual(['_OTHER', 'my_tool']);
  });

  it('labels aap.client.retries with the allow-listed skill too', async () => {
    const t = createTestTelemetry();
    const opts = { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, logger: false as const };
    const aapFetch = createAapFetch(opts);
    answerWith('RATE_LIMITED', UNKNOWN_TOOL);
    server.script.push((body) => ({ chunks: [JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: {} })] }));
    await withRetries(() => callTool(aapFetch, UNKNOWN_TOOL), { ...opts, budget: createRetryBudget(), sleep: async () => {} });
    expect(server.requests).toHaveLength(2);
    await t.collect();
    expect(t.points('aap.client.retries').map((p) => [p.value, p.attributes])).toEqual([
      [1, { 'rpc.method': 'tools/call', 'aap.protocol': 'dmc12', 'aap.skill': '_OTHER', 'aap.error.code': 'RATE_LIMITED' }],
    ]);
  });

  it('rejects a knownSkills option that is not an array of strings', async () => {
    expect(() => createAapFetch({ knownSkills: 'request_quote' as unknown as string[] })).toThrow(TypeError);
    expect(() => createAapFetch({ knownSkills: [1] as unknown as string[] })).toThrow(/knownSkills/);
    await expect(withRetries(() => Promise.resolve(1), { knownSkills: [null] as unknown as string[] })).rejects.toThrow(TypeError);
  });
});
