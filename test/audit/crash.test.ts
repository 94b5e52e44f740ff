import { afterEach, describe, expect, it } from 'vitest';
import { rawDb, tempDir } from './helpers.js';
import { requireDist, startFixture } from './processes.js';
import type { ChildProcess } from 'node:child_process';

const PER_TICK = 100; // rows per 10 ms tick, and the writer's batchSize

let cleanup: (() => void) | undefined;
let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  cleanup?.();
});

describe('a writer killed with SIGKILL mid-stream', () => {
  it('leaves a database that passes integrity_check, holding an unbroken prefix of the stream with every row the writer had confirmed', async () => {
    requireDist();
    const t = tempDir();
    cleanup = t.cleanup;
    const run = startFixture('writer-child.mjs', ['stream', t.db, '0', String(PER_TICK)]);
    child = run.child;
    const lastReport = () => {
      const lines = run.stdout().trim().split('\n').filter((l) => l.startsWith('sent '));
      const last = lines.at(-1)?.split(' ');
      return last ? { sent: Number(last[1]), written: Number(last[3]) } : { sent: 0, written: 0 };
    };
    const deadline = Date.now() + 15_000;
    while (lastReport().written < 5_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGKILL');
    const finished = await run.done;
    expect(finished.signal).toBe('SIGKILL');
    const { sent, written } = lastReport();
    expect(written).toBeGreaterThanOrEqual(5_000);

    const db = rawDb(t.db, false); // read-write: recovers the WAL as the next writer would
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const ids = (db.prepare('SELECT error_id FROM error_events ORDER BY error_id').all() as Array<{ error_id: string }>).map((r) =>
      Number.parseInt(r.error_id.slice(4), 16),
    );
    db.close();
    const stored = ids.length;
    // Committed batches survive; they are the stream's first `stored` events, with no hole.
    expect(ids.every((n, i) => n === i)).toBe(true);
    expect(stored).toBeGreaterThanOrEqual(written);
    // Lost: only rows not yet confirmed written (the batch in flight and the queue behind it,
    // whose length depends on how busy the machine is); nothing beyond what was sent, plus
    // the one tick that may have been sent after the last line we read.
    expect(stored).toBeLessThanOrEqual(sent + PER_TICK);
  }, 30_000);
});
