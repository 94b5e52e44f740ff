import { afterEach, describe, expect, it } from 'vitest';
import { count, rawDb, tempDir } from './helpers.js';
import { requireDist, startFixture } from './processes.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function runChild(mode: string, rows: number) {
  requireDist();
  const t = tempDir();
  cleanup = t.cleanup;
  const run = startFixture('exit-child.mjs', [mode, t.db, String(rows)]);
  const finished = await run.done;
  return { ...finished, stored: count(t.db, 'error_events') };
}

describe('flushing when the host process ends', () => {
  it('commits queued rows when the event loop drains (beforeExit), without keeping the process alive', async () => {
    expect(await runChild('natural', 123)).toMatchObject({ code: 0, stored: 123 });
  });

  it('commits queued rows on process.exit() (synchronous flush in the exit handler)', async () => {
    expect(await runChild('exit', 123)).toMatchObject({ code: 3, stored: 123 });
  });

  it('commits queued rows on SIGTERM and then dies by SIGTERM when no other listener exists', async () => {
    expect(await runChild('sigterm', 123)).toMatchObject({ signal: 'SIGTERM', stored: 123 });
  });

  it("commits queued rows on SIGTERM and leaves the exit to the host's own listener", async () => {
    expect(await runChild('sigterm-host', 123)).toMatchObject({ code: 7, stored: 123 });
  });

  it('commits queued rows on SIGINT (Ctrl+C) and then dies by SIGINT when no other listener exists', async () => {
    expect(await runChild('sigint', 123)).toMatchObject({ signal: 'SIGINT', stored: 123 });
  });

  it("commits queued rows on SIGINT and leaves the exit to the host's own listener", async () => {
    expect(await runChild('sigint-host', 123)).toMatchObject({ code: 7, stored: 123 });
  });

  it("keeps the instrumentation's traffic counters when the host exits without shutdown()", async () => {
    requireDist();
    const t = tempDir();
    cleanup = t.cleanup;
    const finished = await startFixture('traffic-exit-child.mjs', [t.db]).done;
    expect(finished.code).toBe(0);
    expect(count(t.db, 'error_events')).toBe(1);
    const db = rawDb(t.db);
    try {
      const sums = db.prepare('SELECT sum(requests) AS requests, sum(errors) AS errors FROM traffic').get();
      expect(sums).toEqual({ requests: 2, errors: 1 });
    } finally {
      db.close();
    }
  });
});
