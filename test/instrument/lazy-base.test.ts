/**
 * `AapTriageInstrumentation` loads `@opentelemetry/instrumentation` on its first construction,
 * not at import (issue 31 "Start-up"), and still is an `InstrumentationBase`: the instance, a
 * host's subclass and the base's own methods behave as with a static `extends`.
 */
import { execFileSync } from 'node:child_process';
import { InstrumentationBase } from '@opentelemetry/instrumentation';
import { beforeAll, describe, expect, it } from 'vitest';
import { AapTriageInstrumentation } from '../../src/instrument/index.js';
import { ROOT, ensureBuilt } from '../helpers/dist.js';
import { MemoryAuditSink } from '../helpers/memory-sink.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('AapTriageInstrumentation over a lazily loaded base', () => {
  it('is an InstrumentationBase with the base methods, and a subclass keeps its own', async () => {
    class Host extends AapTriageInstrumentation {
      marker(): string {
        return 'host';
      }
    }
    const plain = new AapTriageInstrumentation({ enabled: false, auditSink: new MemoryAuditSink(), logger: false });
    const sub = new Host({ enabled: false, auditSink: new MemoryAuditSink(), logger: false });
    for (const i of [plain, sub]) {
      expect(i).toBeInstanceOf(InstrumentationBase);
      expect(i).toBeInstanceOf(AapTriageInstrumentation);
      expect(i.instrumentationName).toBe('aap-triage');
      expect(i.getConfig().enabled).toBe(false);
    }
    expect(sub).toBeInstanceOf(Host);
    expect(sub.marker()).toBe('host');
    await Promise.all([plain.shutdown(), sub.shutdown()]);
  });

  it("is not loaded by import('aap-triage'), and is by the first construction", () => {
    const script = `
      import { createRequire } from 'node:module';
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((k) => k.includes('@opentelemetry/instrumentation/'));
      const { AapTriageInstrumentation } = await import('aap-triage');
      const before = loaded();
      await new AapTriageInstrumentation({ enabled: false, auditDb: false, logger: false }).shutdown();
      console.log(before, loaded());`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(out.trim()).toBe('false true');
  });
});
