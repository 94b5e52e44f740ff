/**
 * The client keeps its own copy of the telemetry and header names (DESIGN §3: `client` imports
 * only `protocol`). This pins the copy to the one file that spells the server's names, so they
 * cannot drift apart while both exist.
 */
import { describe, expect, it } from 'vitest';
import * as client from '../../src/client/attributes.js';
import * as server from '../../src/instrument/attributes.js';
import { DEFAULT_KNOWN_SKILLS as SERVER_DEFAULT_SKILLS } from '../../src/instrument/options.js';
import { KNOWN_SKILLS } from '../../src/protocol/index.js';

describe('client telemetry names', () => {
  it('are the server-side names, value for value', () => {
    const shared = [
      'ATTR_ERROR_TYPE',
      'ATTR_RPC_METHOD',
      'ATTR_RPC_METHOD_ORIGINAL',
      'ATTR_RPC_STATUS_CODE',
      'ATTR_RPC_SYSTEM_NAME',
      'ATTR_JSONRPC_REQUEST_ID',
      'ATTR_JSONRPC_PROTOCOL_VERSION',
      'RPC_SYSTEM_NAME_VALUE_JSONRPC',
      'RPC_METHOD_OTHER',
      'ATTR_AAP_PROTOCOL',
      'ATTR_AAP_SKILL',
      'ATTR_AAP_ERROR_CODE',
      'ATTR_AAP_ERROR_RETRYABLE',
      'ATTR_AAP_ERROR_ID',
      'ATTR_AAP_REQUEST_ATTEMPT',
      'ATTR_AAP_UPSTREAM_TRACE_ID',
      'HEADER_TRACERESPONSE',
      'HEADER_ATTEMPT',
    ] as const;
    for (const name of shared) expect([name, (client as Record<string, unknown>)[name]]).toEqual([name, (server as Record<string, unknown>)[name]]);
  });

  it('mirror the server metrics under rpc.client.* / aap.client.* with the same units and buckets', () => {
    expect(client.CLIENT_METRICS.callDuration).toMatchObject({ name: 'rpc.client.call.duration', unit: 's', buckets: server.METRICS.callDuration.buckets });
    expect(client.CLIENT_METRICS.errors).toMatchObject({ name: 'aap.client.errors', unit: server.METRICS.errors.unit });
    expect(client.CLIENT_METRICS.retries).toMatchObject({ name: 'aap.client.retries', unit: server.METRICS.retries.unit });
    expect(client.CLIENT_METRIC_ATTRIBUTES.errors).toEqual(server.METRIC_ATTRIBUTES.errors);
    expect(client.CLIENT_METRIC_ATTRIBUTES.callDuration).toEqual(server.METRIC_ATTRIBUTES.callDuration);
  });
});

describe('client skill allow-list', () => {
  it('reports by name every skill and tool the server side reports by name (its default list moves to protocol later)', () => {
    for (const name of SERVER_DEFAULT_SKILLS) expect(KNOWN_SKILLS).toContain(name);
  });
});
