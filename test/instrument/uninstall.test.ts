/**
 * Every install is undone (DESIGN §8; STYLE.md "everything installed can be uninstalled"): the
 * three process-wide taps — methods of `ServerResponse.prototype`, `IncomingMessage.prototype.emit`
 * and the global AapError hook — are put back exactly as found (the own property descriptors,
 * including an `emit` that was only inherited) when the last triage is disabled, and not before
 * a response it holds is sent.
 */
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AAP_ERROR_CREATED, AapTriageInstrumentation, createTriage } from '../../src/instrument/index.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';

/** The own property descriptors of every object a tap touches, as a comparable snapshot. */
function descriptors(): Record<string, unknown> {
  const own = (o: object, keys: PropertyKey[]) => Object.fromEntries(keys.map((k) => [String(k), Object.getOwnPropertyDescriptor(o, k)]));
  return {
    response: own(ServerResponse.prototype, Reflect.ownKeys(ServerResponse.prototype)),
    request: own(IncomingMessage.prototype, Reflect.ownKeys(IncomingMessage.prototype)),
    global: own(globalThis, [AAP_ERROR_CREATED]),
  };
}

const opened: { shutdown(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.shutdown()));
});

function triage() {
  const t = createTriage({ auditSink: new MemoryAuditSink(), logger: false });
  opened.push(t);
  return t;
}

describe('installs undone', () => {
  it('createTriage patches the prototypes and the global hook, and shutdown() restores them exactly', async () => {
    const before = descriptors();
    const t = triage();
    expect(descriptors()).not.toEqual(before);
    expect(Object.hasOwn(IncomingMessage.prototype, 'emit')).toBe(true);
    await t.shutdown();
    expect(descriptors()).toEqual(before);
    // `emit` was inherited before: it is inherited again, not left as an own property.
    expect(Object.hasOwn(IncomingMessage.prototype, 'emit')).toBe('emit' in (before.request as object));
  });

  it('AapTriageInstrumentation installs on enable() and restores on disable(), again and again', () => {
    const before = descriptors();
    const i = new AapTriageInstrumentation({ auditSink: new MemoryAuditSink(), logger: false });
    opened.push(i);
    expect(descriptors()).not.toEqual(before);
    i.disable();
    expect(descriptors()).toEqual(before);
    i.enable();
    expect(descriptors()).not.toEqual(before);
    i.disable();
    expect(descriptors()).toEqual(before);
  });

  it('keeps the taps while another triage still needs them', async () => {
    const before = descriptors();
    const a = triage();
    const b = triage();
    const patched = descriptors();
    await a.shutdown();
    expect(descriptors()).toEqual(patched);
    await b.shutdown();
    expect(descriptors()).toEqual(before);
  });

  it('waits for a response it holds before restoring, and the response arrives whole', async () => {
    const before = descriptors();
    const t = triage();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((r) => (entered = r));
    const server = createServer(
      t.wrap((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.write('{"jsonrpc":"2.0","id":1,');
        entered();
        void held.then(() => res.end('"result":{"ok":true}}'));
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const answer = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
      // The tap holds the first chunk (buffer mode) until end: restoring now would lose it.
      await inHandler;
      await t.shutdown();
      expect(descriptors()).not.toEqual(before);
      release();
      const body = await (await answer).json();
      expect(body).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
      expect(descriptors()).toEqual(before);
    } finally {
      release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('leaves a patch another library laid over its own in place', async () => {
    const before = descriptors();
    const t = triage();
    const proto = ServerResponse.prototype as unknown as { end: (...a: unknown[]) => unknown };
    const ours = proto.end;
    const theirs = function end(this: unknown, ...a: unknown[]) {
      return ours.apply(this, a);
    };
    proto.end = theirs;
    await t.shutdown();
    expect(proto.end).toBe(theirs);
    // Put the host's own back by hand; everything else was restored.
    const original = (before.response as Record<string, PropertyDescriptor | undefined>).end;
    if (original) Object.defineProperty(ServerResponse.prototype, 'end', original);
    else delete (ServerResponse.prototype as unknown as { end?: unknown }).end;
    expect(descriptors()).toEqual(before);
  });
});
