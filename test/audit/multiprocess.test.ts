import { afterEach, describe, expect, it } from 'vitest';
import { count, rawDb, tempDir } from './helpers.js';
import { requireDist, startFixture } from './processes.js';
import type { ChildProcess } from 'node:child_process';

/**
 * Several processes on one file (issue #4): 3 writer processes and 1 polling reader. The test
 * runs 6 s; set AAP_TRIAGE_SOAK=1 for the 20 s soak (same assertions).
 */
const SOAK = process.env['AAP_TRIAGE_SOAK'] === '1';
const DURATION_MS = SOAK ? 20_000 : 6_000;
const WRITERS = 3;
const PER_WRITER = SOAK ? 30_000 : 9_000;

let cleanup: (() => void) | undefined;
let children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  cleanup?.();
});

describe('several processes writing one audit file', () => {
  it(
    `${WRITERS} writers and a polling reader for ${DURATION_MS / 1000} s: no SQLITE_BUSY surfaces and every error sent is stored`,
    async () => {
      requireDist();
      const t = tempDir();
      cleanup = t.cleanup;
      const writers = Array.from({ length: WRITERS }, (_, i) =>
        startFixture('writer-child.mjs', ['steady', t.db, String(i), String(PER_WRITER), String(DURATION_MS)]),
      );
      const reader = startFixture('reader-child.mjs', [t.db, String(DURATION_MS + 500), '20']);
      children = [...writers.map((w) => w.child), reader.child];
      const results = await Promise.all(writers.map((w) => w.done));
      const read = await reader.done;

      let sent = 0;
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
        const report = JSON.parse(result.stdout.trim()) as { sent: number; health: { state: string; written: number; dropped: number; failed: number } };
        expect(report.health).toMatchObject({ state: 'ok', written: report.sent, dropped: 0, failed: 0 });
        sent += report.sent;
      }
      expect(sent).toBe(WRITERS * PER_WRITER);
      expect(read.code, read.stderr).toBe(0);
      const polls = JSON.parse(read.stdout.trim()) as { polls: number; errors: string[]; maxCount: number; decreased: boolean };
      expect(polls.errors).toEqual([]);
      expect(polls.polls).toBeGreaterThan(50);
      expect(polls.decreased).toBe(false);
      expect(count(t.db, 'error_events')).toBe(sent);
      const db = rawDb(t.db);
      const perService = db.prepare('SELECT service, count(*) AS n FROM error_events GROUP BY service ORDER BY service').all();
      expect(perService).toEqual(Array.from({ length: WRITERS }, (_, i) => ({ service: `dealer-${i}`, n: PER_WRITER })));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    },
    DURATION_MS + 30_000,
  );
});
