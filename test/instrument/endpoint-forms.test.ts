/**
 * The AAP error form per endpoint (spec/aap-errors.txt "Errors": "Existing v1.3 endpoints retain
 * their released error shape"): the `aapForm` option per request path, and `auto` reading the AAP
 * extension version from the agent card (the `agentCard` option, or the card the host serves).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointForms, formOfExtensionUri, formOfVersion, readAgentCard } from '../../src/instrument/endpoint-forms.js';
import { createTriage } from '../../src/instrument/index.js';
import type { Triage, TriageOptions } from '../../src/instrument/index.js';
import { buildAgentCard } from '../../src/demo/aap/agent-card.js';
import { conformanceRuleIds } from '../../src/protocol/index.js';
import { AAP_HEADERS, post, sendMessageBody } from '../helpers/aap-server.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';
import { HAVE_REFERENCE, readReference } from '../protocol/reference.js';

// ../shared is absent in a plain clone: the reference card's case is then skipped, the rest run.
const examples = HAVE_REFERENCE ? readReference<Array<{ kind: string; payload: unknown }>>('aap-examples.json') : [];
/** The published v1.1 agent card of the reference examples (AAP extension `…/aap/v1.1`, params.version 1.1.0). */
const CARD_11 = examples.find((e) => JSON.stringify(e.payload).includes('"uri":"https://autoagentprotocol.org/extensions/aap/v1.1"'))?.payload as Record<string, unknown>;

function cardAt(url: string, version: string): Record<string, unknown> {
  return {
    name: 'Dealer (test)',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { extensions: [{ uri: `https://autoagentprotocol.org/extensions/aap/v${version}`, required: true, params: { version } }] },
  };
}

describe('reading a form', () => {
  it('maps versions: 2.x is the 2.0 array, 1.3 and older the released object', () => {
    expect(formOfVersion('2.0.0-draft')).toBe('2.0');
    expect(formOfVersion('1.3.0')).toBe('released');
    expect(formOfVersion('v1.1')).toBe('released');
    expect(formOfVersion('latest')).toBeNull();
    expect(formOfExtensionUri('https://autoagentprotocol.org/extensions/aap/v1.3')).toBe('released');
    expect(formOfExtensionUri('https://draft.autoagentprotocol.invalid/extensions/aap/latest')).toBeNull();
  });

  it.skipIf(!HAVE_REFERENCE)('reads the reference v1.1 card as released and the demo 2.0 card as 2.0, with their interface paths', () => {
    expect(CARD_11).toBeDefined();
    expect(readAgentCard(CARD_11)?.form).toBe('released');
    expect(readAgentCard(buildAgentCard('http://127.0.0.1:9/a2a'))).toEqual({ form: '2.0', paths: ['/a2a'] });
    expect(readAgentCard({ capabilities: { extensions: [{ uri: 'https://example.com/other' }] } })).toBeNull();
    expect(readAgentCard('not a card')).toBeNull();
  });

  it('resolves per path: the option first, then a card, then 2.0 (unknown)', () => {
    const forms = new EndpointForms({ '/v1': 'released', '*': 'auto' }, null);
    expect(forms.formFor('/v1')).toEqual({ form: 'released', known: true });
    expect(forms.formFor('/v2')).toEqual({ form: '2.0', known: false });
    forms.learnCard(cardAt('https://dealer.example.com/v2', '2.0.0'));
    expect(forms.formFor('/v2')).toEqual({ form: '2.0', known: true });
    expect(new EndpointForms('auto', 'https://autoagentprotocol.org/extensions/aap/v1.3').formFor('/x')).toEqual({ form: 'released', known: true });
  });

  it('refuses an aapForm that is not a form or an object of paths to forms', () => {
    expect(() => createTriage({ auditDb: false, logger: false, aapForm: { v1: 'released' } as never })).toThrow(/request path/);
    expect(() => createTriage({ auditDb: false, logger: false, aapForm: { '/v1': '1.3' } as never })).toThrow(/aapForm\["\/v1"\]/);
    expect(() => createTriage({ auditDb: false, logger: false, agentCard: 'https://dealer.example.com/card' })).toThrow(/agentCard/);
  });
});

describe('on the wire', () => {
  let server: Server | null = null;
  let triage: Triage | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await triage?.shutdown();
    server = null;
    triage = null;
  });

  /** A host that serves `card` and answers every POST with a flattened AapError (-32603 "CODE: message"). */
  async function start(options: TriageOptions, card: (base: string) => unknown): Promise<string> {
    triage = createTriage({ auditSink: new MemoryAuditSink(), logger: false, ...options });
    let base = '';
    server = createServer(
      triage.wrap((req, res) => {
        req.resume();
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          if (req.method === 'GET') res.end(JSON.stringify(card(base)));
          else res.end(JSON.stringify({ jsonrpc: '2.0', id: 'f1', error: { code: -32603, message: 'VEHICLE_NOT_FOUND: No listing matches that VIN.' } }));
        });
      }),
    );
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    return base;
  }

  const call = (url: string) => post(url, sendMessageBody('f1', 'inventory.vehicle', { vin: '1HGCM82633A000009' }), AAP_HEADERS);

  it('auto: a 1.3 card the host serves makes its endpoint answer in the released shape', async () => {
    const base = await start({}, (b) => cardAt(`${b}/v13/jsonrpc`, '1.3.0'));
    const before = await call(`${base}/v13/jsonrpc`);
    expect(Array.isArray((before.json as { error: { data: unknown } }).error.data)).toBe(true); // no card read yet: 2.0
    const card = await fetch(`${base}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    await card.text();
    const after = await call(`${base}/v13/jsonrpc`);
    const error = (after.json as { error: { code: number; data: Record<string, unknown> } }).error;
    expect(error.code).toBe(-32000);
    expect(error.data).toMatchObject({ type: 'aap.error', code: 'VEHICLE_NOT_FOUND', retryable: false });
    expect(Array.isArray(error.data)).toBe(false);
    expect(conformanceRuleIds(after.json, { family: 'aap', form: 'released' })).toEqual([]);
  });

  it('the option sets the form per path, and an agentCard given up front is read at once', async () => {
    const base = await start({ aapForm: { '/legacy': 'released', '*': 'auto' }, agentCard: cardAt('https://dealer.example.com/current', '2.0.0') }, () => ({}));
    const legacy = await call(`${base}/legacy`);
    expect(Array.isArray((legacy.json as { error: { data: unknown } }).error.data)).toBe(false);
    const current = await call(`${base}/current`);
    expect(Array.isArray((current.json as { error: { data: unknown } }).error.data)).toBe(true);
    expect(conformanceRuleIds(current.json, { family: 'aap', form: '2.0' })).toEqual([]);
  });
});
