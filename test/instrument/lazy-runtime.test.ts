/**
 * `import('aap-triage')` loads the fronts, options and constants only; the runtime (core, taps,
 * sinks, audit store, the logs API: src/instrument/runtime.ts) loads with the first
 * `createTriage` or the first `enable()` of an `AapTriageInstrumentation`, synchronously, so it is
 * in place before the host serves a request (issue 31 "Start-up"). Run as a host would, from
 * dist/lib, where the runtime is dist/lib/runtime.js; `require` (of an ES module) lists it in
 * `require.cache` once loaded.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../helpers/dist.js';

beforeAll(() => ensureBuilt(), 300_000);

/** Runs `body` after `import('aap-triage')` in a child; prints whether the runtime was loaded at import and after `body`. */
function loadedAround(body: string): string {
  const script = `
    import { createRequire } from 'node:module';
    const cache = createRequire(import.meta.url).cache;
    const loaded = () => Object.keys(cache).some((k) => k.endsWith('/dist/lib/runtime.js'));
    const aap = await import('aap-triage');
    const atImport = loaded();
    ${body}
    console.log(atImport, loaded());`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim();
}

describe('the runtime of the fronts, loaded on first use', () => {
  it('is not loaded by the import, and is by createTriage', () => {
    expect(loadedAround(`await aap.createTriage({ auditDb: false, logger: false }).shutdown();`)).toBe('false true');
  });

  it('is loaded by the first enable(), not by constructing a disabled instrumentation', () => {
    const body = `
      const i = new aap.AapTriageInstrumentation({ enabled: false, auditDb: false, logger: false });
      const constructed = loaded();
      i.enable();
      if (constructed) throw new Error('loaded by a disabled construction');
      await i.shutdown();`;
    expect(loadedAround(body)).toBe('false true');
  });
});
